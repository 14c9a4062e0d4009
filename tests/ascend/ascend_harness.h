// tests/ascend/ascend_harness.h — compiles a text-IR graph (or an ONNX model) for the CPU backend
// and for the ascend emulator (lib/ge/plugins/ascend.toml, a precision mode) and runs both.
#pragma once
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"

namespace ge::ascend::test {

/// The ascend manifest with `mode` and further `SECTION.KEY=VALUE` overrides (TOML values).
inline std::unique_ptr<core::Environment> ascend_env(const std::string& mode, const std::vector<std::string>& overrides = {}) {
  core::Manifest m = core::load_manifest(GE_ASCEND_MANIFEST);
  core::apply_override(m, "ascend.precision_mode=\"" + mode + "\"");
  for (const std::string& o : overrides) core::apply_override(m, o);
  return core::load_environment(m);
}
inline std::unique_ptr<core::Environment> cpu_env() {
  return core::load_environment(core::load_manifest(core::default_manifest_path()));
}

inline double rel_l2(const Tensor& a, const Tensor& b) {
  auto x = a.to_double_vector(), y = b.to_double_vector();
  EXPECT_EQ(x.size(), y.size());
  double d = 0, n = 0;
  for (size_t k = 0; k < x.size() && k < y.size(); ++k) d += (x[k] - y[k]) * (x[k] - y[k]), n += y[k] * y[k];
  return std::sqrt(d / std::max(n, 1e-30));
}

struct Run {
  std::vector<Tensor> outputs;
  std::map<std::string, int64_t> counters;
  std::shared_ptr<const Graph> graph;
  double run_ms = 0;
};

/// Compiles `g` (consumed) at O2 for `backend` in `env` and runs it once on `inputs`.
inline Run compile_and_run(std::unique_ptr<Graph> g, core::Environment& env, const std::string& backend,
                           const std::vector<Tensor>& inputs, bool strict = false) {
  // The manifest's options ([fusion] disable, [ascend] precision_mode, ...), then the test's.
  core::CompileOptions o = core::CompileOptions::from_manifest(env.manifest);
  o.opt_level = OptLevel::O2;
  o.backend = backend;
  o.strict_numerics = strict;
  o.fail_on_pass_error = true;
  Run r;
  r.counters = core::compile_graph(*g, env, o).counters;
  r.graph = std::shared_ptr<const Graph>(std::move(g));
  core::Executable exe(r.graph, env, {backend, 1});
  const auto t0 = std::chrono::steady_clock::now();
  r.outputs = exe.run(inputs);
  r.run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

/// Parses text IR, fills every float constant with seeded values in [-1, 1).
inline std::unique_ptr<Graph> parse(core::Environment& env, const std::string& text, uint32_t seed = 3) {
  std::unique_ptr<Graph> g = parse_graph(text, "test");
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (Value* v : g->values())
    if (v->is_constant() && v->dtype == DataType::Float32 && v->data->numel() > 1)
      for (int64_t i = 0; i < v->data->numel(); ++i) const_cast<float*>(v->data->data_as<float>())[i] = u(rng);
  core::ImportOptions io;
  core::propagate_shapes(*g, env, io);
  return g;
}

inline std::vector<Tensor> random_inputs(const Graph& g, uint32_t seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<Tensor> out;
  for (const Value* v : g.inputs()) {
    Tensor t = Tensor::allocate(v->dtype, v->shape);
    for (auto& x : t.span<float>()) x = u(rng);
    out.push_back(std::move(t));
  }
  return out;
}

/// One text-IR graph on the cpu backend (reference) and on the emulator under force_fp16 and
/// must_keep_origin_dtype, on the same seeded inputs; the relative L2 error of output 0 of each
/// emulator run against the reference.
struct ModeRuns {
  Run ref, fp16, fp32;
  double e16 = 0, e32 = 0;
};
inline ModeRuns run_three_ways(const std::string& text, core::Environment& cpu, core::Environment& fp16,
                               core::Environment& fp32) {
  ModeRuns m;
  auto in = random_inputs(*parse(cpu, text));
  m.ref = compile_and_run(parse(cpu, text), cpu, "cpu", in);
  m.fp16 = compile_and_run(parse(fp16, text), fp16, "ascend", in);
  m.fp32 = compile_and_run(parse(fp32, text), fp32, "ascend", in);
  EXPECT_EQ(m.ref.outputs.size(), 1u);
  if (m.ref.outputs.empty() || m.fp16.outputs.empty() || m.fp32.outputs.empty()) return m;
  m.e16 = rel_l2(m.fp16.outputs[0], m.ref.outputs[0]);
  m.e32 = rel_l2(m.fp32.outputs[0], m.ref.outputs[0]);
  return m;
}

}  // namespace ge::ascend::test
