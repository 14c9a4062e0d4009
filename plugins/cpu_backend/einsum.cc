// plugins/cpu_backend/einsum.cc — Einsum-12 (onnx/docs/Operators.md#Einsum, numpy.einsum
// semantics): explicit ("ij,jk->ik") and implicit ("ij,jk": the labels used once, in
// alphabetical order) forms, ellipsis broadcasting ("...ij"), repeated labels within one
// operand (diagonals, "ii->i") and labels summed away.
//
// This is the direct kernel: every output element sums, over the summed labels, the product
// of the operands' elements, each operand seen through per-label strides (a repeated label
// adds its axes' strides; an extent-1 axis broadcasts with stride 0). Its cost is the product
// of all label extents, so contraction-heavy equations belong on a MatMul lowering.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "cpu_backend.h"
#include "tensor_common.h"

namespace ge::cpu {
namespace {

/// One operand's labels; -1 stands for "..." (expanded to the ellipsis labels later).
struct Term {
  std::vector<int> labels;
};

/// Letters a-z, A-Z map to 0..51; ellipsis dims get 52.. (right-aligned across operands).
int letter(char c, const std::string& who) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  throw InvalidGraphError(who + ": Einsum equation has an invalid character '" + std::string(1, c) + "'");
}

Term parse_term(const std::string& s, const std::string& who) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ') continue;
    if (s[i] == '.') {
      if (s.compare(i, 3, "...") != 0) throw InvalidGraphError(who + ": Einsum equation has a stray '.'");
      if (std::count(t.labels.begin(), t.labels.end(), -1)) throw InvalidGraphError(who + ": two ellipses in one term");
      t.labels.push_back(-1);
      i += 2;
      continue;
    }
    t.labels.push_back(letter(s[i], who));
  }
  return t;
}

struct EinsumPlan {
  std::vector<int64_t> out_dims;                  // extents of the output labels
  std::vector<int64_t> sum_dims;                  // extents of the summed labels
  std::vector<std::vector<int64_t>> out_strides;  // per operand, per output label
  std::vector<std::vector<int64_t>> sum_strides;  // per operand, per summed label
};

EinsumPlan plan_einsum(const std::string& eq, const std::vector<Shape>& shapes, const Shape& out_shape,
                       const std::string& who) {
  std::string lhs = eq, rhs;
  const size_t arrow = eq.find("->");
  const bool explicit_out = arrow != std::string::npos;
  if (explicit_out) {
    lhs = eq.substr(0, arrow);
    rhs = eq.substr(arrow + 2);
  }
  std::vector<Term> terms;
  for (size_t b = 0;;) {
    const size_t c = lhs.find(',', b);
    terms.push_back(parse_term(lhs.substr(b, c == std::string::npos ? std::string::npos : c - b), who));
    if (c == std::string::npos) break;
    b = c + 1;
  }
  if (terms.size() != shapes.size()) {
    throw InvalidGraphError(who + ": Einsum equation has " + std::to_string(terms.size()) + " terms for " +
                            std::to_string(shapes.size()) + " inputs");
  }
  // Expand each "..." into the ellipsis labels 52.. right-aligned.
  size_t ell_rank = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const size_t letters = terms[k].labels.size() - std::count(terms[k].labels.begin(), terms[k].labels.end(), -1);
    const bool has_ell = letters != terms[k].labels.size();
    if (shapes[k].rank() < letters || (!has_ell && shapes[k].rank() != letters)) {
      throw InvalidGraphError(who + ": Einsum term " + std::to_string(k) + " does not match input " + shapes[k].str());
    }
    if (has_ell) ell_rank = std::max(ell_rank, shapes[k].rank() - letters);
  }
  auto expand = [&](Term& t, size_t n_ell) {
    std::vector<int> l;
    for (int x : t.labels) {
      if (x != -1) {
        l.push_back(x);
        continue;
      }
      for (size_t e = ell_rank - n_ell; e < ell_rank; ++e) l.push_back(52 + static_cast<int>(e));
    }
    t.labels = l;
  };
  std::map<int, int> uses;
  std::map<int, int64_t> extent;
  for (size_t k = 0; k < terms.size(); ++k) {
    const size_t letters = terms[k].labels.size() - std::count(terms[k].labels.begin(), terms[k].labels.end(), -1);
    expand(terms[k], shapes[k].rank() - letters);
    for (size_t a = 0; a < terms[k].labels.size(); ++a) {
      const int l = terms[k].labels[a];
      ++uses[l];
      const int64_t d = shapes[k][a];
      auto it = extent.find(l);
      if (it == extent.end() || it->second == 1) extent[l] = d;
      else if (d != 1 && d != it->second) {
        throw InvalidGraphError(who + ": Einsum label extents differ (" + std::to_string(d) + " vs " +
                                std::to_string(it->second) + ")");
      }
    }
  }
  Term out;
  if (explicit_out) {
    out = parse_term(rhs, who);
    expand(out, ell_rank);
  } else {  // implicit: ellipsis dims, then the labels used once, alphabetically
    for (size_t e = 0; e < ell_rank; ++e) out.labels.push_back(52 + static_cast<int>(e));
    for (auto& [l, n] : uses)
      if (l < 52 && n == 1) out.labels.push_back(l);
  }
  EinsumPlan p;
  std::vector<int> sum_labels;
  for (auto& [l, n] : uses)
    if (std::find(out.labels.begin(), out.labels.end(), l) == out.labels.end()) sum_labels.push_back(l);
  for (int l : out.labels) {
    if (!extent.count(l)) throw InvalidGraphError(who + ": Einsum output label not in any input");
    p.out_dims.push_back(extent[l]);
  }
  for (int l : sum_labels) p.sum_dims.push_back(extent[l]);
  if (Shape(p.out_dims) != out_shape) {
    throw InvalidGraphError(who + ": Einsum gives " + Shape(p.out_dims).str() + " but the output is " + out_shape.str());
  }
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::vector<int64_t> st = contiguous_strides(shapes[k]);
    auto stride_of = [&](int l) {
      int64_t s = 0;
      for (size_t a = 0; a < terms[k].labels.size(); ++a)
        if (terms[k].labels[a] == l && shapes[k][a] != 1) s += st[a];
      return s;
    };
    std::vector<int64_t> os, ss;
    for (int l : out.labels) os.push_back(stride_of(l));
    for (int l : sum_labels) ss.push_back(stride_of(l));
    p.out_strides.push_back(os);
    p.sum_strides.push_back(ss);
  }
  return p;
}

template <class T>
class EinsumKernel final : public CpuKernel {
 public:
  EinsumKernel(const KernelBuildContext& ctx, EinsumPlan p) : CpuKernel(ctx), p_(std::move(p)) {}
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    using N = arith::Num<T>;
    using A = std::conditional_t<std::is_floating_point_v<typename N::acc>, double,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
    const size_t n_in = p_.out_strides.size();
    std::vector<const T*> x(n_in);
    for (size_t k = 0; k < n_in; ++k) x[k] = io.inputs[k].data_as<T>();
    T* y = io.outputs[0].data_as<T>();
    const int64_t out_n = io.outputs[0].numel();
    int64_t sum_n = 1;
    for (int64_t d : p_.sum_dims) sum_n *= d;
    const size_t no = p_.out_dims.size(), ns = p_.sum_dims.size();
    parallel_for(out_n, [&](int64_t o) {
      std::vector<int64_t> off(n_in, 0), idx(ns, 0);
      int64_t rem = o;
      for (size_t a = no; a-- > 0;) {
        const int64_t c = rem % p_.out_dims[a];
        rem /= p_.out_dims[a];
        for (size_t k = 0; k < n_in; ++k) off[k] += c * p_.out_strides[k][a];
      }
      A acc = 0;
      for (int64_t s = 0; s < sum_n; ++s) {
        A prod = 1;
        for (size_t k = 0; k < n_in; ++k) prod *= static_cast<A>(N::load(x[k][off[k]]));
        acc += prod;
        for (size_t a = ns; a-- > 0;) {  // odometer over the summed labels
          for (size_t k = 0; k < n_in; ++k) off[k] += p_.sum_strides[k][a];
          if (++idx[a] < p_.sum_dims[a]) break;
          for (size_t k = 0; k < n_in; ++k) off[k] -= p_.sum_strides[k][a] * p_.sum_dims[a];
          idx[a] = 0;
        }
      }
      y[o] = N::store(static_cast<typename N::acc>(acc));
    });
  }
  std::string impl_name() const override { return "cpu:Einsum:direct"; }

 private:
  EinsumPlan p_;
};

std::unique_ptr<Kernel> make_einsum(const KernelBuildContext& ctx) {
  const std::string eq = ctx.node.attrs.get_string("equation", "");
  if (eq.empty()) throw InvalidGraphError(at_node(ctx) + "Einsum without an equation");
  std::vector<Shape> shapes;
  const DataType t = ctx.input_type(0);
  for (size_t i = 0; i < ctx.node.num_inputs(); ++i) {
    if (ctx.input_type(i) != t) throw InvalidGraphError(at_node(ctx) + "Einsum inputs differ in dtype");
    shapes.push_back(ctx.input_shape(i));
  }
  EinsumPlan p = plan_einsum(eq, shapes, ctx.output_shape(0), ctx.node.describe());
  std::unique_ptr<Kernel> k;
  arith::dispatch(arith::Numeric{}, t, ctx, "Einsum input", [&](auto tag) {
    k = std::make_unique<EinsumKernel<typename decltype(tag)::type>>(ctx, std::move(p));
  });
  return k;
}

}  // namespace

void register_einsum_kernels(Registrar& r) { add_cpu_kernel(r, "Einsum", make_einsum); }

}  // namespace ge::cpu
