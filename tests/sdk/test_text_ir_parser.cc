#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"

using namespace ge;

namespace {
// print(parse(text)) must give `text` back unchanged.
void expect_round_trip(const std::string& text, const TextIrOptions& opts = {}) {
  std::unique_ptr<Graph> g = parse_graph(text);
  EXPECT_EQ(print_graph(*g, opts), text);
}

std::string parse_error(const std::string& text) {
  try {
    parse_graph(text);
  } catch (const InvalidGraphError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(TextIrParser, RoundTripsMultiOutputNodesAndOmittedSlots) {
  const std::string text =
      "graph multi opset(ai.onnx=13, ge=1) {\n"
      "  input %x: f32[2,6]\n"
      "  %a: f32[2,3], %b: f32[2,3] = Split(%x) {axis=1}  # split\n"
      "  %y: f32[2,3], _ = ge.FusedThing(%a, _, %b)  # fused\n"
      "   = Print(%y)  # sink\n"  // no outputs: the printer leaves the list empty
      "  output %y\n"
      "  output %b\n"
      "}\n";
  expect_round_trip(text);
  auto g = parse_graph(text);
  EXPECT_EQ(g->opset(""), 13);
  EXPECT_EQ(g->opset("ge"), 1);
  Node* f = g->find_node("fused");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->domain(), "ge");
  EXPECT_EQ(f->op_type(), "FusedThing");
  EXPECT_EQ(f->input(1), nullptr);
  EXPECT_EQ(f->num_outputs(), 2u);
  EXPECT_EQ(f->output(1), nullptr);
  EXPECT_EQ(g->find_value("b")->producer_output(), 1);
}

TEST(TextIrParser, RoundTripsEveryAttributeKind) {
  const std::string text =
      "graph attrs {\n"
      "  input %x: f32[1]\n"
      "  %y: f32[1] = Custom(%x) {e=[], f=1.5, fi=1.0, fs=[0.5,1.0,-2.5], fsmall=1e-05, i=3, ineg=-1, "
      "inf=inf, is=[1,2], nan=nan, ninf=-inf, s=\"a \\\"q\\\" \\\\ b\\n\", ss=[\"a\",\"b c\"], t=tensor<f32[2]>}  # n\n"
      "  output %y\n"
      "}\n";
  expect_round_trip(text);
  auto g = parse_graph(text);
  const Attributes& a = g->find_node("n")->attrs;
  EXPECT_EQ(std::get<std::vector<int64_t>>(*a.find("e")).size(), 0u);  // [] reads as ints
  EXPECT_EQ(std::get<float>(*a.find("f")), 1.5f);
  EXPECT_EQ(std::get<float>(*a.find("fi")), 1.0f);  // "1.0" stays a float
  EXPECT_EQ(std::get<float>(*a.find("fsmall")), 1e-05f);
  EXPECT_EQ(std::get<int64_t>(*a.find("ineg")), -1);
  EXPECT_TRUE(std::isinf(std::get<float>(*a.find("inf"))));
  EXPECT_TRUE(std::isnan(std::get<float>(*a.find("nan"))));
  EXPECT_EQ(a.get_string("s", ""), "a \"q\" \\ b\n");
  EXPECT_EQ(a.get_floats("fs"), (std::vector<float>{0.5f, 1.0f, -2.5f}));
  EXPECT_EQ(std::get<std::vector<std::string>>(*a.find("ss")), (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(a.get_tensor("t").shape(), Shape({2}));
}

TEST(TextIrParser, FloatAttributesRoundTripBitExactly) {
  Graph g("floats");
  Value* x = g.add_input("x", DataType::Float32, {1});
  Value* y = g.add_value("y", DataType::Float32, {1});
  Attributes a;
  a.set("alpha", 0.1f);
  a.set("beta", 1.17549435e-38f);
  a.set("gamma", std::vector<float>{3.14159274f, 1e20f, 100.0f});
  g.add_node("Custom", "c", {x}, {y}, a);
  std::string text = print_graph(g);
  EXPECT_NE(text.find("alpha=0.1, beta=1.1754944e-38, gamma=[3.1415927,1e+20,100.0]"), std::string::npos) << text;
  auto back = parse_graph(text);
  const Attributes& b = back->find_node("c")->attrs;
  EXPECT_EQ(std::get<float>(*b.find("alpha")), 0.1f);
  EXPECT_EQ(std::get<float>(*b.find("beta")), 1.17549435e-38f);
  EXPECT_EQ(b.get_floats("gamma"), (std::vector<float>{3.14159274f, 1e20f, 100.0f}));
}

TEST(TextIrParser, RoundTripsFormatsAndConstantElements) {
  const std::string text =
      "graph consts {\n"
      "  input %x: f32[1,1,4,4,16]@NC1HWC0\n"
      "  const %shape: i64[2] = [1,-1]\n"
      "  const %w: f32[3] = [0.1,-2.5,1e-05]\n"
      "  const %h: f16[2] = [0.5,-1]\n"
      "  const %b: bool[2] = [0,1]\n"
      "  const %s: f32[] = [3]\n"
      "  const %e: f32[0] = []\n"
      "  %y: f32[1,1,4,4,16]@NC1HWC0 = Identity(%x)  # id\n"
      "  output %y\n"
      "}\n";
  TextIrOptions opts;
  opts.max_const_elements = 8;
  expect_round_trip(text, opts);
  auto g = parse_graph(text);
  EXPECT_EQ(g->find_value("x")->format, Format::NC1HWC0);
  const Tensor& w = *g->find_value("w")->data;
  EXPECT_EQ(w.data_as<float>()[0], 0.1f);
  EXPECT_EQ(w.data_as<float>()[2], 1e-05f);
  EXPECT_EQ(g->find_value("shape")->data->to_int64_vector(), (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(g->find_value("h")->data->to_double_vector(), (std::vector<double>{0.5, -1}));
}

TEST(TextIrParser, ConstantWithoutElementsIsZeroFilled) {
  const std::string text =
      "graph z {\n"
      "  const %w: f32[2,2]\n"
      "  %y: f32[2,2] = Relu(%w)  # r\n"
      "  output %y\n"
      "}\n";
  expect_round_trip(text);
  auto g = parse_graph(text);
  Value* w = g->find_value("w");
  ASSERT_TRUE(w->is_constant());
  EXPECT_EQ(w->data->to_double_vector(), (std::vector<double>{0, 0, 0, 0}));
}

// The zero-filled data of a text (constants without elements, tensor<...> attributes) has no
// bytes of the text behind it: at most 2^30 bytes in all (text_ir_parser.cc), so that a mistyped
// shape fails on its line instead of asking for gigabytes (a fuzz finding:
// tests/fuzz/regressions/text_ir/).
TEST(TextIrParser, ZeroFilledDataPastTheLimitNamesTheLineAndTheBytes) {
  EXPECT_EQ(parse_error("graph g {\n  const %w: f32[99999994,3,3,3]\n}\n"),
            "<text>:2:9: constant '%w' (f32[99999994,3,3,3]) would be zero-filled with 10799999352 bytes; a text "
            "zero-fills at most 1073741824 bytes in all (0 before this line)");
  EXPECT_EQ(parse_error("graph g {\n  const %a: f32[200000000]\n  const %b: u8[300000000]\n}\n"),
            "<text>:3:9: constant '%b' (u8[300000000]) would be zero-filled with 300000000 bytes; a text "
            "zero-fills at most 1073741824 bytes in all (800000000 before this line)");
  EXPECT_EQ(parse_error("graph g {\n  input %x: f32[1]\n  %y: f32[1] = Relu(%x) {t=tensor<i64[1099511627776]>}\n}\n"),
            "<text>:3:28: tensor attribute (i64[1099511627776]) would be zero-filled with 8796093022208 bytes; a "
            "text zero-fills at most 1073741824 bytes in all (0 before this line)");
  EXPECT_EQ(parse_error("graph g {\n  const %w: f32[4294967296,4294967296]\n}\n"),
            "<text>:2:9: constant '%w': shape [4294967296,4294967296] has more than 2^59 elements");
  // Elements given in the text are bounded by it: counted before anything is allocated.
  EXPECT_EQ(parse_error("graph g {\n  const %w: f32[99999994,3,3,3] = [1]\n}\n"),
            "<text>:2:35: expected 2699999838 elements for f32[99999994,3,3,3], got 1");
  // Up to the limit the data are there, zero.
  auto g = parse_graph("graph g {\n  const %a: u8[1073741823]\n  const %b: u8[1]\n  output %b\n}\n");
  EXPECT_EQ(g->find_value("b")->data->to_double_vector(), (std::vector<double>{0}));
  EXPECT_EQ(g->find_value("a")->data->nbytes(), size_t{1073741823});
}

TEST(TextIrParser, RoundTripsNamesThatNeedQuotes) {
  const std::string text =
      "graph \"my graph\" {\n"
      "  input %\"a b\": f32[1]\n"
      "  %onnx::Relu_1: f32[1] = Relu(%\"a b\")  # /layer1/Relu\n"
      "  %\"x,y\": f32[1] = Neg(%onnx::Relu_1)  # neg\n"
      "  %\"ends:\": f32[1] = Neg(%\"x,y\")  # neg2\n"
      "  output %\"ends:\"\n"
      "}\n";
  expect_round_trip(text);
  auto g = parse_graph(text);
  EXPECT_EQ(g->name, "my graph");
  EXPECT_NE(g->find_value("onnx::Relu_1"), nullptr);
  EXPECT_NE(g->find_value("ends:"), nullptr);
}

// A node name is the rest of its line, except one a line cannot hold as it is: a control
// character ('\r' would be taken for a CRLF ending, '\n' would end the line) or a leading '"' or
// space; the printer quotes those, and they parse back to the same name.
TEST(TextIrParser, RoundTripsNodeNamesALineCannotHold) {
  const std::string text =
      "graph g {\n"
      "  input %x: f32[1]\n"
      "  %a: f32[1] = Relu(%x)  # \"relu\\r\"\n"
      "  %b: f32[1] = Neg(%a)  # \"two\\nlines\"\n"
      "  %c: f32[1] = Neg(%b)  # \"\\\"quoted\\\"\"\n"
      "  %d: f32[1] = Neg(%c)  # \" lead\"\n"
      "  %e: f32[1] = Neg(%d)  # plain name, with \"quotes\" inside\n"
      "  output %e\n"
      "}\n";
  expect_round_trip(text);
  auto g = parse_graph(text);
  std::vector<std::string> names;
  for (const Node* n : g->nodes()) names.push_back(n->name());
  EXPECT_EQ(names, (std::vector<std::string>{"relu\r", "two\nlines", "\"quoted\"", " lead",
                                             "plain name, with \"quotes\" inside"}));
  // A raw name whose line ends in CR LF loses the CR (a Windows line end), as before.
  EXPECT_EQ(parse_graph("graph g {\n  input %x: f32[1]\n  %y: f32[1] = Relu(%x)  # relu\r\n  output %y\n}\n")
                ->nodes()
                .front()
                ->name(),
            "relu");
}

TEST(TextIrParser, AcceptsUsesBeforeDefinitionsAndComments) {
  auto g = parse_graph(
      "# hand-written\n"
      "graph fwd {\n"
      "  input %x: f32[1]\n"
      "\n"
      "  %z: f32[1] = Neg(%y)\n"
      "  # y comes later\n"
      "  %y: f32[1] = Relu(%x)\n"
      "  output %z\n"
      "}\n");
  EXPECT_EQ(g->find_value("z")->producer()->input(0), g->find_value("y"));
  EXPECT_EQ(g->find_value("y")->dtype, DataType::Float32);
  EXPECT_EQ(g->topological_order().front()->op_type(), "Relu");
}

TEST(TextIrParser, ErrorsNameTheLineColumnAndWhatWasExpected) {
  EXPECT_EQ(parse_error("graph g {\n  input %x: f31[1]\n}\n"), "<text>:2:13: unknown dtype 'f31'");
  EXPECT_EQ(parse_error("graph g {\n  input %x: f32[1]\n  %y: f32[1] Relu(%x)\n}\n"),
            "<text>:3:14: expected '=' after the node's outputs, got 'Relu'");
  EXPECT_EQ(parse_error("graph g {\n  input %x: f32[1]\n  %y: f32[1] = Relu(%z)\n  output %y\n}\n"),
            "<text>:3:21: value '%z' is used but never defined");
  EXPECT_EQ(parse_error("graph g {\n  input %x: f32[1]\n  %x: f32[1] = Relu(%x)\n}\n"),
            "<text>:3:3: value '%x' is defined twice (first on line 2)");
  EXPECT_EQ(parse_error("graph g {\n  output %nowhere\n}\n"), "<text>:2:10: value '%nowhere' is used but never defined");
  EXPECT_EQ(parse_error("graph g {\n  const %w: f32[2] = [1]\n}\n"),
            "<text>:2:22: expected 2 elements for f32[2], got 1");
  EXPECT_EQ(parse_error("graph g {\n  input %x: f32[1]@NCWH\n}\n"), "<text>:2:20: unknown format 'NCWH'");
  EXPECT_EQ(parse_error("graph g {\n  input %x: f32[1]\n"), "<text>:3:1: expected '}' closing the graph, got end of text");
  EXPECT_EQ(parse_error("graph g {\n  %y: f32[1] = Relu(%x) {a=}\n}\n"),
            "<text>:2:28: expected an attribute value (3, 1.5, \"s\", [..], tensor<..>), got '}'");
  try {
    parse_graph("graph g {\n  bogus\n}\n", "tests/bad.geir");
    FAIL();
  } catch (const InvalidGraphError& e) {
    EXPECT_STREQ(e.what(), "tests/bad.geir:2:3: expected 'input', 'const', 'output', a node line or '}', got 'bogus'");
  }
}

// squeezenet1_1.geir is print_graph of /work/shared/models/squeezenet1_1/squeezenet1_1.onnx
// after ge::core::import_model (default manifest): a real importer's names ('/features/...',
// 'features.0.weight'), shapes and attributes, kept as text so this test needs only the SDK.
TEST(TextIrParser, RoundTripsSqueezeNet) {
  std::ifstream in(std::string(GE_SDK_TEST_DATA) + "/squeezenet1_1.geir");
  ASSERT_TRUE(in) << "missing " << GE_SDK_TEST_DATA << "/squeezenet1_1.geir";
  std::stringstream ss;
  ss << in.rdbuf();
  auto g = parse_graph(ss.str(), "squeezenet1_1.geir");
  EXPECT_EQ(print_graph(*g), ss.str());
  EXPECT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->outputs().size(), 1u);
  EXPECT_EQ(g->topological_order().size(), g->num_nodes());
  auto clone = g->clone();
  EXPECT_EQ(print_graph(*clone), ss.str());
}
