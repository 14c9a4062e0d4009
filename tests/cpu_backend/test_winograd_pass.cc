// cpu_conv_winograd (plugins/cpu_backend/winograd_pass.cc): the graph before and after on text
// IR — 3x3 stride-1 float32 convolutions with constant weights and one group are marked, the
// others are not — and the pass left out by numerics = "strict", cpu.conv_algorithm = "direct"
// and a bad option value.
#include <gtest/gtest.h>

#include "conv.h"
#include "pass_harness.h"

namespace ge::cpu {
namespace {

// a: 3x3 stride 1 pads 1 (marked); s2: stride 2; pw: 1x1; dw: grouped; rt: weights a graph input;
// fc: ge.FusedConv 3x3 with Relu (marked).
const char* kGraph = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  input %wr: f32[16,16,3,3]
  const %w: f32[16,16,3,3]
  const %wg: f32[16,1,3,3]
  const %w1: f32[16,16,1,1]
  %a: f32[1,16,8,8] = Conv(%x, %w) {pads=[1,1,1,1]}  # a
  %s2: f32[1,16,4,4] = Conv(%a, %w) {pads=[1,1,1,1], strides=[2,2]}  # s2
  %pw: f32[1,16,4,4] = Conv(%s2, %w1)  # pw
  %dw: f32[1,16,4,4] = Conv(%pw, %wg) {group=16, pads=[1,1,1,1]}  # dw
  %rt: f32[1,16,4,4] = Conv(%dw, %wr) {pads=[1,1,1,1]}  # rt
  %fc: f32[1,16,4,4] = ge.FusedConv(%rt, %w) {activation="Relu", pads=[1,1,1,1]}  # fc
  output %fc
})";

const std::vector<std::string> kOnly{"cpu_conv_winograd"};

TEST(CpuConvWinogradPass, MarksThreeByThreeStrideOneConvsWithConstantWeights) {
  const Compiled r = compile(kGraph, {}, false, kOnly);
  EXPECT_EQ(print_graph(*r.g, {.max_const_elements = 0}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,16,8,8]
  input %wr: f32[16,16,3,3]
  const %w: f32[16,16,3,3]
  const %wg: f32[16,1,3,3]
  const %w1: f32[16,16,1,1]
  %a: f32[1,16,8,8] = Conv(%x, %w) {cpu_conv_algorithm="winograd", pads=[1,1,1,1]}  # a
  %s2: f32[1,16,4,4] = Conv(%a, %w) {pads=[1,1,1,1], strides=[2,2]}  # s2
  %pw: f32[1,16,4,4] = Conv(%s2, %w1)  # pw
  %dw: f32[1,16,4,4] = Conv(%pw, %wg) {group=16, pads=[1,1,1,1]}  # dw
  %rt: f32[1,16,4,4] = Conv(%dw, %wr) {pads=[1,1,1,1]}  # rt
  %fc: f32[1,16,4,4] = ge.FusedConv(%rt, %w) {activation="Relu", cpu_conv_algorithm="winograd", pads=[1,1,1,1]}  # fc
  output %fc
}
)");
  EXPECT_EQ(r.c("cpu.conv.winograd"), 2);
}

TEST(CpuConvWinogradPass, StrictNumericsAndTheDirectOptionLeaveEveryConvDirect) {
  for (const bool strict : {true, false}) {
    const Compiled r = compile(kGraph, strict ? std::vector<std::string>{} : std::vector<std::string>{"cpu.conv_algorithm=\"direct\""},
                               strict, kOnly);
    for (const Node* n : r.g->nodes()) EXPECT_FALSE(n->attrs.has(kConvAlgorithmAttr)) << n->name() << " strict=" << strict;
    EXPECT_EQ(r.c("cpu.conv.winograd"), 0);
  }
  EXPECT_NE(error_of([] { compile(kGraph, {"cpu.conv_algorithm=\"fast\""}, false, kOnly); })
                .find("'cpu.conv_algorithm' must be one of \"auto\", \"direct\", not \"fast\""),
            std::string::npos);
}

}  // namespace
}  // namespace ge::cpu
