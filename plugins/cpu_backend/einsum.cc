// plugins/cpu_backend/einsum.cc — Einsum-12 (onnx/docs/Operators.md#Einsum, numpy.einsum
// semantics): explicit ("ij,jk->ik") and implicit ("ij,jk": the labels used once, in
// alphabetical order) forms, ellipsis broadcasting ("...ij"), repeated labels within one
// operand (diagonals, "ii->i") and labels summed away.
//
// float32 contractions of two operands run as one batched oneDNN matmul (GEMM lowering
// below). Everything else runs the direct kernel: every output element sums, over the summed labels, the product
// of the operands' elements, each operand seen through per-label strides (a repeated label
// adds its axes' strides; an extent-1 axis broadcasts with stride 0). Its cost is the product
// of all label extents, so contraction-heavy equations belong on a MatMul lowering.
#include <algorithm>
#include <map>
#include <optional>
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
  std::vector<std::vector<int>> in_labels;        // per operand, ellipsis expanded
  std::vector<int> out_labels, sum_labels;
  std::map<int, int64_t> extent;
  std::vector<Shape> shapes;
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
  p.out_labels = out.labels;
  p.sum_labels = sum_labels;
  p.extent = extent;
  p.shapes = shapes;
  for (const Term& t : terms) p.in_labels.push_back(t.labels);
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

// ---------------------------------------------------------------- GEMM lowering

/// A two-operand float32 equation whose every label is a batch label (in A, B and the
/// output), an M label (A and output), an N label (B and output) or a K label (A and B, summed)
/// is one batched matrix product: A packed to [batch, M, K], B to [batch, K, N], oneDNN's
/// matmul, the result unpacked to the output's label order. Packing is skipped where an
/// operand already has that order. Equations with diagonals, broadcast extents or labels
/// summed within one operand stay on the direct kernel.
struct GemmLowering {
  int64_t batch = 1, M = 1, K = 1, N = 1;
  std::optional<loops::LoopPlan> pack_a, pack_b, unpack_y;  // absent: use the buffer as it is
};

/// Plan copying `src` (labels src_labels, shape src_shape) into a contiguous buffer in the
/// label order `order`; nullopt when that is already the source's order.
std::optional<loops::LoopPlan> pack_plan(const std::vector<int>& src_labels, const Shape& src_shape,
                                         const std::vector<int>& order, const std::map<int, int64_t>& extent) {
  if (src_labels == order) return std::nullopt;
  const std::vector<int64_t> st = contiguous_strides(src_shape);
  loops::LoopPlan p;
  p.nops = 2;
  for (int l : order) {
    p.dims.push_back(extent.at(l));
    const auto a = static_cast<size_t>(std::find(src_labels.begin(), src_labels.end(), l) - src_labels.begin());
    p.strides[1].push_back(st[a]);
  }
  p.strides[0] = contiguous_strides(Shape(p.dims));
  loops::collapse(p);
  return p;
}

/// The inverse: from a contiguous buffer in label order `order` into the output (labels out_labels).
loops::LoopPlan unpack_plan(const std::vector<int>& order, const std::vector<int>& out_labels,
                            const std::map<int, int64_t>& extent) {
  std::vector<int64_t> od;
  for (int l : order) od.push_back(extent.at(l));
  const std::vector<int64_t> st = contiguous_strides(Shape(od));
  loops::LoopPlan p;
  p.nops = 2;
  for (int l : out_labels) {
    p.dims.push_back(extent.at(l));
    const auto a = static_cast<size_t>(std::find(order.begin(), order.end(), l) - order.begin());
    p.strides[1].push_back(st[a]);
  }
  p.strides[0] = contiguous_strides(Shape(p.dims));
  loops::collapse(p);
  return p;
}

std::optional<GemmLowering> lower_to_gemm(const EinsumPlan& p) {
  if (p.in_labels.size() != 2) return std::nullopt;
  const std::vector<int>&A = p.in_labels[0], &B = p.in_labels[1];
  auto has = [](const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); };
  auto unique = [](const std::vector<int>& v) {
    std::vector<int> s(v);
    std::sort(s.begin(), s.end());
    return std::adjacent_find(s.begin(), s.end()) == s.end();
  };
  if (!unique(A) || !unique(B) || !unique(p.out_labels)) return std::nullopt;
  for (size_t k = 0; k < 2; ++k)  // every axis has the label's full extent (no broadcasting)
    for (size_t a = 0; a < p.in_labels[k].size(); ++a)
      if (p.shapes[k][a] != p.extent.at(p.in_labels[k][a])) return std::nullopt;
  std::vector<int> bl, ml, nl, kl;
  for (int l : p.out_labels) {
    if (has(A, l) && has(B, l)) bl.push_back(l);
    else if (has(A, l)) ml.push_back(l);
    else nl.push_back(l);
  }
  for (int l : A) {
    if (has(p.out_labels, l)) continue;
    if (!has(B, l)) return std::nullopt;  // summed inside A alone
    kl.push_back(l);
  }
  for (int l : B)
    if (!has(p.out_labels, l) && !has(A, l)) return std::nullopt;
  GemmLowering g;
  for (int l : bl) g.batch *= p.extent.at(l);
  for (int l : ml) g.M *= p.extent.at(l);
  for (int l : kl) g.K *= p.extent.at(l);
  for (int l : nl) g.N *= p.extent.at(l);
  auto cat = [](std::initializer_list<const std::vector<int>*> parts) {
    std::vector<int> v;
    for (auto* x : parts) v.insert(v.end(), x->begin(), x->end());
    return v;
  };
  g.pack_a = pack_plan(A, p.shapes[0], cat({&bl, &ml, &kl}), p.extent);
  g.pack_b = pack_plan(B, p.shapes[1], cat({&bl, &kl, &nl}), p.extent);
  const std::vector<int> y_order = cat({&bl, &ml, &nl});
  if (y_order != p.out_labels) g.unpack_y = unpack_plan(y_order, p.out_labels, p.extent);
  return g;
}

class EinsumGemmKernel final : public CpuKernel {
 public:
  EinsumGemmKernel(const KernelBuildContext& ctx, GemmLowering g) : CpuKernel(ctx), g_(std::move(g)) {
    using dnnl::memory;
    ThreadScope threads(threads_);
    auto md = [](int64_t b, int64_t r, int64_t c) {
      return memory::desc({b, r, c}, memory::data_type::f32, memory::format_tag::abc);
    };
    a_md_ = md(g_.batch, g_.M, g_.K);
    b_md_ = md(g_.batch, g_.K, g_.N);
    y_md_ = md(g_.batch, g_.M, g_.N);
    try {
      pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md_, b_md_, y_md_), dnnl_engine());
      prim_ = dnnl::matmul(pd_);
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, who(ctx));
    }
    if (g_.pack_a) a_buf_.resize(static_cast<size_t>(g_.batch * g_.M * g_.K));
    if (g_.pack_b) b_buf_.resize(static_cast<size_t>(g_.batch * g_.K * g_.N));
    if (g_.unpack_y) y_buf_.resize(static_cast<size_t>(g_.batch * g_.M * g_.N));
  }
  void run(KernelIO& io) override {
    ThreadScope threads(threads_);
    const float* a = io.inputs[0].data_as<float>();
    const float* b = io.inputs[1].data_as<float>();
    float* y = io.outputs[0].data_as<float>();
    if (g_.pack_a) {
      loops::copy_rows(*g_.pack_a, a, a_buf_.data(), threads_);
      a = a_buf_.data();
    }
    if (g_.pack_b) {
      loops::copy_rows(*g_.pack_b, b, b_buf_.data(), threads_);
      b = b_buf_.data();
    }
    float* dst = g_.unpack_y ? y_buf_.data() : y;
    if (g_.K == 0) {
      std::fill_n(dst, g_.batch * g_.M * g_.N, 0.0f);
    } else if (g_.batch * g_.M * g_.N > 0) {
      using dnnl::memory;
      dnnl::engine& eng = dnnl_engine();
      dnnl::stream& s = dnnl_stream();
      prim_.execute(s, {{DNNL_ARG_SRC, memory(a_md_, eng, const_cast<float*>(a))},
                        {DNNL_ARG_WEIGHTS, memory(b_md_, eng, const_cast<float*>(b))},
                        {DNNL_ARG_DST, memory(y_md_, eng, dst)}});
      s.wait();
    }
    if (g_.unpack_y) loops::copy_rows(*g_.unpack_y, y_buf_.data(), y, threads_);
  }
  std::string impl_name() const override { return "cpu:Einsum:gemm:" + std::string(pd_.impl_info_str()); }

 private:
  GemmLowering g_;
  dnnl::memory::desc a_md_, b_md_, y_md_;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  std::vector<float> a_buf_, b_buf_, y_buf_;
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
  if (t == DataType::Float32) {
    if (auto g = lower_to_gemm(p)) return std::make_unique<EinsumGemmKernel>(ctx, std::move(*g));
  }
  std::unique_ptr<Kernel> k;
  arith::dispatch(arith::Numeric{}, t, ctx, "Einsum input", [&](auto tag) {
    k = std::make_unique<EinsumKernel<typename decltype(tag)::type>>(ctx, std::move(p));
  });
  return k;
}

}  // namespace

void register_einsum_kernels(Registrar& r) { add_cpu_kernel(r, "Einsum", make_einsum); }

}  // namespace ge::cpu
