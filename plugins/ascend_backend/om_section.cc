// plugins/ascend_backend/om_section.cc — the "ascend.om" plan section: written when a plan for
// backend "ascend" is saved, checked against the loaded graph and the requested SoC at load,
// described for `gec inspect --format sections` (offline_model.h, docs/ascend.md).
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "ge/sdk/error.h"
#include "ge/sdk/plugin.h"
#include "offline_model.h"
#include "platform.h"
#include "tiling.h"

namespace ge::ascend {

namespace {

/// `[ascend] soc_version` of the saving / loading environment (TOML text of a string), or
/// nullopt when the manifest leaves it unset (ascend.toml does; gec --soc-version sets it).
std::optional<std::string> requested_soc(const PlanSectionContext& ctx, const std::string& platforms) {
  std::optional<std::string> t = ctx.option("ascend", "soc_version");
  if (!t) return std::nullopt;
  std::string soc = std::get<std::string>(parse_option_as(OptionType::String, "ascend.soc_version", *t));
  if (soc.empty()) refuse_empty_soc_version(platforms);
  return soc;
}

std::string write_om(const PlanSectionContext& ctx, const std::string& platforms) {
  return to_json(build_offline_model(ctx, requested_soc(ctx, platforms).value_or(kDefaultSoc)));
}

void validate_om(const PlanSectionContext& ctx, const std::string& bytes, const std::string& platforms) {
  OfflineModel stored = offline_model_from_json(bytes);
  // The emulated device is the SoC the .om was compiled for, unless the environment asks for one
  // (--soc-version): an .om built for another SoC than the one asked for is not run on it
  // (tilings and block_dims were chosen for that SoC's cores and buffers).
  const std::optional<std::string> asked = requested_soc(ctx, platforms);
  if (asked && stored.soc_version != *asked)
    throw Error("offline model compiled for soc_version '" + stored.soc_version + "', but this environment runs '" +
                *asked + "' (ascend.soc_version; run it with --soc-version " + stored.soc_version +
                ", or without --soc-version, or recompile it)");
  // Every node's tiling was chosen for the SoC the offline model names (the kernels check their
  // tiling against the platform of the node's attribute, so the two must agree).
  for (const Node* n : ctx.graph().nodes()) {
    const std::string soc = n->attrs.get_string(kAttrSoc, "");
    if (!soc.empty() && soc != stored.soc_version)
      throw Error("offline model compiled for soc_version '" + stored.soc_version + "', but node '" + n->name() +
                  "' was tiled for '" + soc + "' (" + kAttrSoc + ")");
  }
  check_same(stored, build_offline_model(ctx, stored.soc_version));
}

std::string mib(uint64_t b) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2f MiB", static_cast<double>(b) / (1024.0 * 1024.0));
  return s;
}

}  // namespace

std::string describe(const OfflineModel& m, bool detail) {
  std::map<std::string, int> by_engine;
  int records = 0, waits = 0;
  for (const Task& t : m.tasks) {
    if (t.kind == Task::Kind::Kernel) ++by_engine[t.engine];
    records += t.kind == Task::Kind::EventRecord;
    waits += t.kind == Task::Kind::EventWait;
  }
  std::string s = "  soc_version " + m.soc_version + ", feature map " + std::to_string(m.feature_map_bytes) + " bytes (" +
                  mib(m.feature_map_bytes) + "), weights " + std::to_string(m.weights_bytes) + " bytes (" +
                  mib(m.weights_bytes) + ") in " + std::to_string(m.weights.size()) + " constants\n";
  int kernels = 0;
  std::string engines;
  for (auto& [e, n] : by_engine) {
    kernels += n;
    engines += (engines.empty() ? "" : ", ") + e + " " + std::to_string(n);
  }
  s += "  tasks " + std::to_string(m.tasks.size()) + ": kernel " + std::to_string(kernels) + " (" + engines +
       "), event_record " + std::to_string(records) + ", event_wait " + std::to_string(waits) + "; streams " +
       std::to_string(m.streams) + ", events " + std::to_string(m.events.size()) + "\n";
  if (!detail) return s;
  s += "  weights (offset in the weights section, bytes, device format):\n";
  for (const OmWeight& w : m.weights) {
    std::string dims;
    for (int64_t d : w.dims) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    s += "    " + w.name + " " + w.dtype + "[" + dims + "] " + w.format + " @" + std::to_string(w.offset) + " " +
         std::to_string(w.size) + "\n";
  }
  s += "  tasks (stream, kind; kernels: node, op, engine, block_dim, tiling, operands as value@arena_offset:bytes, "
       "constants @w, graph inputs and outputs @io):\n";
  std::set<std::string> constants;
  for (const OmWeight& w : m.weights) constants.insert(w.name);
  // Operands outside the arena: constants (@w, the weights region) and graph inputs and outputs
  // (@io, bound to the caller's buffers).
  auto ops = [&](const std::vector<TaskOperand>& v) {
    std::string r;
    for (const TaskOperand& o : v)
      r += (r.empty() ? "" : " ") + o.value + "@" +
           (o.arena_offset >= 0 ? std::to_string(o.arena_offset) : constants.count(o.value) ? "w" : "io") + ":" +
           std::to_string(o.bytes);
    return r;
  };
  for (size_t i = 0; i < m.tasks.size(); ++i) {
    const Task& t = m.tasks[i];
    s += "    " + std::to_string(i) + " s" + std::to_string(t.stream) + " " + task_kind_name(t.kind);
    if (t.kind == Task::Kind::Kernel) {
      std::string tiling;
      for (int64_t x : t.tiling) tiling += (tiling.empty() ? "" : ",") + std::to_string(x);
      s += " " + t.node + " " + t.op_type + " " + t.engine + " block_dim " + std::to_string(t.block_dim) + " tiling [" +
           tiling + "] in: " + ops(t.inputs) + " out: " + ops(t.outputs) + "\n";
    } else {
      const bool known = t.event >= 0 && static_cast<size_t>(t.event) < m.events.size();
      s += " e" + std::to_string(t.event) +
           (known ? " (" + m.events[t.event].record_after + " -> " + m.events[t.event].wait_before + ")" : "") + "\n";
    }
  }
  return s;
}

void register_offline_model(Registrar& r) {
  PlanSectionDef d;
  d.name = kOmSectionName;
  d.backend = "ascend";
  const std::string platforms = r.plugin_dir() + "/ascend/platforms";
  d.write = [platforms](const PlanSectionContext& ctx) { return write_om(ctx, platforms); };
  d.validate = [platforms](const PlanSectionContext& ctx, const std::string& bytes) { validate_om(ctx, bytes, platforms); };
  d.describe = [](const std::string& bytes, bool detail) { return describe(offline_model_from_json(bytes), detail); };
  r.add_plan_section(std::move(d));
}

}  // namespace ge::ascend
