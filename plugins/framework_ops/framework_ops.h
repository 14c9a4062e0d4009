// plugins/framework_ops/framework_ops.h — framework-style op types mapped onto ONNX ops at import.
//
// Each op type of ops/framework.toml is defined in the ai.onnx domain ("") so that a graph built
// the way a framework writes it (the article's `Conv2d`, CANN's `Conv2D`, PyTorch's
// `BatchNorm2d`) type-checks against its attribute names; no backend has a kernel for it, so the
// importer replaces every such node by its FunctionExpander's body (ge/sdk/op_registry.h) — the
// ONNX ops it means — before inferring shapes. A layer-style op (Conv2d, Linear, BatchNorm) whose
// graph gives no parameters creates them as the PyTorch layer does (params.cc) and logs each one
// at info level.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"

namespace ge::framework_ops {

struct OpFile {
  std::string origin, text;
};
/// ops/*.toml of this plugin, embedded at build time.
std::span<const OpFile> embedded_op_files();

/// One family of aliases: the op types it covers and how one of its nodes becomes ONNX ops
/// (FunctionExpander::expand's contract: removes `n`, returns the new nodes in topological order).
struct Family {
  std::vector<std::string> op_types;
  std::vector<Node*> (*expand)(Node& n, int64_t opset);
};
std::span<const Family> families();

// ---- helpers shared by the families (mapping_util.cc)

/// `v` (1 or `rank` entries) as `rank` entries; throws InvalidGraphError naming node and attribute.
std::vector<int64_t> per_axis(const Node& n, const std::string& attr, std::vector<int64_t> v, size_t rank);
/// Channel axis of a node's data input: attribute data_format "NCHW" → 1, "NHWC" → last; absent →
/// the tensor's declared format (NHWC → last, else 1). Throws for another value.
bool is_nhwc(const Node& n);
/// A float32 constant named after `node` ("conv1.weight") holding `values`.
Value* add_param(Graph& g, const Node& n, const std::string& what, Shape shape, std::vector<float> values,
                 const std::string& init);
/// An int64 constant (shapes, axes) with a fresh name starting with `hint`.
Value* add_ints(Graph& g, const std::string& hint, std::vector<int64_t> values);
/// A float32 scalar constant with a fresh name starting with `hint`.
Value* add_scalar(Graph& g, const std::string& hint, float value);
/// Transpose of `x` by `perm` into a new value; appends the node to `made`.
Value* transpose(Graph& g, const std::string& name, Value* x, std::vector<int64_t> perm, std::vector<Node*>& made);
/// Adds a node with a unique name starting with `name`.
Node* add(Graph& g, const std::string& op, const std::string& name, std::vector<Value*> ins, std::vector<Value*> outs,
          Attributes attrs = {});

// ---- parameter initialisation (params.cc), PyTorch's reset_parameters()

/// U(-bound, bound) with bound = 1/sqrt(fan_in): what torch.nn.Conv2d and torch.nn.Linear give
/// their weight (kaiming_uniform_ with a = sqrt(5)) and bias (torch/nn/modules/conv.py,
/// linear.py). Seeded from `key` (FNV-1a of the node name and the parameter), so a graph built
/// twice gets the same numbers; elements are mt19937 draws (exactly specified by C++) mapped to
/// [0, 1) with 24 bits.
std::vector<float> uniform_fan_in(const std::string& key, int64_t count, int64_t fan_in);

}  // namespace ge::framework_ops
