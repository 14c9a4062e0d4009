// Every shared model at O2 with the layout pass (the default manifest: [layout] format = "auto")
// and without it (format = "NCHW"): both match the model's reference outputs, the TransData
// nodes left at run time are counted and printed, and resnet50's inference runs no oneDNN
// reorder beyond its TransData nodes (ONEDNN_VERBOSE, in a child gec process); loading its plan
// reorders no convolution weight (they are stored in oneDNN's layouts, docs/layout.md).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "blocked_conv_support.h"
#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "layout_steps.h"
#include "shared_models.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

using ge::test::read_set;
using ge::test::shared_dir;
using ge::test::shared_models;

std::unique_ptr<core::Environment> env_with_layout(const std::string& format) {
  core::Manifest m = core::load_manifest(core::default_manifest_path());
  core::apply_override(m, "layout.format=\"" + format + "\"");
  return core::load_environment(m);
}

double rel_l2(const Tensor& a, const Tensor& b) {
  auto x = a.to_double_vector(), y = b.to_double_vector();
  double d = 0, n = 0;
  for (size_t k = 0; k < x.size(); ++k) d += (x[k] - y[k]) * (x[k] - y[k]), n += y[k] * y[k];
  return std::sqrt(d / std::max(n, 1e-30));
}

TEST(LayoutModels, EveryModelMatchesItsReferenceWithAndWithoutTheLayoutPass) {
  auto models = shared_models();
  if (models.empty()) GTEST_SKIP() << "shared models not found under " << shared_dir();
  for (const std::string format : {"auto", "NCHW"}) {
    auto env = env_with_layout(format);
    for (const fs::path& model : models) {
      SCOPED_TRACE(model.string() + " layout " + format);
      core::ImportOptions io;
      std::unique_ptr<Graph> g = core::import_model(*env, model.string(), io);
      core::CompileOptions o;
      o.opt_level = OptLevel::O2;
      o.fail_on_pass_error = true;
      core::compile_graph(*g, *env, o);
      int blocked = 0;
      for (const Value* v : g->values()) blocked += v->format == Format::NC1HWC0;
      const int transdata = layout::count_transdata(*g);
      std::printf("%-22s layout %-5s TransData %3d  NC1HWC0 values %4d  nodes %4zu\n",
                  model.parent_path().filename().c_str(), format.c_str(), transdata, blocked, g->num_nodes());
      if (format == "NCHW") {
        EXPECT_EQ(transdata, 0);
        EXPECT_EQ(blocked, 0);
      }
      fs::path data = model.parent_path() / "test_data_set_0";
      std::vector<Tensor> in = read_set(data, "input_"), want = read_set(data, "output_");
      if (in.empty()) continue;
      core::Executable exe(std::shared_ptr<const Graph>(std::move(g)), *env, {"cpu", 1});
      std::vector<Tensor> got = exe.run(in);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) EXPECT_LE(rel_l2(got[i], want[i]), 1e-4) << "output " << i;
    }
  }
}

TEST(LayoutModels, ResnetConvsRunBlockedOrNhwcWithTransDataOnlyAtTheirEdges) {
  GE_REQUIRE_BLOCKED_CONVS();
  fs::path model = shared_dir() / "models/resnet50/resnet50.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not found";
  auto env = env_with_layout("auto");
  core::ImportOptions io;
  std::unique_ptr<Graph> g = core::import_model(*env, model.string(), io);
  core::CompileOptions o;
  o.opt_level = OptLevel::O2;
  o.fail_on_pass_error = true;
  core::compile_graph(*g, *env, o);
  int nhwc = 0;
  for (const Node* n : g->nodes()) {
    if (n->op_type() == "FusedConv" || n->op_type() == "Conv") {
      // The first 3x3 conv of layers 2-4 has stride 2: oneDNN's brgemm convolution on NHWC
      // (the cpu backend's preference, docs/layout.md); every other conv blocked.
      const bool stride2_3x3 = n->attrs.get_ints("strides", {1, 1}) == std::vector<int64_t>{2, 2} && n->input(1)->shape[2] == 3;
      EXPECT_EQ(n->output(0)->format, stride2_3x3 ? Format::NHWC : Format::NC1HWC0) << n->describe();
      nhwc += stride2_3x3;
    }
  }
  EXPECT_EQ(nhwc, 3);
  // The stem conv reads its plain input directly (C = 3); one conversion before Flatten and one
  // NC1HWC0 <-> NHWC each way around the three NHWC convs: nothing else.
  EXPECT_EQ(layout::count_transdata(*g), 1 + 2 * nhwc);
}

/// Lines of `cmd`'s stdout+stderr that contain both `a` and `b`.
int count_lines(const std::string& cmd, const std::string& a, const std::string& b) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  int n = 0;
  std::string line;
  while (fgets(buf.data(), buf.size(), p)) {
    line += buf.data();
    if (line.back() != '\n') continue;
    if (line.find(a) != std::string::npos && line.find(b) != std::string::npos) ++n;
    line.clear();
  }
  return pclose(p) == 0 ? n : -1;
}

TEST(LayoutModels, ResnetInferenceRunsNoReorderBeyondItsTransData) {
  GE_REQUIRE_BLOCKED_CONVS();
  fs::path model = shared_dir() / "models/resnet50/resnet50.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not found";
  // Reorders at plan load (constant weights into oneDNN's layout) and in the warm-up run appear
  // in both runs; the difference is what 4 more inferences execute.
  const std::string base = std::string("ONEDNN_VERBOSE=1 ") + GE_GEC_PATH + " run " + model.string() + " --threads 1 -q";
  const int one = count_lines(base + " --iterations 1", ",exec,", ",reorder,");
  const int five = count_lines(base + " --iterations 5", ",exec,", ",reorder,");
  ASSERT_GE(one, 0);
  ASSERT_GE(five, 0);
  const double per_inference = (five - one) / 4.0;
  std::printf("resnet50: oneDNN reorders per inference %.1f (runs: %d, %d)\n", per_inference, one, five);
  auto env = env_with_layout("auto");
  core::ImportOptions io;
  std::unique_ptr<Graph> g = core::import_model(*env, model.string(), io);
  core::CompileOptions o;
  o.opt_level = OptLevel::O2;
  core::compile_graph(*g, *env, o);
  EXPECT_LE(per_inference, layout::count_transdata(*g));
}

/// The stdout+stderr lines of `cmd`; ok = false when it fails.
std::vector<std::string> output_lines(const std::string& cmd, bool& ok) {
  std::vector<std::string> out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  ok = p != nullptr;
  if (!p) return out;
  std::array<char, 4096> buf;
  std::string line;
  while (fgets(buf.data(), buf.size(), p)) {
    line += buf.data();
    if (line.back() != '\n') continue;
    out.push_back(line);
    line.clear();
  }
  ok = pclose(p) == 0;
  return out;
}

// A plan's blocked conv weights are used in place: loading resnet50's plan and running it twice
// reorders no weight into a blocked layout (the three NHWC convs' plain weights go into the
// brgemm convolution's layout at load, like the Winograd ones). The Winograd convs' weights (cpu_conv_winograd,
// docs/cpu.md) are plain in the plan and go once, at load, into oneDNN's Winograd layout.
TEST(LayoutModels, ResnetPlanLoadReordersOnlyWinogradAndNhwcConvWeights) {
  GE_REQUIRE_BLOCKED_CONVS();
  fs::path model = shared_dir() / "models/resnet50/resnet50.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not found";
  const fs::path plan = fs::temp_directory_path() / ("ge_layout_r50_" + std::to_string(::getpid()) + ".gep");
  bool ok = false;
  output_lines(std::string(GE_GEC_PATH) + " compile " + model.string() + " -o " + plan.string() + " --quiet", ok);
  ASSERT_TRUE(ok) << "gec compile failed";
  // Load + warm-up + one timed run: two inferences.
  std::vector<std::string> lines =
      output_lines(std::string("ONEDNN_VERBOSE=1 ") + GE_GEC_PATH + " run " + plan.string() + " --threads 1 --iterations 1 -q", ok);
  fs::remove(plan);
  ASSERT_TRUE(ok) << "gec run failed";
  int reorders = 0, conv_weight = 0, nchw16c_to_plain = 0, winograd_weight = 0, nhwc_transdata = 0, nhwc_weight = 0;
  for (const std::string& l : lines) {
    if (l.find(",exec,") == std::string::npos || l.find(",reorder,") == std::string::npos) continue;
    ++reorders;
    // oneDNN's convolution weight layouts (OIhw16i16o, Ohwi16o, Goihw16g as 5-D Abcde16a): no
    // activation is ever stored in them, so such a reorder is a weight reorder.
    for (const char* t : {"blocked:ABcd16b16a", "blocked:Acdb16a", "blocked:Abcde16a"})
      if (l.find(std::string("dst_f32::") + t) != std::string::npos ||
          l.find(std::string("dst_f32:p:") + t) != std::string::npos)
        ++conv_weight;
    if (l.find("blocked:aBcd16b") != std::string::npos && l.find("dst_f32::blocked:abcd:") != std::string::npos)
      ++nchw16c_to_plain;
    if (l.find("src_f32::blocked:abcd:") != std::string::npos && l.find("dst_f32::wino:") != std::string::npos)
      ++winograd_weight;
    if ((l.find("src_f32::blocked:aBcd16b:") != std::string::npos && l.find("dst_f32::blocked:acdb:") != std::string::npos) ||
        (l.find("src_f32::blocked:acdb:") != std::string::npos && l.find("dst_f32::blocked:aBcd16b:") != std::string::npos))
      ++nhwc_transdata;
    // The NHWC convs' plain weights into the brgemm convolution's layout (Acdb32a, Acdb64a).
    if (l.find("src_f32::blocked:abcd:") != std::string::npos && l.find("dst_f32::blocked:Acdb") != std::string::npos &&
        l.find("dst_f32::blocked:Acdb16a") == std::string::npos)
      ++nhwc_weight;
  }
  auto env = env_with_layout("auto");
  core::ImportOptions io;
  std::unique_ptr<Graph> g = core::import_model(*env, model.string(), io);
  core::CompileOptions o;
  o.opt_level = OptLevel::O2;
  core::compile_graph(*g, *env, o);
  const int transdata = layout::count_transdata(*g);
  int winograd = 0, nhwc_convs = 0;
  for (const Node* n : g->nodes()) {
    winograd += n->attrs.get_string("cpu_conv_algorithm", "") == "winograd";
    nhwc_convs += n->output(0)->format == Format::NHWC && n->op_type() != "TransData";
  }
  std::printf("resnet50 plan load + 2 inferences: %d reorders, %d of blocked conv weights, %d into Winograd layout "
              "(%d Winograd convs), %d nChw16c->NCHW (TransData %d)\n",
              reorders, conv_weight, winograd_weight, winograd, nchw16c_to_plain, transdata);
  EXPECT_EQ(conv_weight, 0);
  // resnet50 has sixteen 3x3 convs; the first of layers 2-4 has stride 2: 13 are Winograd ones.
  EXPECT_EQ(winograd, 13);
  EXPECT_EQ(winograd_weight, winograd);  // once each, at load
  // The TransData nodes run once per inference: the one before Flatten (nChw16c -> NCHW) and
  // the NC1HWC0 <-> NHWC pair around each NHWC conv. The NHWC convs' plain weights go once, at
  // load, into the brgemm convolution's layout. The classifier Gemm (one row at batch 1) reads
  // its [1000, 2048] weights in place (the GEMV of gemv.h): no other reorder.
  EXPECT_EQ(nhwc_convs, 3);
  EXPECT_EQ(nhwc_transdata, 2 * 2 * nhwc_convs);
  EXPECT_EQ(nchw16c_to_plain, 2 * (transdata - 2 * nhwc_convs));
  EXPECT_EQ(nhwc_weight, nhwc_convs);
  EXPECT_EQ(reorders, nchw16c_to_plain + nhwc_transdata + nhwc_weight + winograd_weight);
}


// The copies of a batch-split graph (docs/scheduling.md "Batch split") read the same constant
// weights; the Winograd convs among them share one reordered copy of each (conv.cc): squeezenet1_1
// at batch 4 split into four one-image copies has 4 × 8 Winograd convs and reorders 8 weights.
TEST(LayoutModels, BatchSplitCopiesShareTheirWinogradWeights) {
  GE_REQUIRE_BLOCKED_CONVS();
  fs::path model = shared_dir() / "models/squeezenet1_1/squeezenet1_1.onnx";
  if (!fs::exists(model)) GTEST_SKIP() << model << " not found";
  const fs::path plan = fs::temp_directory_path() / ("ge_layout_sq_" + std::to_string(::getpid()) + ".gep");
  bool ok = false;
  output_lines(std::string(GE_GEC_PATH) + " compile " + model.string() + " --input-shape input:4,3,224,224" +
                   " --set batch_split.mode=on --set batch_split.micro_batch=1 --threads 1 -o " + plan.string() +
                   " --quiet",
               ok);
  ASSERT_TRUE(ok) << "gec compile failed";
  std::vector<std::string> lines =
      output_lines(std::string("ONEDNN_VERBOSE=1 ") + GE_GEC_PATH + " run " + plan.string() + " --threads 1 --iterations 1 -q", ok);
  fs::remove(plan);
  ASSERT_TRUE(ok) << "gec run failed";
  int winograd_weight = 0, winograd_convs = 0;
  for (const std::string& l : lines) {
    if (l.find(",exec,") == std::string::npos) continue;
    if (l.find(",reorder,") != std::string::npos && l.find("src_f32::blocked:abcd:") != std::string::npos &&
        l.find("dst_f32::wino:") != std::string::npos)
      ++winograd_weight;
    if (l.find(",convolution,") != std::string::npos && l.find("wino") != std::string::npos) ++winograd_convs;
  }
  // Two inferences (warm-up and the timed one) run every conv twice.
  EXPECT_EQ(winograd_convs, 2 * 4 * 8);
  EXPECT_EQ(winograd_weight, 8);
}

}  // namespace
}  // namespace ge
