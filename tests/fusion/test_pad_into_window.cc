// tests/fusion/test_pad_into_window.cc — pad_into_window: a zero Pad of the spatial axes folded
// into the pads of the Conv or AveragePool reading it. The graph before and after (text IR),
// equal outputs of both on random inputs, and the forms the rule must leave alone.
#include <gtest/gtest.h>

#include "pass_harness.h"

namespace ge {
namespace {

using test::PassHarness;

std::string print(const Graph& g) { return print_graph(g, {.show_node_names = false}); }

/// Parses `text` and gives its float constants random values, the padding value `value` (if
/// any) `pad_value`.
std::unique_ptr<Graph> parse_random(PassHarness& h, const std::string& text, float pad_value = 0.f) {
  auto g = h.parse(text);
  PassHarness::randomize_constants(*g);
  if (Value* v = g->find_value("value")) {
    Tensor t = Tensor::allocate(DataType::Float32, Shape{});
    t.data_as<float>()[0] = pad_value;
    v->data = std::make_shared<const Tensor>(std::move(t));
  }
  return g;
}

/// parse_random, then pad_into_window; the outputs must equal the graph's before.
std::unique_ptr<Graph> fold(PassHarness& h, const std::string& text) {
  auto g = parse_random(h, text);
  auto before = g->clone();
  h.run(*g, {"pad_into_window"});
  h.expect_same_outputs(*before, *g, 1e-6);
  return g;
}

// A Pad of [top, left] = [1, 2], [bottom, right] = [1, 2] before a Conv with pads 1 on each side.
const char* kConv = R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,6,5]
  const %pads: i64[8] = [0,0,1,2,0,0,1,2]
  const %w: f32[4,3,3,3]
  const %b: f32[4]
  %p: f32[2,3,8,9] = Pad(%x, %pads)
  %y: f32[2,4,8,9] = Conv(%p, %w, %b) {pads=[1,1,1,1]}
  output %y
}
)";

TEST(PadIntoWindow, ConvTakesThePaddingIntoItsPads) {
  PassHarness h;
  auto g = fold(h, kConv);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[2,3,6,5]
  const %w: f32[4,3,3,3]
  const %b: f32[4]
  %y: f32[2,4,8,9] = Conv(%x, %w, %b) {pads=[2,3,2,3]}
  output %y
}
)");
}

// torch's avg_pool2d(kernel 3, stride 1, padding 1, count_include_pad=True) as exporters write it.
const char* kAvg = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,7,7]
  const %pads: i64[8] = [0,0,1,1,0,0,1,1]
  const %value: f32[] = [0]
  %p: f32[1,16,9,9] = Pad(%x, %pads, %value) {mode="constant"}
  %y: f32[1,16,7,7] = AveragePool(%p) {kernel_shape=[3,3], pads=[0,0,0,0], strides=[1,1]}
  output %y
}
)";

TEST(PadIntoWindow, AveragePoolCountsThePaddingItWasGiven) {
  PassHarness h;
  auto g = fold(h, kAvg);
  EXPECT_EQ(print(*g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,16,7,7]
  %y: f32[1,16,7,7] = AveragePool(%x) {count_include_pad=1, kernel_shape=[3,3], pads=[1,1,1,1], strides=[1,1]}
  output %y
}
)");
}

TEST(PadIntoWindow, PadsAttributeBeforeOpset11) {
  PassHarness h;
  auto g = fold(h, R"(graph g opset(ai.onnx=10) {
  input %x: f32[1,2,5,5]
  const %w: f32[2,2,3,3]
  %p: f32[1,2,7,6] = Pad(%x) {pads=[0,0,2,0,0,0,0,1], value=0.0}
  %y: f32[1,2,5,4] = Conv(%p, %w)
  output %y
}
)");
  ASSERT_EQ(g->num_nodes(), 1u) << print(*g);
  EXPECT_EQ(g->nodes()[0]->attrs.get_ints("pads"), (std::vector<int64_t>{2, 0, 0, 1}));
}

/// Each of these must keep its Pad: folding would change the result.
TEST(PadIntoWindow, LeavesWhatIsNotAZeroSpatialPadding) {
  struct Case {
    const char* why;
    std::string text;
    float value = 0.f;
  };
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::string conv = kConv, avg = kAvg;
  const std::vector<Case> cases = {
      {"padding value 0.5", avg, 0.5f},
      {"reflect mode", replace(avg, "mode=\"constant\"", "mode=\"reflect\"")},
      {"MaxPool pads with -inf", replace(avg, "AveragePool(%p) {kernel_shape", "MaxPool(%p) {kernel_shape")},
      {"channels padded", replace(replace(replace(avg, "[0,0,1,1,0,0,1,1]", "[0,1,1,1,0,0,1,1]"), "%p: f32[1,16,9,9]",
                                          "%p: f32[1,17,9,9]"),
                                  "%y: f32[1,16,7,7]", "%y: f32[1,17,7,7]")},
      {"a negative pad crops", replace(replace(replace(conv, "[0,0,1,2,0,0,1,2]", "[0,0,1,-1,0,0,1,2]"),
                                               "%p: f32[2,3,8,9]", "%p: f32[2,3,8,6]"),
                                       "%y: f32[2,4,8,9]", "%y: f32[2,4,8,6]")},
      {"auto_pad", replace(conv, "{pads=[1,1,1,1]}", "{auto_pad=\"SAME_UPPER\"}")},
      {"own pads, count_include_pad 0",
       replace(replace(avg, "pads=[0,0,0,0]", "pads=[1,1,1,1]"), "%y: f32[1,16,7,7]", "%y: f32[1,16,9,9]")},
      {"ceil_mode", replace(avg, "kernel_shape=[3,3]", "ceil_mode=1, kernel_shape=[3,3]")},
      {"Pad output read twice", replace(avg, "  output %y\n", "  output %y\n  output %p\n")},
  };
  for (const Case& c : cases) {
    PassHarness h;
    auto g = parse_random(h, c.text, c.value);
    const std::string before = print(*g);
    h.run(*g, {"pad_into_window"});
    EXPECT_EQ(print(*g), before) << c.why;
  }
}

}  // namespace
}  // namespace ge
