// ge/sdk/pattern.h — declarative tree patterns over producers, and the legality checks every
// fusion rule shares.
//
//   using P = ge::Pattern;
//   // x * Sigmoid(x) — the same capture name twice means the same value.
//   P swish = P::op("Mul", {P::op("Sigmoid", {P::any("x")}).as("sig"), P::any("x")}).as("mul").commutative();
//   ge::Match m;
//   if (ge::match_pattern(swish, *node, m)) { Node* sig = m.node("sig"); Value* x = m.value("x"); ... }
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"

namespace ge {

/// What a successful match bound: nodes by capture name (Pattern::as) and values by capture name
/// (Pattern::any / Pattern::constant, and the first output of every captured node).
struct Match {
  std::map<std::string, Node*> nodes;
  std::map<std::string, Value*> values;
  /// The node / value bound to `name`; throws ge::Error when unbound (a rule bug).
  Node* node(const std::string& name) const;
  Value* value(const std::string& name) const;
  bool has_node(const std::string& name) const { return nodes.count(name) != 0; }
};

class Pattern {
 public:
  /// A node whose op type is `op_type` (alternatives separated by '|', e.g. "Relu|Clip") and whose
  /// inputs match `inputs` in order (fewer patterns than inputs: the rest are unconstrained).
  /// A bare op type means the default (ONNX) domain; "ge.FusedConv" names domain "ge".
  static Pattern op(const std::string& op_type, std::vector<Pattern> inputs = {});
  /// Any value. A non-empty capture binds it; a repeated name must bind the same value.
  static Pattern any(const std::string& capture = "");
  /// A value with compile-time data (initializer or folded).
  static Pattern constant(const std::string& capture = "");

  /// Captures the node (and its matched output value) under `name`.
  Pattern& as(const std::string& name);
  /// For a two-input op: the inputs may match in either order.
  Pattern& commutative();
  /// Extra condition on the node (attributes, shapes, dtypes).
  Pattern& where(std::function<bool(const Node&)> pred);
  /// For a value produced by this node: it must be output `i` (default 0).
  Pattern& output(int i);

  // Internals, read by match_pattern.
  enum class Kind { Op, Any, Constant };
  Kind kind = Kind::Any;
  std::vector<std::string> op_types;
  std::vector<Pattern> inputs;
  std::string capture;
  bool is_commutative = false;
  int output_index = 0;
  std::vector<std::function<bool(const Node&)>> preds;
};

/// Matches `p` (which must be an op pattern) rooted at `root`. On success fills `m` and returns
/// true; on failure `m` is left unspecified.
bool match_pattern(const Pattern& p, Node& root, Match& m);

/// Legality shared by fusion rules:
/// every captured node other than `root` has all its output uses inside the match and no graph
/// output among its outputs — so the rewrite can remove it without recomputation.
bool interior_is_private(const Match& m, const std::string& root);
/// The registry's fuse_flag allows absorbing every captured node into `root`'s fused kernel:
/// absorbed producers of root must not be `never` or `no_fuse_output`, root must not be `never`
/// or `no_fuse_input` when it absorbs producers, absorbed consumers must not be `never` or
/// `no_fuse_input` and root not `no_fuse_output`. Unregistered ops are treated as `never`.
bool fuse_flags_allow(const Match& m, const std::string& root, const OpRegistry& reg, const Graph& g);

}  // namespace ge
