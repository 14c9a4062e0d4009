// plugins/ascend_backend/precision_lists.h — the inputs of the precision modes besides the mode
// itself: allow_mix_precision's per-op-type lists (registry data, precision_lists.toml shipped
// with the plugin, adjusted by the user's `ascend.modify_mixlist` file) and the per-node keep list
// (`ascend.keep_dtype`). Semantics follow the vendor's ATC converter (docs/ascend.md):
//
//   white  the op computes in fp16 (CANN: precision_reduce flag = true);
//   black  the op keeps fp32 (flag = false);
//   gray   the op follows its inputs (no flag): fp16 when every non-constant float input is
//          produced in fp16, fp32 otherwise. Op types in no list are gray.
//
// Op types are written bare for the ONNX domain ("Conv") and "domain.Op" otherwise
// ("ge.FusedConv"). Every error (ge::ConfigError) names the file, the key and the op or node.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"

namespace ge::ascend {

enum class MixClass { White, Black, Gray };
std::string mix_class_name(MixClass c);  ///< "white", "black", "gray"

/// "Conv" for the ONNX domain, "ge.FusedConv" otherwise.
std::string op_key(const Node& n);

struct MixLists {
  std::map<std::string, MixClass> ops;  ///< op key → white or black (gray ops are absent)
  std::string origin;                   ///< files read, for messages
  MixClass of(const Node& n) const;
};

/// Reads the shipped lists: a TOML file with string arrays `white`, `black` and `gray` (gray is
/// documentation: unlisted ops are gray too). Refused: a TOML syntax error (with its line), an
/// unknown key, a non-string entry, an op type `ops` does not define, an op in two lists.
MixLists load_mix_lists(const std::string& path, const OpRegistry& ops);

/// Applies a user's modify_mixlist file in the vendor's format — JSON (comments allowed) or TOML
/// with the same keys:
///   { "black-list": { "to-add": [...], "to-remove": [...] },
///     "white-list": { "to-add": [...], "to-remove": [...] } }
/// to-remove moves an op of that list to gray (it must be in that list: refused otherwise);
/// to-add moves a white / gray (black / gray) op to the list. Removals apply first, so
/// {black-list to-add A, white-list to-remove A} moves a white A to black, as the vendor's
/// example does. An op in both to-add lists, an unknown key or op type is refused.
void modify_mix_lists(MixLists& lists, const std::string& path, const OpRegistry& ops);

/// `ascend.keep_dtype`: nodes kept in their original dtype (CANN --keep_dtype). Entries are node
/// names or "OpType::NAME" (every node of that op type, key as op_key()).
struct KeepDtype {
  std::set<std::string> nodes;
  std::set<std::string> op_types;
  std::string origin;  ///< the file it was read from ("" for the manifest's array), for messages
  bool keeps(const Node& n) const { return nodes.count(n.name()) || op_types.count(op_key(n)); }
  bool empty() const { return nodes.empty() && op_types.empty(); }
};

/// Parses entries (from the manifest array, or the lines of a file: one entry per line, blank
/// lines and lines starting with '#' skipped, surrounding spaces trimmed).
KeepDtype parse_keep_dtype(const std::vector<std::string>& entries, const std::string& origin);
/// Reads a keep_dtype file (the vendor's format above); an unreadable file is refused.
KeepDtype load_keep_dtype_file(const std::string& path);
/// Refuses names no node of `g` carries (after fusion: a fused-away node's name is gone — the
/// message says so) and op types `ops` does not define.
void check_keep_dtype(const KeepDtype& k, const Graph& g, const OpRegistry& ops);

}  // namespace ge::ascend
