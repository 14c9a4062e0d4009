#include "ge/sdk/op_registry.h"

#include "ge/sdk/error.h"

namespace ge {

namespace {
constexpr std::string_view kPatternNames[] = {"elementwise", "broadcast", "injective", "reduce",
                                              "out_elementwise_fusable", "opaque"};
constexpr std::string_view kFuseFlagNames[] = {"fusable", "no_fuse_input", "no_fuse_output", "never"};
std::string key_of(const std::string& domain, const std::string& op) { return domain + "::" + op; }
}  // namespace

std::string_view op_pattern_name(OpPattern p) { return kPatternNames[static_cast<size_t>(p)]; }
std::string_view fuse_flag_name(FuseFlag f) { return kFuseFlagNames[static_cast<size_t>(f)]; }

OpPattern op_pattern_from_name(std::string_view s) {
  for (size_t i = 0; i < std::size(kPatternNames); ++i)
    if (kPatternNames[i] == s) return static_cast<OpPattern>(i);
  throw Error("unknown op pattern '" + std::string(s) + "'");
}

FuseFlag fuse_flag_from_name(std::string_view s) {
  for (size_t i = 0; i < std::size(kFuseFlagNames); ++i)
    if (kFuseFlagNames[i] == s) return static_cast<FuseFlag>(i);
  throw Error("unknown fuse_flag '" + std::string(s) + "'");
}

const AttrDef* OpDef::find_attr(const std::string& n) const {
  for (auto& a : attrs)
    if (a.name == n) return &a;
  return nullptr;
}

void OpRegistry::add(OpDef def) {
  auto& versions = defs_[key_of(def.domain, def.op_type)];
  auto it = versions.find(def.since_version);
  if (it != versions.end())
    throw Error("op " + def.op_type + " (since version " + std::to_string(def.since_version) + ") registered twice: by '" +
                it->second.source + "' and by '" + def.source + "'");
  if (!def.infer) {
    // Inherit shape inference already attached to another version of the op.
    for (auto& [v, d] : versions)
      if (d.infer) { def.infer = d.infer; break; }
  }
  versions.emplace(def.since_version, std::move(def));
}

void OpRegistry::add_or_replace(OpDef def) {
  auto& versions = defs_[key_of(def.domain, def.op_type)];
  auto it = versions.find(def.since_version);
  if (it == versions.end()) {
    add(std::move(def));
    return;
  }
  if (!def.infer) def.infer = it->second.infer;
  it->second = std::move(def);
}

void OpRegistry::set_infer(const std::string& domain, const std::string& op_type, ShapeInferenceFn fn) {
  auto it = defs_.find(key_of(domain, op_type));
  if (it == defs_.end()) throw Error("shape inference for unknown op " + op_type + " (no definition registered)");
  for (auto& [v, d] : it->second) d.infer = fn;
}

const OpDef* OpRegistry::find(const std::string& domain, const std::string& op_type, int64_t opset) const {
  // Passes look ops up per node and per edge: the key is built in a per-thread buffer rather
  // than a new string per lookup.
  thread_local std::string key;
  key.assign(domain).append("::").append(op_type);
  auto it = defs_.find(key);
  if (it == defs_.end()) return nullptr;
  const OpDef* best = nullptr;
  for (auto& [v, d] : it->second)
    if (v <= opset) best = &d;
  return best;
}

const OpDef* OpRegistry::find_any(const std::string& domain, const std::string& op_type) const {
  auto it = defs_.find(key_of(domain, op_type));
  if (it == defs_.end() || it->second.empty()) return nullptr;
  return &it->second.rbegin()->second;
}

std::vector<const OpDef*> OpRegistry::all() const {
  std::vector<const OpDef*> out;
  for (auto& [k, versions] : defs_)
    for (auto& [v, d] : versions) out.push_back(&d);
  return out;
}

void OpRegistry::set_expander(const std::string& domain, const std::string& op_type, FunctionExpander fx) {
  if (!defs_.count(key_of(domain, op_type)))
    throw Error("function expander for unknown op " + op_type + " (no definition registered)");
  expanders_[key_of(domain, op_type)] = std::move(fx);
}

const FunctionExpander* OpRegistry::expander(const std::string& domain, const std::string& op_type) const {
  auto it = expanders_.find(key_of(domain, op_type));
  return it == expanders_.end() ? nullptr : &it->second;
}

void OpRegistry::remove_source(const std::string& source) {
  for (auto it = expanders_.begin(); it != expanders_.end();) it = it->second.source == source ? expanders_.erase(it) : std::next(it);
  for (auto it = defs_.begin(); it != defs_.end();) {
    auto& versions = it->second;
    for (auto v = versions.begin(); v != versions.end();) v = v->second.source == source ? versions.erase(v) : std::next(v);
    it = versions.empty() ? defs_.erase(it) : std::next(it);
  }
}

void apply_meta_to(OpDef& d, const OpMeta& m) {
  if (d.since_version < m.since_min) return;
  if (m.pattern) d.pattern = *m.pattern;
  if (m.fuse_flag) d.fuse_flag = *m.fuse_flag;
  if (m.numerics) d.numerics = *m.numerics;
  if (m.foldable) d.foldable = *m.foldable;
  if (m.view) d.view = *m.view;
  if (m.inplace_inputs) d.inplace_inputs = *m.inplace_inputs;
  if (m.max_operands) d.max_operands = *m.max_operands;
  if (m.elementwise_instruction) d.elementwise_instruction = *m.elementwise_instruction;
  if (m.cost_class) d.cost_class = *m.cost_class;
}

bool OpDef::may_run_inplace_on(size_t input) const {
  for (int i : inplace_inputs)
    if (i == kInplaceAnyInput || static_cast<size_t>(i) == input) return true;
  return false;
}

void OpRegistry::apply_meta(const OpMeta& m) {
  for (const std::string& op : m.op_types) {
    auto it = defs_.find(key_of(m.domain, op));
    if (it == defs_.end() || it->second.empty())
      throw Error(m.origin + ": metadata for op type '" + op + "'" +
                  (m.domain.empty() ? "" : " (domain " + m.domain + ")") + ", which no loaded registry defines");
    for (auto& [v, d] : it->second) apply_meta_to(d, m);
  }
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const std::string& what) {
  size_t r = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.rank() ? 1 : a[i - (r - a.rank())];
    int64_t db = i < r - b.rank() ? 1 : b[i - (r - b.rank())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else throw InvalidGraphError(what + ": shapes " + a.str() + " and " + b.str() + " do not broadcast");
  }
  return Shape(std::move(out));
}

}  // namespace ge
