// tests/cpu_backend/pass_harness.h — compiles a text-IR graph for the cpu backend through the
// manifest's plugins, all passes or a selection (CompileOptions::only), with manifest overrides,
// for the tests of the cpu backend's passes (cpu_precision, cpu_conv_winograd).
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"

namespace ge::cpu {

inline std::unique_ptr<core::Environment> env_with(const std::vector<std::string>& overrides) {
  core::Manifest m = core::load_manifest(core::default_manifest_path());
  for (const std::string& o : overrides) core::apply_override(m, o);
  return core::load_environment(m);
}

struct Compiled {
  std::shared_ptr<Graph> g;
  std::map<std::string, int64_t> counters;
  std::unique_ptr<core::Environment> env;
  int64_t c(const std::string& k) const { return counters.count(k) ? counters.at(k) : 0; }
};

/// Parses `text` and compiles it for cpu (only `only` when given, else the whole O2 pipeline).
/// `prep` may fill constants before compiling.
inline Compiled compile(const std::string& text, const std::vector<std::string>& overrides, bool strict = false,
                        std::optional<std::vector<std::string>> only = std::vector<std::string>{"cpu_precision"},
                        const std::function<void(Graph&)>& prep = nullptr) {
  Compiled r;
  r.env = env_with(overrides);
  r.g = parse_graph(text, "test");
  if (prep) prep(*r.g);
  core::ImportOptions io;
  core::propagate_shapes(*r.g, *r.env, io);
  core::CompileOptions o = core::CompileOptions::from_manifest(r.env->manifest);
  o.backend = "cpu";
  o.strict_numerics = strict;
  o.fail_on_pass_error = true;
  o.only = only;
  r.counters = core::compile_graph(*r.g, *r.env, o).counters;
  return r;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace ge::cpu
