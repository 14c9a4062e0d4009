// tests/scheduler/test_cost_model.cc — the roofline formula on known nodes, and the calibration
// cache: where it lives, what it holds, and errors for a malformed file.
#include <regex>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "ge/core/calibration.h"
#include "ge/core/manifest.h"
#include "ge/core/environment.h"
#include "ge/sdk/cost_model.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

const char* kOps = R"(graph g opset(ai.onnx=13) {
  input %a: f32[64,128]
  const %b: f32[128,32]
  %y: f32[64,32] = MatMul(%a, %b)  # mm
  %r: f32[64,32] = Relu(%y)  # relu
  %v: f32[2048] = Reshape(%r, %s)  # view
  const %s: i64[1]
  input %x: f32[1,8,6,6]
  const %w: f32[8,1,3,3]
  %d: f32[1,8,4,4] = Conv(%x, %w) {group=8}  # dw
  output %v
  output %d
}
)";

TEST(RooflineCostModel, FormulaOnKnownNodes) {
  auto env = core::load_environment(core::load_manifest(core::default_manifest_path()));
  auto g = parse_graph(kOps);
  g->ops = &env->ops;  // the op contracts (view, cost_class) come from the registry
  MachineCeilings c;
  c.gemm_gflops_1t = 10, c.gemm_gflops_nt = 40, c.threads_nt = 4;  // a = 1: P(t) = 10·t
  c.mem_gbps_1t = 2, c.mem_gbps_nt = 2;                             // B(t) = 2
  c.launch_us = 1;
  c.efficiency = {{"gemm", 0.5}, {"elementwise", 0.25}, {"depthwise", 0.1}, {"gemv", 0.5}};
  RooflineCostModel cm(c);
  EXPECT_DOUBLE_EQ(cm.gflops(2), 20);
  EXPECT_DOUBLE_EQ(cm.weight_gbps(2), 1);  // W = B · E(gemv) = 2 · 0.5
  EXPECT_DOUBLE_EQ(cm.gflops(8), 40);  // capped at threads_nt
  // MatMul: 2·64·32·128 = 524288 FLOP / 20 GFLOP/s = 26214.4 ns; bytes (64·128 + 128·32 + 64·32)·4
  // = 57344 / 2 = 28672 ns (memory-bound); / 0.5 → 57.344 µs + 1; plus the constant B read cold:
  // 128·32·4 = 16384 bytes / W = 1 GB/s → 16.384 µs.
  EXPECT_EQ(op_class(*g->find_node("mm")), "gemm");
  EXPECT_EQ(node_weight_bytes(*g->find_node("mm")), 16384u);
  EXPECT_NEAR(cm.node_us(*g->find_node("mm"), 2), 1 + 57.344 + 16.384, 1e-9);
  // Relu: bytes 2·2048·4 = 16384 / 2 = 8192 ns; / 0.25 → 32.768 µs + 1.
  EXPECT_NEAR(cm.node_us(*g->find_node("relu"), 1), 1 + 32.768, 1e-9);
  EXPECT_EQ(op_class(*g->find_node("view")), "view");
  EXPECT_EQ(cm.node_us(*g->find_node("view"), 1), 0);
  EXPECT_EQ(op_class(*g->find_node("dw")), "depthwise");
}

// The classes are registry data (OpDef::view, cost_class, pattern): a registry file changes them,
// and without a registry nothing is known.
TEST(RooflineCostModel, ClassesComeFromRegistryContracts) {
  auto env = core::load_environment(core::load_manifest(core::default_manifest_path()));
  auto g = parse_graph(kOps);
  EXPECT_EQ(op_class(*g->find_node("mm")), "other");  // no registry: no contract known
  EXPECT_EQ(node_flops(*g->find_node("relu")), 0);
  EXPECT_EQ(op_class(*g->find_node("mm"), &env->ops), "gemm");
  EXPECT_EQ(op_class(*g->find_node("relu"), &env->ops), "elementwise");  // pattern elementwise
  EXPECT_EQ(node_flops(*g->find_node("relu"), &env->ops), 64 * 32);
  EXPECT_EQ(op_class(*g->find_node("view"), &env->ops), "view");
  OpMeta m;
  m.op_types = {"Relu"};
  m.cost_class = "reduce";
  env->ops.apply_meta(m);
  EXPECT_EQ(op_class(*g->find_node("relu"), &env->ops), "reduce");
}

struct EnvGuard {
  std::string name;
  std::optional<std::string> old;
  EnvGuard(const char* n, const char* v) : name(n) {
    if (const char* o = std::getenv(n)) old = o;
    v ? setenv(n, v, 1) : unsetenv(n);
  }
  ~EnvGuard() { old ? setenv(name.c_str(), old->c_str(), 1) : unsetenv(name.c_str()); }
};

TEST(Calibration, PathPrecedence) {
  EnvGuard a("GE_CALIBRATION", "/x/cal.json"), b("XDG_CACHE_HOME", "/cache"), c("HOME", "/home/u");
  EXPECT_EQ(core::calibration_path(), "/x/cal.json");
  EnvGuard a2("GE_CALIBRATION", nullptr);
  // Per GE version and machine: calibration-<version>-<8 hex digits of the CPU model's hash>.json.
  EXPECT_TRUE(std::regex_match(core::calibration_path(), std::regex("/cache/ge/calibration-0\\.1\\.0-[0-9a-f]{8}\\.json")))
      << core::calibration_path();
  EnvGuard b2("XDG_CACHE_HOME", nullptr);
  EXPECT_TRUE(std::regex_match(core::calibration_path(),
                               std::regex("/home/u/\\.cache/ge/calibration-0\\.1\\.0-[0-9a-f]{8}\\.json")))
      << core::calibration_path();
}

TEST(Calibration, RoundTripDefaultsAndErrors) {
  fs::path dir = fs::temp_directory_path() / ("ge_cal_" + std::to_string(::getpid()));
  fs::path file = dir / "sub" / "calibration.json";
  MachineCeilings none = core::load_calibration(file.string());
  EXPECT_FALSE(none.calibrated);
  EXPECT_EQ(none.source, "defaults");

  MachineCeilings c;
  c.gemm_gflops_1t = 123, c.gemm_gflops_nt = 200, c.threads_nt = 2, c.mem_gbps_1t = 40, c.launch_us = 0.5;
  c.efficiency["gemm"] = 0.9;
  core::save_calibration(c, file.string());
  MachineCeilings back = core::load_calibration(file.string());
  EXPECT_TRUE(back.calibrated);
  EXPECT_EQ(back.source, file.string());
  EXPECT_DOUBLE_EQ(back.gemm_gflops_1t, 123);
  EXPECT_DOUBLE_EQ(back.gemm_gflops_nt, 200);
  EXPECT_DOUBLE_EQ(back.mem_gbps_1t, 40);
  EXPECT_DOUBLE_EQ(back.launch_us, 0.5);
  EXPECT_DOUBLE_EQ(back.efficiency.at("gemm"), 0.9);

  std::ofstream(file) << R"({"gemm_gflops_1t": -3})";
  try {
    core::load_calibration(file.string());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "calibration file '" + file.string() + "': field 'gemm_gflops_1t' must be a positive number");
  }
  std::ofstream(file) << "{not json";
  EXPECT_THROW(core::load_calibration(file.string()), Error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ge
