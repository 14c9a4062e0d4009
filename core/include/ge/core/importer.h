// ge/core/importer.h — model file → verified graph with every tensor's dtype and static shape.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/sdk/error.h"
#include "ge/sdk/frontend.h"
#include "ge/sdk/ir.h"

namespace ge::core {

struct ImportOptions {
  FrontendOptions frontend;
  /// Backend whose kernels evaluate constant subgraphs at compile time (runs on the host).
  std::string host_backend = "cpu";
  /// Backend the graph is compiled for: an op it has no kernel for is replaced by its function
  /// body when the registry has one (FunctionExpander), else refused naming the op and node.
  /// Empty: no kernel check (graphs only inspected, never run).
  std::string backend = "cpu";
  /// Largest tensor (elements) evaluated at import to make shapes known (shape subgraphs).
  int64_t fold_limit_elements = 1 << 16;
};

/// Reads a model with the frontend that accepts it, then propagate_shapes and the verifier.
std::unique_ptr<Graph> import_model(const Environment& env, const std::string& path, const ImportOptions& opts);

/// A node's output shape depends on values known only at run time (NonZero of a graph input, a
/// Reshape whose target is computed from one) and the model declares none: no static plan
/// exists for the whole graph. The dynamic-plan machinery (ge/core/dynamic.h) then runs the model
/// in stages cut at `node` (docs/plan.md, "Data-dependent shapes").
class DataDependentShapeError : public UnknownValueError {
 public:
  DataDependentShapeError(const std::string& msg, std::string node_name, std::vector<std::string> outputs)
      : UnknownValueError(msg), node(std::move(node_name)), outputs(std::move(outputs)) {}
  std::string node;                  ///< the node's name
  std::vector<std::string> outputs;  ///< its output value names
};

/// What propagate_shapes did besides inferring shapes.
struct ImportResult {
  /// "Op-version" of each op replaced by its function body, in expansion order (nested ones too).
  std::vector<std::string> expanded_functions;
};

/// Checks every node against its registry definition (op known at the graph's opset, input and
/// output counts, dtypes allowed, attribute names and types) and runs shape inference in
/// topological order, evaluating nodes whose inputs are all known (up to the fold limit) with
/// the host backend's kernels so that Shape→Gather→Unsqueeze→Concat→Reshape chains give static
/// shapes; a node whose shape inference needs run-time values (NonZero, Unique, ...) is
/// evaluated by a kernel that allocates its outputs (KernelDef::allocates_outputs) when its
/// inputs are known, else takes the model's declared output shapes, else throws
/// DataDependentShapeError. Throws ge::UnsupportedError / ge::InvalidGraphError naming the node.
/// Ops without a kernel on opts.backend are expanded into their function bodies first.
ImportResult propagate_shapes(Graph& g, const Environment& env, const ImportOptions& opts);

}  // namespace ge::core
