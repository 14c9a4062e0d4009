// cpu_conv_winograd (plugins/cpu_backend/winograd_pass.cc): the graph before and after on text
// IR — 3x3 stride-1 float32 convolutions with constant weights and one group are marked, the
// others are not — and the pass left out by numerics = "strict", cpu.conv_algorithm = "direct"
// and a bad option value.
#include <gtest/gtest.h>

#include <map>

#include "conv.h"
#include "pass_harness.h"

namespace ge::cpu {
namespace {

// 32 channels (Winograd pays there, winograd_pays). a: 3x3 stride 1 pads 1 (marked); s2: stride 2;
// pw: 1x1; dw: grouped; rt: weights a graph input;
// fc: ge.FusedConv 3x3 with Relu (marked).
const char* kGraph = R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,32,8,8]
  input %wr: f32[32,32,3,3]
  const %w: f32[32,32,3,3]
  const %wg: f32[32,1,3,3]
  const %w1: f32[32,32,1,1]
  %a: f32[1,32,8,8] = Conv(%x, %w) {pads=[1,1,1,1]}  # a
  %s2: f32[1,32,4,4] = Conv(%a, %w) {pads=[1,1,1,1], strides=[2,2]}  # s2
  %pw: f32[1,32,4,4] = Conv(%s2, %w1)  # pw
  %dw: f32[1,32,4,4] = Conv(%pw, %wg) {group=32, pads=[1,1,1,1]}  # dw
  %rt: f32[1,32,4,4] = Conv(%dw, %wr) {pads=[1,1,1,1]}  # rt
  %fc: f32[1,32,4,4] = ge.FusedConv(%rt, %w) {activation="Relu", pads=[1,1,1,1]}  # fc
  output %fc
})";

const std::vector<std::string> kOnly{"cpu_conv_winograd"};

TEST(CpuConvWinogradPass, MarksThreeByThreeStrideOneConvsWithConstantWeights) {
  const Compiled r = compile(kGraph, {}, false, kOnly);
  EXPECT_EQ(print_graph(*r.g, {.max_const_elements = 0}), R"(graph g opset(ai.onnx=13, ge=1) {
  input %x: f32[1,32,8,8]
  input %wr: f32[32,32,3,3]
  const %w: f32[32,32,3,3]
  const %wg: f32[32,1,3,3]
  const %w1: f32[32,32,1,1]
  %a: f32[1,32,8,8] = Conv(%x, %w) {cpu_conv_algorithm="winograd", pads=[1,1,1,1]}  # a
  %s2: f32[1,32,4,4] = Conv(%a, %w) {pads=[1,1,1,1], strides=[2,2]}  # s2
  %pw: f32[1,32,4,4] = Conv(%s2, %w1)  # pw
  %dw: f32[1,32,4,4] = Conv(%pw, %wg) {group=32, pads=[1,1,1,1]}  # dw
  %rt: f32[1,32,4,4] = Conv(%dw, %wr) {pads=[1,1,1,1]}  # rt
  %fc: f32[1,32,4,4] = ge.FusedConv(%rt, %w) {activation="Relu", cpu_conv_algorithm="winograd", pads=[1,1,1,1]}  # fc
  output %fc
}
)");
  EXPECT_EQ(r.c("cpu.conv.winograd"), 2);
}

// Two kinds the pass leaves direct, where oneDNN's direct kernel measured faster, each beside the
// nearest kind that stays Winograd: at most 16 × 16 input × output channels (16 → 16 direct,
// 16 → 32 Winograd), and 128 × 128 outputs over at most 32 input channels (32 → 32 at 128×128
// direct, at 64×64 Winograd; 48 → 16 at 128×128 Winograd).
TEST(CpuConvWinogradPass, LeavesFewChannelsAndLargeImagesOverFewChannelsDirect) {
  const Compiled r = compile(R"(graph g opset(ai.onnx=13) {
  input %x16: f32[1,16,64,64]
  input %x32: f32[1,32,128,128]
  input %y32: f32[1,32,64,64]
  input %x48: f32[1,48,128,128]
  const %w16: f32[16,16,3,3]
  const %w1632: f32[32,16,3,3]
  const %w32: f32[32,32,3,3]
  const %w4816: f32[16,48,3,3]
  %a: f32[1,16,64,64] = Conv(%x16, %w16) {pads=[1,1,1,1]}  # few
  %b: f32[1,32,64,64] = Conv(%x16, %w1632) {pads=[1,1,1,1]}  # wider
  %c: f32[1,32,128,128] = Conv(%x32, %w32) {pads=[1,1,1,1]}  # large
  %d: f32[1,32,64,64] = Conv(%y32, %w32) {pads=[1,1,1,1]}  # smaller
  %e: f32[1,16,128,128] = Conv(%x48, %w4816) {pads=[1,1,1,1]}  # more_input_channels
  output %a
  output %b
  output %c
  output %d
  output %e
})",
                             {}, false, kOnly);
  std::map<std::string, bool> marked;
  for (const Node* n : r.g->nodes()) marked[n->name()] = n->attrs.get_string(kConvAlgorithmAttr, "") == "winograd";
  EXPECT_EQ(marked, (std::map<std::string, bool>{
                        {"few", false}, {"wider", true}, {"large", false}, {"smaller", true}, {"more_input_channels", true}}));
  EXPECT_EQ(r.c("cpu.conv.winograd"), 3);
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
