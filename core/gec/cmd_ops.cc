// gec ops: every op type and version the loaded registries define, with GE's metadata and what
// runs it on each backend — a kernel, or the expansion of its ONNX function body (registry/README.md).
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common.h"
#include "ge/sdk/error.h"

namespace gec {

namespace {

struct OpRow {
  std::string domain, op_type;
  std::vector<int> versions;
  const ge::OpDef* newest = nullptr;
  std::map<std::string, std::string> runs;  // backend → "kernel" | "function" | ""
};

std::string how_run(const ge::core::Environment& env, const std::string& backend, const OpRow& r) {
  if (env.kernels.find(backend, r.domain, r.op_type)) return "kernel";
  if (const ge::FunctionExpander* fx = env.ops.expander(r.domain, r.op_type))
    for (int v : r.versions)
      if (fx->has_body(v)) return "function";
  return "";
}

std::string versions_text(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

}  // namespace

int cmd_ops(const CommonOptions& common, const std::string& format) {
  auto env = common.load_environment();
  std::vector<std::string> backends;
  if (!common.backend.empty()) {
    env->backend(common.backend);  // refuses an unknown backend, listing the known ones
    backends.push_back(common.backend);
  } else {
    for (auto& [name, b] : env->backends) backends.push_back(name);
  }
  std::map<std::pair<std::string, std::string>, OpRow> rows;
  for (const ge::OpDef* d : env->ops.all()) {
    OpRow& r = rows[{d->domain, d->op_type}];
    r.domain = d->domain;
    r.op_type = d->op_type;
    r.versions.push_back(d->since_version);
    if (!r.newest || d->since_version > r.newest->since_version) r.newest = d;
  }
  for (auto& [k, r] : rows) {
    std::sort(r.versions.begin(), r.versions.end());
    for (const std::string& b : backends) r.runs[b] = how_run(*env, b, r);
  }
  size_t onnx_types = 0, run_somewhere = 0;
  for (auto& [k, r] : rows) {
    onnx_types += r.domain.empty();
    bool any = false;
    for (auto& [b, how] : r.runs) any |= !how.empty();
    run_somewhere += any;
  }

  if (format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (auto& [k, r] : rows) {
      nlohmann::json runs = nlohmann::json::object();
      for (auto& [b, how] : r.runs) runs[b] = how.empty() ? nlohmann::json(nullptr) : nlohmann::json(how);
      j.push_back({{"domain", r.domain.empty() ? "ai.onnx" : r.domain},
                   {"op_type", r.op_type},
                   {"versions", r.versions},
                   {"pattern", ge::op_pattern_name(r.newest->pattern)},
                   {"fuse_flag", ge::fuse_flag_name(r.newest->fuse_flag)},
                   {"numerics", r.newest->numerics},
                   {"foldable", r.newest->foldable},
                   {"aliases", nlohmann::json::array()},
                   {"backends", runs},
                   {"source", r.newest->source}});
    }
    std::printf("%s\n", j.dump(1).c_str());
    return 0;
  }
  const bool md = format == "md";
  if (md) {
    std::printf("| domain | op | versions | pattern | fuse_flag |");
    for (auto& b : backends) std::printf(" %s |", b.c_str());
    std::printf("\n|---|---|---|---|---|");
    for (size_t i = 0; i < backends.size(); ++i) std::printf("---|");
    std::printf("\n");
  } else {
    std::printf("%-10s %-34s %-24s %-24s %-14s", "domain", "op", "versions", "pattern", "fuse_flag");
    for (auto& b : backends) std::printf(" %-9s", b.c_str());
    std::printf("\n");
  }
  for (auto& [k, r] : rows) {
    const std::string dom = r.domain.empty() ? "ai.onnx" : r.domain;
    const std::string pat(ge::op_pattern_name(r.newest->pattern)), ff(ge::fuse_flag_name(r.newest->fuse_flag));
    if (md) {
      std::printf("| %s | %s | %s | %s | %s |", dom.c_str(), r.op_type.c_str(), versions_text(r.versions).c_str(), pat.c_str(),
                  ff.c_str());
      for (auto& b : backends) std::printf(" %s |", r.runs[b].empty() ? "—" : r.runs[b].c_str());
    } else {
      std::printf("%-10s %-34s %-24s %-24s %-14s", dom.c_str(), r.op_type.c_str(), versions_text(r.versions).c_str(),
                  pat.c_str(), ff.c_str());
      for (auto& b : backends) std::printf(" %-9s", r.runs[b].empty() ? "-" : r.runs[b].c_str());
    }
    std::printf("\n");
  }
  std::printf("%s%zu op types (%zu ai.onnx), %zu run on %s\n", md ? "\n" : "\n", rows.size(), onnx_types, run_somewhere,
              backends.size() == 1 ? backends[0].c_str() : "some loaded backend");
  return 0;
}

}  // namespace gec
