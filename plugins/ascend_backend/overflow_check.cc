// plugins/ascend_backend/overflow_check.cc — one fp32 run of the graph at compile time
// (overflow_check.h).
#include "overflow_check.h"

#include <cmath>
#include <random>
#include <sstream>

#include "ge/sdk/error.h"
#include "overflow_inputs.h"

namespace ge::ascend {

namespace {

double max_abs(const Tensor& t) {
  double m = 0;
  if (!dtype_is_float(t.dtype())) return 0;
  for (double x : t.to_double_vector())
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
    else return INFINITY;
  return m;
}

Tensor seeded(const Value& v, std::mt19937& rng, double lo, double hi) {
  Tensor t = Tensor::allocate(v.dtype, v.shape);
  if (v.dtype == DataType::Float32) {
    std::uniform_real_distribution<float> u(static_cast<float>(lo), static_cast<float>(hi));
    for (float& x : t.span<float>()) x = u(rng);
  } else if (v.dtype == DataType::Float16) {
    std::uniform_real_distribution<float> u(static_cast<float>(lo), static_cast<float>(hi));
    uint16_t* p = t.data_as<uint16_t>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = float_to_half(u(rng));
  }
  // Integer and bool inputs stay zero (Tensor::allocate zero-fills): index 0 is valid for Gather.
  return t;
}

}  // namespace

OverflowScan scan_fp32_ranges(const Graph& g, PassContext& ctx, const CheckInputs& in) {
  OverflowScan s;
  std::ostringstream d;
  if (in.dir.empty()) d << "seeded inputs: floats uniform in [" << in.lo << ", " << in.hi << "), integers 0 (seed " << in.seed << ")";
  else d << "inputs of '" << in.dir << "'";
  s.input_desc = d.str();
  std::unique_ptr<Graph> c = g.clone();
  std::vector<Value*> free;  // graph inputs without data, in order
  for (Value* v : c->inputs())
    if (!v->data) free.push_back(v);
  if (!in.dir.empty()) {
    std::vector<Tensor> t = read_input_dir(in.dir, std::vector<const Value*>(free.begin(), free.end()));
    for (size_t k = 0; k < free.size(); ++k) free[k]->data = std::make_shared<const Tensor>(std::move(t[k]));
  } else {
    std::mt19937 rng(in.seed);
    for (Value* v : free) v->data = std::make_shared<const Tensor>(seeded(*v, rng, in.lo, in.hi));
  }
  for (Node* n : c->topological_order()) {
    std::optional<std::vector<Tensor>> out;
    try {
      out = ctx.evaluate(*n);
    } catch (const std::exception& e) {  // a ConfigError: the pass must stop, not be undone and skipped
      throw ConfigError("ascend.overflow_check: the fp32 run failed at " + n->describe() + ": " + e.what());
    }
    if (!out)
      throw ConfigError("ascend.overflow_check: the host backend has no kernel for " + n->describe() +
                  " (the check runs the fp32 graph on it); turn the check off");
    double m = 0;
    for (const Value* v : n->inputs())
      if (v && !v->is_constant() && v->data) m = std::max(m, max_abs(*v->data));
    for (size_t i = 0; i < n->num_outputs(); ++i) {
      Value* o = n->output(i);
      if (!o) continue;
      m = std::max(m, max_abs((*out)[i]));
      o->data = std::make_shared<const Tensor>(std::move((*out)[i]));
    }
    s.max_abs[n->name()] = m;
  }
  return s;
}

}  // namespace ge::ascend
