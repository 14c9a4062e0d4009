#include "ge/core/compare.h"

#include <cmath>
#include <sstream>

#include "ge/sdk/layout.h"

namespace ge::core {
namespace {

/// `t` in its logical layout: a blocked tensor (NC1HWC0, FRACTAL_Z, FRACTAL_NZ, oneDNN's blocked
/// weights) is unpacked to NCHW (rank 4) or ND, so that two runs whose layout passes chose
/// differently compare element by element, not byte by byte.
Tensor logical(const Tensor& t) {
  if (!format_is_blocked(t.format())) return t;
  const Format plain = t.shape().rank() == 4 ? Format::NCHW : Format::ND;
  return can_convert_format(t.format(), plain, t.shape().rank()) ? convert_format(t, plain) : t;
}

}  // namespace

Comparison compare_tensors(const Tensor& out_in, const Tensor& ref_in, const Tolerance& tol) {
  const Tensor out = logical(out_in), ref = logical(ref_in);
  Comparison c;
  std::ostringstream os;
  if (out.dtype() != ref.dtype() || out.shape() != ref.shape()) {
    os << "type mismatch: got " << dtype_name(out.dtype()) << out.shape().str() << ", expected "
       << dtype_name(ref.dtype()) << ref.shape().str();
    c.message = os.str();
    return c;
  }
  bool exact = !dtype_is_float(ref.dtype());
  std::vector<double> o = out.to_double_vector(), r = ref.to_double_vector();
  double max_ref = 0, diff2 = 0, ref2 = 0, worst_ratio = -1;
  for (double x : r)
    if (std::isfinite(x)) max_ref = std::max(max_ref, std::fabs(x));
  c.atol = exact ? 0 : tol.atol.value_or(1e-6 * max_ref);
  double rtol = exact ? 0 : tol.rtol;
  bool elem_ok = true;
  for (size_t i = 0; i < o.size(); ++i) {
    double d;
    if (std::isnan(r[i]) && std::isnan(o[i])) d = 0;
    else if (std::isinf(r[i]) && o[i] == r[i]) d = 0;
    else d = std::fabs(o[i] - r[i]);
    if (std::isnan(d)) d = INFINITY;
    if (std::isfinite(r[i])) {
      diff2 += d * d;
      ref2 += r[i] * r[i];
    }
    c.max_abs = std::max(c.max_abs, d);
    double bound = c.atol + rtol * std::fabs(r[i]);
    double ratio = bound > 0 ? d / bound : (d > 0 ? INFINITY : 0);
    if (d > bound && (exact || tol.elementwise)) elem_ok = false;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      c.worst_index = static_cast<int64_t>(i);
      c.worst_out = o[i];
      c.worst_ref = r[i];
    }
  }
  c.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  bool l2_ok = exact || tol.max_rel_l2 < 0 || c.rel_l2 <= tol.max_rel_l2;
  c.ok = elem_ok && l2_ok;
  os.precision(3);
  os << std::scientific << "rel_l2=" << c.rel_l2 << " max_abs=" << c.max_abs;
  if (c.worst_index >= 0) {
    os.precision(7);
    os << " worst[" << c.worst_index << "]: got " << c.worst_out << " expected " << c.worst_ref;
  }
  os.precision(3);
  if (!l2_ok) os << " (relative L2 above " << tol.max_rel_l2 << ")";
 if (!elem_ok) {
    os << " (elements beyond atol=" << c.atol << " + rtol=" << rtol << "·|ref|)";
  }
  c.message = os.str();
  return c;
}

}  // namespace ge::core
