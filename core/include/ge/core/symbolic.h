// ge/core/symbolic.h — a model's graph with its symbolic dims kept (ge/sdk/dim_expr.h).
//
// An ONNX model with dim_params (`batch`, `sequence`) is imported into a graph whose values carry
// symbolic shapes (Value::symbolic_dims): `f32[batch,sequence,64]`, `f32[N,16,(H+1)/2,(W+1)/2]`,
// `i64[batch*sequence]`. Shape subgraphs stay symbolic: the value of a small integer tensor
// computed from dims (Shape → Gather → Unsqueeze → Concat) is tracked element by element as
// expressions, so the Reshape it feeds gets `[batch,sequence,4,16]`, not a constant of one
// shape; what does not depend on a symbol is folded as in a static import.
//
// How a node's output dims are inferred (the approach of onnxruntime's
// python/tools/symbolic_shape_infer.py, without sympy):
//   - the value of shape-computing ops (Shape, Size, Gather, Slice, Concat, Unsqueeze, Squeeze,
//     Reshape, Identity, Cast, Add, Sub, Mul, Div, Mod, Neg, Max, Min, Equal, Where) by rules on
//     expressions;
//   - the spatial dims of Conv, ConvInteger, MaxPool, AveragePool, LpPool and Resize with scales
//     by their ONNX formulas (floor/ceil divisions);
//   - every other dim by the op's own registry shape inference, run at five bindings of the
//     symbols to values in [7, 97) (probes) and matched against candidate expressions — an input dim, an element of a
//     tracked shape value, a product of consecutive input dims, the sum of one axis over the
//     inputs — each up to an integer affine map `a*c + b`. The rules above are checked against the
//     probes the same way. Every expression is then checked at four more bindings (all symbols 1,
//     all 2, multiples of 64, values past 200) and, for each floor division by k in it, at every
//     residue modulo k, since a fit can hold in the probes' range only (a Slice clamped at 100,
//     (S-1)/3 for S/3 when no probe is a multiple of 3). A dim that no candidate explains, or whose expression fails that check
//     (the output of NonZero, a Reshape whose target is data), gets a fresh symbol named after the
//     value and axis, listed in SymbolicImport::fresh.
// A node whose inference fails at a probe binding is probed again at multiples of 32 from 96 on,
// then of 256 from 4096 on (models whose dims must divide by their total stride, or exceed a
// window), and that assumption is reported
// (SymbolicImport::constraints); when it fails there too (`batch` broadcast against `sequence`, a
// Reshape to a constant that holds for batch 1 only) the node is refused naming the binding.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/core/dynamic.h"
#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/sdk/ir.h"

namespace ge::core {

struct SymbolicImport {
  std::unique_ptr<Graph> graph;
  /// symbol → the ONNX dim_param it stands for (the same unless that is no identifier: `seq len`
  /// becomes `seq_len`; an unnamed unknown dim of input x, axis 1, becomes `x_1`).
  std::map<std::string, std::string> symbols;
  /// Fresh symbols, each "symbol: value 'v' axis k (node 'n')".
  std::vector<std::string> fresh;
  /// Nodes whose inference holds only for some values of the symbols: inferred at multiples of
  /// 32 or 256 (a UNet's skip Concat needs H divisible by its total stride), or failing or of
  /// another rank at one of the check bindings (1, 2, multiples of 64, values past 200: a
  /// position table of 128 rows, a Squeeze of a dim that may be 1), each naming the node, the
  /// symbols and the failure.
  std::vector<std::string> constraints;
};

/// Reads an ONNX model keeping its symbolic input dims and infers symbolic shapes through the
/// graph (above). `opts.frontend.input_shapes` may fix some inputs (they become static);
/// `opts.backend` is ignored (no function bodies are expanded: the graph is the model's).
/// Throws ge::Error naming the file or the node.
SymbolicImport import_symbolic(const Environment& env, const std::string& path, const ImportOptions& opts);
/// The same from the model's bytes (`what` names it in messages; external data resolves in
/// `base_dir`).
SymbolicImport import_symbolic_bytes(const Environment& env, std::string bytes, const std::string& what,
                                     const std::string& base_dir, const ImportOptions& opts);

/// What infer_symbolic found besides the dims: as SymbolicImport::fresh and ::constraints.
struct SymbolicNotes {
  std::vector<std::string> fresh, constraints;
};
/// Infers the symbolic dims of a graph whose inputs carry them (a text IR, say) the same way,
/// folding what depends on no symbol.
SymbolicNotes infer_symbolic(Graph& g, const Environment& env);

/// Symbolic consistency of a graph with symbolic dims (an import, or a text IR): every node's
/// outputs are inferred again from its recorded inputs and compared with their recorded dtype
/// and dims; a node whose inference fails at some binding is reported. Returns the problems (empty
/// = consistent), each naming the node and both shapes. The graph ends as it began.
std::vector<std::string> verify_symbolic(Graph& g, const Environment& env);

/// Where a static graph (the same model imported at `binding`) disagrees with the symbolic one
/// evaluated at `binding`: for every value of both graphs (by name) with symbolic dims, its
/// static dims must equal the expressions' values. Returns the disagreements, each naming the
/// value, both shapes and the binding. Fresh symbols are skipped.
std::vector<std::string> compare_with_static(const Graph& symbolic, const Graph& stat, const Binding& binding);

}  // namespace ge::core
