// ge/sdk/kernel.h — backends and kernels.
//
// A Backend names an execution target ("cpu", "ascend"). Kernels are registered per
// (backend, domain, op_type); the runtime builds one Kernel object per node when a graph is
// prepared (static shapes and constant inputs are known then, so a kernel precomputes its
// primitives) and calls run() once per inference.
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/tensor.h"

namespace ge {

/// What a kernel factory sees: the node (op type, attributes, input/output values with dtype,
/// shape and format, constant data where known) and the execution settings.
struct KernelBuildContext {
  const Node& node;
  int64_t opset;    ///< operator set version of the node's domain
  int threads = 1;  ///< intra-op thread budget of this kernel
  /// True when the output shapes are not known at build: the eager evaluation of an op whose
  /// output shape depends on input values (NonZero, Unique, Compress, NonMaxSuppression; ONNX
  /// Runtime's OpKernelContext::Output allocates at run time the same way). Only a KernelDef
  /// with `allocates_outputs` is built so; its factory must not read output_shape/output_type,
  /// and its run() receives empty outputs (data() == nullptr) and assigns each present one,
  /// `io.outputs[k] = Tensor::allocate(dtype, shape)`.
  bool dynamic_outputs = false;
  DataType input_type(size_t i) const { return node.input(i) ? node.input(i)->dtype : DataType::Undefined; }
  const Shape& input_shape(size_t i) const;
  const Shape& output_shape(size_t i) const { return node.output(i)->shape; }
  DataType output_type(size_t i) const { return node.output(i)->dtype; }
  bool has_input(size_t i) const { return node.input(i) != nullptr; }
  /// Constant contents of input i (weights, folded shapes), or null.
  const Tensor* input_data(size_t i) const { return node.input(i) ? node.input(i)->data.get() : nullptr; }
};

/// Buffers of one kernel invocation. inputs[i] is empty (data()==nullptr, numel()>0) for an
/// omitted optional input; outputs are preallocated with the node's output shapes (empty, for
/// the kernel to allocate, when it was built with KernelBuildContext::dynamic_outputs).
struct KernelIO {
  std::span<const Tensor> inputs;
  std::span<Tensor> outputs;
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  /// Computes outputs from inputs. Must be safe to call repeatedly; throws ge::Error on a
  /// runtime failure (never aborts).
  virtual void run(KernelIO& io) = 0;
  /// Short description for reports and profiles (e.g. "onednn:conv:jit_avx512").
  virtual std::string impl_name() const { return "kernel"; }
};

/// Builds a kernel for a node; throws ge::UnsupportedError naming the dtype / attribute /
/// rank it does not handle.
using KernelFactory = std::function<std::unique_ptr<Kernel>(const KernelBuildContext&)>;

struct KernelDef {
  std::string backend;  ///< "cpu", "ascend", ...
  std::string domain;   ///< "" = ai.onnx
  std::string op_type;
  KernelFactory factory;
  std::string source;   ///< registering plugin (filled by the host)
  /// The factory honours KernelBuildContext::dynamic_outputs (the kernel sizes and allocates its
  /// outputs at run); the host then evaluates such ops eagerly when their inputs are known.
  bool allocates_outputs = false;
};

/// An execution target.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const { return name(); }
  /// Sets the number of threads kernels of this backend may use in total.
  virtual void set_threads(int n) {}
};

/// Kernels by backend and op.
class KernelRegistry {
 public:
  /// Adds a kernel. A second kernel for the same (backend, domain, op_type) throws ge::Error
  /// naming both sources.
  void add(KernelDef def);
  const KernelDef* find(const std::string& backend, const std::string& domain, const std::string& op_type) const;
  std::vector<const KernelDef*> all() const;
  void remove_source(const std::string& source);

 private:
  std::vector<std::unique_ptr<KernelDef>> defs_;
};

}  // namespace ge
