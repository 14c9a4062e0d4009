// tests/fuzz/fuzz_om_section.cc — the Ascend offline model's section (the JSON of "ascend.om",
// plugins/ascend_backend/offline_model.h) straight through the ascend plugin's registered
// validator and describer (om_section.cc: offline_model_from_json, the SoC checks, check_same
// against the offline model the graph gives, describe with and without detail). fuzz_om reaches
// the same code inside whole .om files; here every mutation lands in the JSON.
//
// The graph it is validated against: a Conv + Relu + MatMul graph with a constant, fixed here.
// GE_FUZZ_WRITE_SEED=FILE writes that graph's own section (the hand seed of seeds/om_section).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "fuzz_common.h"
#include "ge/core/environment.h"
#include "ge/core/manifest.h"
#include "ge/sdk/plan_section.h"
#include "ge/sdk/text_ir.h"

namespace {

class Context final : public ge::PlanSectionContext {
 public:
  explicit Context(std::unique_ptr<ge::Graph> g) : g_(std::move(g)) {}
  const ge::Graph& graph() const override { return *g_; }
  const std::string& backend() const override { return backend_; }
  std::optional<std::string> option(const std::string&, const std::string&) const override { return std::nullopt; }
  std::optional<ge::WeightsRange> weights_range(const ge::Value& v) const override {
    if (!v.data || !v.is_constant()) return std::nullopt;
    return ge::WeightsRange{0, v.data->nbytes()};
  }
  uint64_t weights_bytes() const override { return 4096; }

 private:
  std::unique_ptr<ge::Graph> g_;
  std::string backend_ = "ascend";
};

const ge::PlanSectionDef* g_def = nullptr;
std::unique_ptr<Context> g_ctx;

constexpr const char* kGraph = R"(graph om opset(ai.onnx=13) {
  input %x: f32[1,4,8,8]
  const %w: f32[4,4,3,3]
  const %m: f32[8,8]
  %c: f32[1,4,8,8] = Conv(%x, %w) {pads=[1,1,1,1]}  # conv
  %r: f32[1,4,8,8] = Relu(%c)  # relu
  %y: f32[1,4,8,8] = MatMul(%r, %m)  # mm
  output %y
})";

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ge::fuzz::quiet_log();
  static std::unique_ptr<ge::core::Environment> env =
      ge::core::load_environment(ge::core::load_manifest(ge::core::backend_manifest_path("ascend")));
  for (const auto& [d, plugin] : env->plan_sections)
    if (d.name == "ascend.om") g_def = &d;
  if (!g_def) {
    std::fprintf(stderr, "fuzz_om_section: the ascend manifest registers no section 'ascend.om'\n");
    std::abort();
  }
  g_ctx = std::make_unique<Context>(ge::parse_graph(kGraph, "fuzz_om_section"));
  if (const char* seed = std::getenv("GE_FUZZ_WRITE_SEED")) std::ofstream(seed, std::ios::binary) << g_def->write(*g_ctx);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  ge::fuzz::expect_clear_error("fuzz_om_section", [&] { g_def->describe(bytes, true); });
  ge::fuzz::expect_clear_error("fuzz_om_section", [&] { g_def->validate(*g_ctx, bytes); });
  return 0;
}
