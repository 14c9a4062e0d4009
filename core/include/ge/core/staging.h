// ge/core/staging.h — cutting an ONNX model at a node whose output shape depends on run-time
// values (docs/plan.md, "Data-dependent shapes").
//
// GE plans static shapes. When a node's output shape is known only once its inputs' values are
// (NonZero, Unique, Compress, NonMaxSuppression of computed data; a Reshape, Expand, Tile, Range,
// ConstantOfShape, Slice, Resize or TopK whose shape input is computed at run time) and the model
// declares none, the model runs in three stages at each set of input shapes:
//   prefix  — every node not downstream of the cut node, compiled statically; it computes the
//             values the other stages take (its outputs);
//   eager   — the cut node alone, evaluated on the host once its inputs are known (a kernel that
//             allocates its outputs, or shape inference on known values then a fold), so its
//             output shapes become known;
//   suffix  — every other node (downstream of the cut node), specialized per shape of its inputs
//             like a model with symbolic input dims (ge/core/dynamic.h), itself cut again when it
//             holds another such node.
// ONNX Runtime runs such models from one session by allocating outputs at run time
// (OpKernelContext::Output); CANN's dynamic-shape mode compiles per shape. Stages keep GE's
// static plans for everything but the cut nodes.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "ge/sdk/tensor.h"

namespace ge::core {

/// Where a tensor of a staged run comes from.
struct StageSource {
  enum Kind { Input, Prefix, Eager, Suffix } kind = Input;
  size_t index = 0;  ///< into the model's inputs / prefix outputs / eager outputs / suffix outputs
};

/// The three models of a cut (ONNX bytes) and how their tensors connect.
struct StageCut {
  std::string node;                  ///< "node 'NonZero_1' (NonZero)"
  std::string prefix_bytes;          ///< empty when the prefix has no output to compute
  std::vector<size_t> prefix_inputs; ///< model input index of each prefix input
  std::string eager_bytes;           ///< the cut node; constant inputs as initializers
  std::vector<std::string> eager_input_names;
  std::vector<StageSource> eager_inputs;
  /// The suffix without input types (set per shape by suffix_model); empty when no node is left.
  std::string suffix_template;
  std::vector<StageSource> suffix_inputs;
  std::vector<StageSource> outputs;  ///< the model's outputs
};

/// Cuts the ONNX model `bytes` at the node producing `cut_outputs`. `known(name)` gives the
/// value of a tensor the import already knows (constants, folded shape subgraphs) or null;
/// `type_of(name, &dtype, &dims)` the dtype and static shape of a prefix tensor. Throws ge::Error
/// naming the node when it is not a node of the model's graph (a node of an expanded function
/// body, which cannot be cut).
StageCut cut_model(const std::string& bytes, const std::string& what, const std::vector<std::string>& cut_outputs,
                   const std::function<const Tensor*(const std::string&)>& known,
                   const std::function<bool(const std::string&, DataType*, std::vector<int64_t>*)>& type_of);

/// The suffix model with its inputs typed as `inputs` (dtype, rank) and every dim symbolic
/// ("nz[1]": dim 1 of input 'nz'), for a DynamicSpec.
std::string suffix_model(const StageCut& cut, const std::vector<Tensor>& inputs);

/// The eager model with its inputs' element types those of `inputs` (some are known only at run).
std::string eager_model(const StageCut& cut, const std::vector<Tensor>& inputs);

/// "i64[2,3],f32[5]": the dtypes and ranks (dims ignored) that select a suffix model.
std::string rank_signature(const std::vector<Tensor>& ts);

}  // namespace ge::core
