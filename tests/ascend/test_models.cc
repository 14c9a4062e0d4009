// The shared models (../shared/models) on the emulator against their reference outputs: relative
// L2 <= 1e-2 under force_fp16, allow_fp32_to_fp16 and allow_mix_precision, <= 1e-5 under
// must_keep_origin_dtype; onnx-light/shufflenet (activations beyond fp16's 65504) stops under
// force_fp16 with the overflow diagnostic, and runs under the allow_* modes with the overflowing
// nodes kept in fp32 (keep_dtype, as the compile-time overflow check suggests them). Prints per
// model and mode the error, the emulator's wall time, AI Core vs AI CPU op counts and Casts.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "ascend_harness.h"
#include "shared_models.h"
#include "ge/core/onnx_frontend.h"

namespace ge::ascend {
namespace {

namespace fs = std::filesystem;

using ge::test::read_set;
using ge::test::shared_dir;
using ge::test::shared_models;

std::string label(const fs::path& model) {
  const std::string dir = model.parent_path().filename().string();
  return model.parent_path().parent_path().filename() == "onnx-light" ? "onnx-light/" + dir : dir;
}

/// Runs one model in one mode; returns the relative L2 error (or -1 after an expected error).
test::Run run_model(const fs::path& model, const std::string& mode, double bound, const std::string& expect_error = "",
                    const std::vector<std::string>& overrides = {}, const std::string& note = "") {
  auto env = test::ascend_env(mode, overrides);
  const fs::path data = model.parent_path() / "test_data_set_0";
  const std::vector<Tensor> in = read_set(data, "input_"), want = read_set(data, "output_");
  EXPECT_FALSE(in.empty());
  core::ImportOptions io;
  test::Run r;
  try {
    r = test::compile_and_run(core::import_model(*env, model.string(), io), *env, "ascend", in);
  } catch (const Error& e) {
    if (expect_error.empty()) ADD_FAILURE() << label(model) << " " << mode << ": " << e.what();
    else EXPECT_NE(std::string(e.what()).find(expect_error), std::string::npos) << e.what();
    std::printf("%-22s %-22s%s stopped: %s\n", label(model).c_str(), mode.c_str(), note.c_str(), e.what());
    return r;
  }
  EXPECT_TRUE(expect_error.empty()) << label(model) << " " << mode << " ran; expected: " << expect_error;
  EXPECT_EQ(r.outputs.size(), want.size());
  double e = 0;
  for (size_t i = 0; i < std::min(r.outputs.size(), want.size()); ++i) e = std::max(e, test::rel_l2(r.outputs[i], want[i]));
  auto c = [&](const std::string& k) { return r.counters.count(k) ? r.counters.at(k) : 0; };
  std::printf("%-22s %-22s%s rel L2 %.3e  emulator %5.0f ms  AI Core cube %3lld vector %3lld  AI CPU %3lld  views %3lld  "
              "casts to_fp16 %lld to_fp32 %lld constants %lld  | final (after layout) cube %lld vector %lld AI CPU %lld views %lld\n",
              label(model).c_str(), mode.c_str(), note.c_str(), e, r.run_ms, (long long)c("ascend.placement.aicore.cube"),
              (long long)c("ascend.placement.aicore.vector"), (long long)c("ascend.placement.aicpu"), (long long)c("ascend.placement.view"),
              (long long)c("ascend.casts.to_fp16"), (long long)c("ascend.casts.to_fp32"), (long long)c("ascend.casts.constants"),
              (long long)c("ascend.placement.final.aicore.cube"), (long long)c("ascend.placement.final.aicore.vector"),
              (long long)c("ascend.placement.final.aicpu"), (long long)c("ascend.placement.final.view"));
  EXPECT_LE(e, bound) << label(model) << " " << mode;
  if (mode != "must_keep_origin_dtype") EXPECT_GT(e, 1e-5) << "it really computed in fp16";
  else EXPECT_EQ(c("ascend.casts.to_fp16") + c("ascend.casts.to_fp32"), 0);
  return r;
}

TEST(AscendModels, Squeezenet11PlacementAndCasts) {
  const fs::path model = shared_dir() / "models/squeezenet1_1/squeezenet1_1.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not found";
  test::Run h = run_model(model, "force_fp16", 1e-2);
  EXPECT_EQ(h.counters["ascend.placement.aicore.cube"], 26);  // every (fused) convolution
  EXPECT_EQ(h.counters["ascend.placement.aicpu"], 0);
  EXPECT_EQ(h.counters["ascend.placement.view"], 1);          // Flatten follows fp16
  EXPECT_EQ(h.counters["ascend.casts.to_fp16"], 1);           // the image
  EXPECT_EQ(h.counters["ascend.casts.to_fp32"], 1);           // the output, after Flatten
  for (auto& [k, v] : h.counters)
    if (k.rfind("ascend.cast.", 0) == 0) std::printf("  %s = %lld\n", k.c_str(), (long long)v);
  test::Run f = run_model(model, "must_keep_origin_dtype", 1e-5);
  EXPECT_EQ(f.counters["ascend.placement.aicpu.FusedConv"], 26);  // the Cube has no fp32
}

// The nodes of onnx-light/shufflenet whose fp32 values exceed 65504 (the compile-time check's
// suggestion, OnnxLightShufflenetOverflow below): every one a (fused) Conv or a Vector op of the
// later stages (a unit's residual Sum + Relu is fused into its second grouped conv by
// conv_add_act), under allow_mix_precision; the Convs alone under allow_fp32_to_fp16 (it computes
// no Vector op in fp16).
const std::vector<std::string> kShufflenetMixOverflow{
    "n120", "n122", "n126", "n132", "n134", "n138", "n144", "n146", "n160", "n150", "n156", "n158", "n161",
    "n162", "n163", "n169", "n171", "n175", "n181", "n183", "n187", "n193", "n195", "n199", "n201"};
const std::vector<std::string> kShufflenetCubeOverflow{"n120", "n122", "n126", "n132", "n134", "n138", "n144",
                                                       "n146", "n150", "n156", "n158", "n163", "n169", "n171",
                                                       "n175", "n181", "n183", "n187", "n193", "n195", "n201"};

std::string keep_dtype(const std::vector<std::string>& names) {
  std::string s = "ascend.keep_dtype=[";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", \"" : "\"") + names[i] + "\"";
  return s + "]";
}

// Every shared model in every mode: force_fp16, allow_fp32_to_fp16 and allow_mix_precision within
// 1e-2 of the reference, must_keep_origin_dtype within 1e-5. onnx-light/shufflenet's activations
// exceed 65504: force_fp16 must stop with the overflow diagnostic naming the node, and the allow_*
// modes run with the overflowing nodes denied fp16 (keep_dtype).
TEST(AscendModels, EverySharedModelInEveryMode) {
  const auto models = shared_models();
  if (models.empty()) GTEST_SKIP() << "shared models not found under " << shared_dir();
  for (const fs::path& m : models) {
    SCOPED_TRACE(label(m));
    if (label(m) == "onnx-light/shufflenet") {
      run_model(m, "force_fp16", 1e-2, "fp16 overflow in node 'n120' (Conv)");
      run_model(m, "allow_fp32_to_fp16", 1e-2, "", {keep_dtype(kShufflenetCubeOverflow)}, " +keep 21");
      run_model(m, "allow_mix_precision", 1e-2, "", {keep_dtype(kShufflenetMixOverflow)}, " +keep 25");
    } else {
      run_model(m, "force_fp16", 1e-2);
      run_model(m, "allow_fp32_to_fp16", 1e-2);
      run_model(m, "allow_mix_precision", 1e-2);
    }
    run_model(m, "must_keep_origin_dtype", 1e-5);
  }
}

// onnx-light/shufflenet: the compile-time check names n120 first and suggests exactly the nodes
// kept above (on seeded inputs uniform in [0, 1), the model's own input distribution); with
// "keep" it denies them fp16 itself; without any keep list allow_mix_precision overflows at n120.
TEST(AscendModels, OnnxLightShufflenetOverflow) {
  const fs::path m = shared_dir() / "models/onnx-light/shufflenet/model.onnx";
  if (!fs::exists(m)) GTEST_SKIP() << m << " not found";
  const std::vector<std::string> check{"ascend.overflow_check=\"error\"", "ascend.overflow_check_inputs=[0.0, 1.0]"};
  std::string list;
  for (const std::string& n : kShufflenetMixOverflow) list += (list.empty() ? "\"" : ", \"") + n + "\"";
  run_model(m, "force_fp16", 1e-2, "fp16 overflow at compile time: node 'n120' (Conv) reaches |x| = ", check, " +check");
  run_model(m, "allow_mix_precision", 1e-2, "25 node(s) of precision_mode allow_mix_precision overflow — keep them in fp32: --set 'ascend.keep_dtype=[" + list + "]'",
            check, " +check");
  std::string cube;
  for (const std::string& n : kShufflenetCubeOverflow) cube += (cube.empty() ? "\"" : ", \"") + n + "\"";
  run_model(m, "allow_fp32_to_fp16", 1e-2, "21 node(s) of precision_mode allow_fp32_to_fp16 overflow — keep them in fp32: --set 'ascend.keep_dtype=[" + cube + "]'",
            check, " +check");
  // On the model's own input (test_data_set_0) the check finds the same 25.
  run_model(m, "force_fp16", 1e-2, "25 node(s) of precision_mode force_fp16 overflow — keep them in fp32: --set 'ascend.keep_dtype=[" + list + "]'",
            {"ascend.overflow_check=\"error\"", "ascend.overflow_check_inputs=\"" + (m.parent_path() / "test_data_set_0").string() + "\""},
            " +check(data)");
  run_model(m, "allow_mix_precision", 1e-2, "fp16 overflow in node 'n120' (Conv)");
  const std::vector<std::string> keep{"ascend.overflow_check=\"keep\"", "ascend.overflow_check_inputs=[0.0, 1.0]"};
  test::Run k = run_model(m, "allow_mix_precision", 1e-2, "", keep, " +check=keep");
  EXPECT_EQ(k.counters["ascend.overflow_check.nodes"], 25);
  EXPECT_EQ(k.counters["ascend.precision.fp32.overflow_check"], 25);
  test::Run f = run_model(m, "force_fp16", 1e-2, "", keep, " +check=keep");
  EXPECT_EQ(f.counters["ascend.precision.fp32.overflow_check"], 25);
}

}  // namespace
}  // namespace ge::ascend
