// plugins/cpu_backend/matmul.cc — ONNX MatMul and Gemm on oneDNN's matmul primitive.
//
// MatMul (onnx/docs/Operators.md#MatMul) follows numpy.matmul: a 1-D A is promoted to [1, K]
// and a 1-D B to [K, 1] (the added dim is removed from the result); batch dims broadcast.
// oneDNN's matmul needs equal ranks and broadcasts batch dims of extent 1 itself.
//
// Gemm (onnx/docs/Operators.md#Gemm): Y = alpha * A' · B' + beta * C, A' = transA ? Aᵀ : A,
// B' = transB ? Bᵀ : B, C unidirectionally broadcast to [M, N]. Transposes are expressed as
// strides of the memory descriptors (no copy); alpha is oneDNN's output scale (applied to the
// product before post-ops); beta * C is a binary-add post-op whose source broadcasts.
//
// A constant B (weights) lets oneDNN choose its layout (format_tag::any); it is reordered once,
// or read in place when oneDNN chose its own layout.
// A node cpu_precision put in bf16 (bf16.h) runs bf16 A and B with fp32 accumulation and an fp32
// result: A (and a non-constant B) are reordered fp32 → bf16 into owned buffers at each run.
#include <cstring>
#include <string>

#include "bf16.h"
#include "gemv.h"
#include "cpu_backend.h"
#include "kernels.h"

namespace ge::cpu {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

/// One oneDNN matmul with user-layout A, B, optional broadcast addend and dst.
class MatmulCore {
 public:
  /// b_const: constant contents of B in user layout, or null. c_md: addend descriptor (zero
  /// descriptor when none); c_const: its constant contents (already scaled), or null.
  /// bf16: bf16 operands (bf16.h).
  void build(const memory::desc& a_md, const memory::desc& b_md, const float* b_const,
             const memory::desc& c_md, const float* c_const, const memory::desc& dst_md, float alpha,
             const std::string& what, bool bf16 = false) {
    eng_ = dnnl_engine();
    bf16_ = bf16;
    a_md_ = a_md;
    b_md_ = b_md;
    c_md_ = c_md;
    dst_md_ = dst_md;
    has_c_ = c_md.get_size() != 0;
    try {
      dnnl::primitive_attr attr;
      if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
      if (has_c_) {
        dnnl::post_ops po;
        po.append_binary(dnnl::algorithm::binary_add, c_md);
        attr.set_post_ops(po);
      }
      const dt op_dt = bf16 ? dt::bf16 : dt::f32;
      const auto dense = [&](const memory::desc& d) { return memory::desc(d.dims(), op_dt, plain_tag(d.dims().size())); };
      memory::desc w_md = b_const ? memory::desc(b_md.dims(), op_dt, tag::any) : bf16 ? dense(b_md) : b_md;
      pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(bf16 ? dense(a_md) : a_md, w_md, dst_md), attr, eng_);
      prim_ = dnnl::matmul(pd_);
      if (bf16) {
        a_op_ = memory(pd_.src_desc(), eng_);
        a_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, a_md, eng_, pd_.src_desc()));
        if (!b_const) {
          b_op_ = memory(pd_.weights_desc(), eng_);
          b_r_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng_, b_md, eng_, pd_.weights_desc()));
        }
      }
      // A constant B whose chosen layout is the user's own is read in place at run (the kernel's
      // input 1 is the constant): no copy, no reorder.
      if (b_const && (bf16 || pd_.weights_desc() != b_md)) {
        memory user(b_md, eng_, const_cast<float*>(b_const));
        b_mem_ = memory(pd_.weights_desc(), eng_);
        reorder(user, b_mem_);
      }
      if (c_const) {
        c_mem_ = memory(c_md, eng_);
        std::memcpy(c_mem_.get_data_handle(), c_const, c_md.get_size());
      }
      impl_ = std::string(bf16 ? "onednn:matmul_bf16:" : "onednn:matmul:") + pd_.impl_info_str();
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, what);
    }
  }

  void run(const void* a, const void* b, const void* c, void* dst) {
    dnnl::stream& s = dnnl_stream();
    memory a_mem(a_md_, eng_, const_cast<void*>(a));
    memory b_user = b_mem_ ? b_mem_ : memory(b_md_, eng_, const_cast<void*>(b));
    if (bf16_) {
      a_r_.execute(s, a_mem, a_op_);
      a_mem = a_op_;
      if (!b_mem_) {
        b_r_.execute(s, b_user, b_op_);
        b_user = b_op_;
      }
    }
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, b_user}, {DNNL_ARG_DST, memory(dst_md_, eng_, dst)}};
    if (has_c_) {
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] =
          c_mem_ ? c_mem_ : memory(c_md_, eng_, const_cast<void*>(c));
    }
    prim_.execute(s, args);
    s.wait();
  }
  const std::string& impl() const { return impl_; }

 private:
  dnnl::engine eng_;
  memory::desc a_md_, b_md_, c_md_, dst_md_;
  bool has_c_ = false, bf16_ = false;
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  memory b_mem_, c_mem_, a_op_, b_op_;  // a_op_, b_op_: bf16 copies of A and a non-constant B
  dnnl::reorder a_r_, b_r_;
  std::string impl_;
};

memory::desc md(const std::vector<int64_t>& dims) { return plain_md(Shape(dims)); }

class MatMulKernel : public CpuKernel {
 public:
  explicit MatMulKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    require_f32(ctx, {0, 1});
    require_plain(ctx);
    const std::string where = " in " + who(ctx);
    std::vector<int64_t> a = ctx.input_shape(0).dims(), b = ctx.input_shape(1).dims();
    if (a.empty() || b.empty()) throw InvalidGraphError("MatMul: scalar operand" + where);
    std::vector<int64_t> out_mn;  // trailing dims of the result per numpy
    const bool a1 = a.size() == 1, b1 = b.size() == 1;
    if (a1) a.insert(a.begin(), 1);
    if (b1) b.push_back(1);
    const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
    if (b[b.size() - 2] != K)
      throw InvalidGraphError("MatMul: inner dims differ: " + ctx.input_shape(0).str() + " · " + ctx.input_shape(1).str() + where);
    const size_t R = std::max(a.size(), b.size());
    a.insert(a.begin(), R - a.size(), 1);
    b.insert(b.begin(), R - b.size(), 1);
    std::vector<int64_t> y(R);
    for (size_t i = 0; i + 2 < R; ++i) {
      if (a[i] != b[i] && a[i] != 1 && b[i] != 1)
        throw InvalidGraphError("MatMul: batch dims do not broadcast: " + ctx.input_shape(0).str() + " · " + ctx.input_shape(1).str() + where);
      y[i] = a[i] == 1 ? b[i] : a[i];
    }
    y[R - 2] = M;
    y[R - 1] = N;
    // The node's output shape is y without the promoted dims.
    std::vector<int64_t> expect(y.begin(), y.end() - 2);
    if (!a1) expect.push_back(M);
    if (!b1) expect.push_back(N);
    if (Shape(expect) != ctx.output_shape(0))
      throw InvalidGraphError("MatMul: output shape " + ctx.output_shape(0).str() + " differs from computed " + Shape(expect).str() + where);
    empty_ = Shape(y).numel() == 0;
    if (empty_) return;
    // K = 0: every output element is an empty sum, 0 (numpy.matmul); oneDNN divides by K.
    zero_k_ = K == 0;
    if (zero_k_) return;
    // B without batch (all ones): fold A's batch dims into M — one large 2-D GEMM, the fastest
    // form for a constant weight matrix.
    bool b_2d = true;
    for (size_t i = 0; i + 2 < R; ++i) b_2d = b_2d && b[i] == 1;
    if (b_2d && R > 2) {
      int64_t rows = Shape(a).numel() / K;
      a = {rows, K};
      b = {K, N};
      y = {rows, N};
    }
    core_.build(md(a), md(b), const_f32(ctx, 1), memory::desc(), nullptr, md(y), 1.0f, "MatMul" + where, bf16_native(ctx));
  }
  void run(KernelIO& io) override {
    if (empty_) return;
    if (zero_k_) {
      std::memset(io.outputs[0].data(), 0, io.outputs[0].nbytes());
      return;
    }
    ThreadScope threads(threads_);
    try {
      core_.run(io.inputs[0].data(), io.inputs[1].data(), nullptr, io.outputs[0].data());
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "MatMul");
    }
  }
  std::string impl_name() const override { return core_.impl(); }

 private:
  MatmulCore core_;
  bool empty_ = false, zero_k_ = false;
};

class GemmKernel : public CpuKernel {
 public:
  explicit GemmKernel(const KernelBuildContext& ctx) : CpuKernel(ctx) {
    ThreadScope threads(threads_);
    require_f32(ctx, {0, 1, 2});
    require_plain(ctx);
    const std::string where = " in " + who(ctx);
    const Attributes& at = ctx.node.attrs;
    const bool ta = at.get_int("transA", 0) != 0, tb = at.get_int("transB", 0) != 0;
    const float alpha = at.get_float("alpha", 1.0f);
    beta_ = at.get_float("beta", 1.0f);
    const Shape& as = ctx.input_shape(0);
    const Shape& bs = ctx.input_shape(1);
    if (as.rank() != 2 || bs.rank() != 2)
      throw InvalidGraphError("Gemm: A and B must be 2-D, got " + as.str() + " and " + bs.str() + where);
    const int64_t M = ta ? as[1] : as[0], K = ta ? as[0] : as[1];
    const int64_t KB = tb ? bs[1] : bs[0], N = tb ? bs[0] : bs[1];
    if (K != KB) throw InvalidGraphError("Gemm: inner dims differ: " + as.str() + " · " + bs.str() + where);
    if (ctx.output_shape(0) != Shape{M, N})
      throw InvalidGraphError("Gemm: output shape " + ctx.output_shape(0).str() + " is not [" + std::to_string(M) + "," + std::to_string(N) + "]" + where);
    empty_ = M * N == 0;
    if (empty_) return;
    // Transposed operands: same dims as the untransposed view, column-major strides.
    memory::desc a_md = ta ? memory::desc({M, K}, dt::f32, memory::dims{1, M}) : md({M, K});
    memory::desc b_md = tb ? memory::desc({K, N}, dt::f32, memory::dims{1, K}) : md({K, N});

    // C: unidirectional broadcast to [M, N] (ONNX Broadcasting.md); beta == 0 drops it.
    memory::desc c_md;
    has_c_ = ctx.has_input(2) && beta_ != 0.0f;
    if (has_c_) {
      std::vector<int64_t> c = ctx.input_shape(2).dims();
      if (c.size() > 2) throw InvalidGraphError("Gemm: C has rank " + std::to_string(c.size()) + where);
      c.insert(c.begin(), 2 - c.size(), 1);
      if ((c[0] != 1 && c[0] != M) || (c[1] != 1 && c[1] != N))
        throw InvalidGraphError("Gemm: C " + ctx.input_shape(2).str() + " does not broadcast to [" + std::to_string(M) + "," + std::to_string(N) + "]" + where);
      c_numel_ = c[0] * c[1];
      c_md = md(c);
      if (const float* cc = const_f32(ctx, 2)) {
        c_scaled_.assign(cc, cc + c_numel_);
        for (float& v : c_scaled_) v *= beta_;
        c_const_ = true;
      } else if (beta_ != 1.0f) {
        c_scaled_.resize(c_numel_);  // scratch for beta * C at run time
      }
    }
    // K = 0: alpha·A·B is an empty sum, so Y = beta·C broadcast (or 0); oneDNN divides by K.
    zero_k_ = K == 0;
    if (zero_k_) {
      n_ = N;
      c_cols_ = has_c_ ? ctx.input_shape(2).dims().back() : 0;
      c_rows_ = has_c_ && ctx.input_shape(2).rank() == 2 ? ctx.input_shape(2)[0] : 1;
      if (has_c_ && ctx.input_shape(2).rank() == 0) c_cols_ = 1;
      return;
    }
    // One row (a classifier at batch 1): the threaded GEMV of gemv.h (oneDNN runs it on one thread).
    gemv_ = M == 1 && !bf16_native(ctx) && gemv_available();
    if (gemv_) {
      k_ = K;
      n_ = N;
      alpha_ = alpha;
      trans_b_ = tb;
      c_cols_ = has_c_ ? ctx.input_shape(2).dims().empty() ? 1 : ctx.input_shape(2).dims().back() : 0;
      return;
    }
    core_.build(a_md, b_md, const_f32(ctx, 1), c_md, c_const_ ? c_scaled_.data() : nullptr, md({M, N}), alpha,
                "Gemm" + where, bf16_native(ctx));
  }
  /// Y[m, n] = beta · C[m or 0, n or 0], or 0 without C (the K = 0 case).
  void run_zero_k(KernelIO& io) const {
    float* y = io.outputs[0].data_as<float>();
    const int64_t total = io.outputs[0].numel();
    if (!has_c_) {
      std::memset(y, 0, io.outputs[0].nbytes());
      return;
    }
    const float* c = io.inputs[2].data_as<float>();
    for (int64_t i = 0; i < total; ++i) {
      const int64_t m = i / n_, n = i % n_;
      y[i] = beta_ * c[(c_rows_ == 1 ? 0 : m) * c_cols_ + (c_cols_ == 1 ? 0 : n)];
    }
  }
  void run(KernelIO& io) override {
    if (empty_) return;
    if (zero_k_) return run_zero_k(io);
    ThreadScope threads(threads_);
    const void* c = nullptr;
    if (has_c_ && !c_const_) {
      c = io.inputs[2].data();
      if (beta_ != 1.0f) {
        const float* src = io.inputs[2].data_as<float>();
        for (int64_t i = 0; i < c_numel_; ++i) c_scaled_[i] = beta_ * src[i];
        c = c_scaled_.data();
      }
    }
    if (gemv_) {
      if (has_c_ && c_const_) c = c_scaled_.data();
      gemv_f32(io.inputs[0].data_as<float>(), io.inputs[1].data_as<float>(), trans_b_, k_, n_, alpha_,
               static_cast<const float*>(c), c_cols_, io.outputs[0].data_as<float>());
      return;
    }
    try {
      core_.run(io.inputs[0].data(), io.inputs[1].data(), c, io.outputs[0].data());
    } catch (const dnnl::error& e) {
      rethrow_dnnl(e, "Gemm");
    }
  }
  std::string impl_name() const override { return gemv_ ? "cpu:gemv_avx512" : core_.impl(); }

 private:
  MatmulCore core_;
  float beta_ = 1.0f, alpha_ = 1.0f;
  bool empty_ = false, has_c_ = false, c_const_ = false, zero_k_ = false, gemv_ = false, trans_b_ = false;
  int64_t k_ = 0;
  int64_t c_numel_ = 0, n_ = 0, c_rows_ = 1, c_cols_ = 1;
  std::vector<float> c_scaled_;
};

template <class K>
KernelDef def(const char* op) {
  return KernelDef{"cpu", "", op,
                   onednn_factory([](const KernelBuildContext& ctx) -> std::unique_ptr<Kernel> { return std::make_unique<K>(ctx); }),
                   ""};
}

}  // namespace

void register_matmul_kernels(Registrar& r) {
  r.add_kernel(def<MatMulKernel>("MatMul"));
  r.add_kernel(def<GemmKernel>("Gemm"));
}

}  // namespace ge::cpu
