// squeezenet1_1 (../shared/models) on the emulator against its reference outputs: relative L2
// <= 1e-2 under force_fp16 and <= 1e-5 under must_keep_origin_dtype. Prints per mode the error,
// the emulator's wall time, AI Core vs AI CPU op counts and the Casts inserted.
#include <cstdlib>
#include <filesystem>

#include "ascend_harness.h"
#include "ge/core/onnx_frontend.h"

namespace ge::ascend {
namespace {

namespace fs = std::filesystem;

fs::path shared_dir() {
  if (const char* e = std::getenv("GE_SHARED_DIR")) return e;
  return fs::path(__FILE__).parent_path() / "../../../shared";
}

std::vector<Tensor> read_set(const fs::path& dir, const std::string& prefix) {
  std::vector<Tensor> out;
  for (int k = 0; fs::exists(dir / (prefix + std::to_string(k) + ".pb")); ++k)
    out.push_back(core::read_tensor_file((dir / (prefix + std::to_string(k) + ".pb")).string()));
  return out;
}

void run_model(const std::string& mode, double bound) {
  const fs::path model = shared_dir() / "models/squeezenet1_1/squeezenet1_1.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not found";
  auto env = test::ascend_env(mode);
  const fs::path data = model.parent_path() / "test_data_set_0";
  const std::vector<Tensor> in = read_set(data, "input_"), want = read_set(data, "output_");
  ASSERT_FALSE(in.empty());
  core::ImportOptions io;
  auto r = test::compile_and_run(core::import_model(*env, model.string(), io), *env, "ascend", in);
  ASSERT_EQ(r.outputs.size(), want.size());
  const double e = test::rel_l2(r.outputs[0], want[0]);
  auto c = [&](const std::string& k) { return r.counters.count(k) ? r.counters.at(k) : 0; };
  std::printf("squeezenet1_1 %-22s rel L2 %.3e  emulator %.0f ms  AI Core cube %lld vector %lld  AI CPU %lld  "
              "casts to_fp16 %lld to_fp32 %lld constants %lld\n",
              mode.c_str(), e, r.run_ms, (long long)c("ascend.placement.aicore.cube"),
              (long long)c("ascend.placement.aicore.vector"), (long long)c("ascend.placement.aicpu"),
              (long long)c("ascend.casts.to_fp16"), (long long)c("ascend.casts.to_fp32"), (long long)c("ascend.casts.constants"));
  for (auto& [k, v] : r.counters)
    if (k.rfind("ascend.cast.", 0) == 0 || k.rfind("ascend.placement.aicpu.", 0) == 0) std::printf("  %s = %lld\n", k.c_str(), (long long)v);
  EXPECT_LE(e, bound);
  if (mode == "force_fp16") {
    EXPECT_GT(e, 1e-5);  // it really computed in fp16
    EXPECT_EQ(c("ascend.placement.aicore.cube"), 26);  // every (fused) convolution
    EXPECT_EQ(c("ascend.casts.to_fp16"), 1);            // the image
    EXPECT_EQ(c("ascend.casts.to_fp32"), 1);            // before Flatten
  } else {
    EXPECT_EQ(c("ascend.casts.to_fp16") + c("ascend.casts.to_fp32"), 0);
    EXPECT_EQ(c("ascend.placement.aicpu.FusedConv"), 26);  // the Cube has no fp32
  }
}

TEST(AscendModels, Squeezenet11ForceFp16) { run_model("force_fp16", 1e-2); }
TEST(AscendModels, Squeezenet11MustKeepOriginDtype) { run_model("must_keep_origin_dtype", 1e-5); }

}  // namespace
}  // namespace ge::ascend
