// ge/sdk/precision_lists.h — the inputs of the backends' mixed-precision modes besides the mode
// itself: the per-op-type lists (registry data shipped inside the SDK, sdk/data/precision_lists.toml,
// adjusted by a user's `<section>.modify_mixlist` file) and the per-node keep list
// (`<section>.keep_dtype`). The Ascend backend (allow_mix_precision: fp16) and the cpu backend
// (allow_mix_precision_bf16: bf16) read the same data through these functions. Semantics follow
// the vendor's ATC converter (docs/ascend.md, docs/cpu.md):
//
//   white  the op computes in the reduced type (CANN: precision_reduce flag = true);
//   black  the op keeps fp32 (flag = false);
//   gray   the op follows its inputs (no flag). Op types in no list are gray.
//
// Op types are written bare for the ONNX domain ("Conv") and "domain.Op" otherwise
// ("ge.FusedConv"). `section` ("ascend", "cpu") is the manifest section of the options in
// messages. Every error (ge::ConfigError) names the file, the key and the op or node.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ge/sdk/ir.h"
#include "ge/sdk/op_registry.h"

namespace ge {

enum class MixClass { White, Black, Gray };
std::string mix_class_name(MixClass c);  ///< "white", "black", "gray"

/// "Conv" for the ONNX domain, "ge.FusedConv" otherwise.
std::string op_key(const Node& n);

struct MixLists {
  std::map<std::string, MixClass> ops;  ///< op key → white or black (gray ops are absent)
  std::string origin;                   ///< files read, for messages
  MixClass of(const Node& n) const;
};

/// The shipped lists (sdk/data/precision_lists.toml, compiled into libge_sdk), checked against
/// `ops` like load_mix_lists. origin: "ge_sdk:precision_lists.toml".
MixLists shipped_mix_lists(const OpRegistry& ops, const std::string& section);

/// Reads lists from a TOML file with string arrays `white`, `black` and `gray` (gray is
/// documentation: unlisted ops are gray too). Refused: a TOML syntax error (with its line), an
/// unknown key, a non-string entry, an op type `ops` does not define, an op in two lists.
MixLists load_mix_lists(const std::string& path, const OpRegistry& ops, const std::string& section);
/// The same from text; `origin` names it in messages.
MixLists parse_mix_lists(const std::string& text, const std::string& origin, const OpRegistry& ops,
                         const std::string& section);

/// Applies a user's modify_mixlist file in the vendor's format — JSON (comments allowed) or TOML
/// with the same keys:
///   { "black-list": { "to-add": [...], "to-remove": [...] },
///     "white-list": { "to-add": [...], "to-remove": [...] } }
/// to-remove moves an op of that list to gray (it must be in that list: refused otherwise);
/// to-add moves a white / gray (black / gray) op to the list. Removals apply first, so
/// {black-list to-add A, white-list to-remove A} moves a white A to black, as the vendor's
/// example does. An op in both to-add lists, an unknown key or op type is refused.
void modify_mix_lists(MixLists& lists, const std::string& path, const OpRegistry& ops, const std::string& section);

/// `<section>.keep_dtype`: nodes kept in their original dtype (CANN --keep_dtype). Entries are node
/// names or "OpType::NAME" (every node of that op type, key as op_key()).
struct KeepDtype {
  std::set<std::string> nodes;
  std::set<std::string> op_types;
  std::string origin;   ///< the file it was read from ("" for the manifest's array), for messages
  std::string section;  ///< "ascend", "cpu"
  bool keeps(const Node& n) const { return nodes.count(n.name()) || op_types.count(op_key(n)); }
  bool empty() const { return nodes.empty() && op_types.empty(); }
};

/// Parses entries (from the manifest array, or the lines of a file: one entry per line, blank
/// lines and lines starting with '#' skipped, surrounding spaces trimmed).
KeepDtype parse_keep_dtype(const std::vector<std::string>& entries, const std::string& origin, const std::string& section);
/// Reads a keep_dtype file (the vendor's format above); an unreadable file is refused.
KeepDtype load_keep_dtype_file(const std::string& path, const std::string& section);
/// `SECTION.keep_dtype` as a pass reads it: an array of entries (parse_keep_dtype), or a string
/// naming a file (load_keep_dtype_file); unset: empty. `text` is the option's TOML text
/// (PassContext::option). Throws ge::ConfigError naming the key for any other value.
KeepDtype keep_dtype_option(const std::optional<std::string>& text, const std::string& section);
/// Refuses names no node of `g` carries (after fusion: a fused-away node's name is gone — the
/// message says so and names `pass`, whose --print-after shows the names) and op types `ops`
/// does not define.
void check_keep_dtype(const KeepDtype& k, const Graph& g, const OpRegistry& ops, const std::string& pass);

}  // namespace ge
