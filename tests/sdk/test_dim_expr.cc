// Symbolic dims (ge/sdk/dim_expr.h): canonical forms, floor division rules, evaluation, text.
#include "ge/sdk/dim_expr.h"

#include <gtest/gtest.h>

#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"

namespace {

using ge::DimExpr;

DimExpr S(const char* n) { return DimExpr::symbol(n); }
DimExpr P(const char* t) { return DimExpr::parse(t); }

TEST(DimExpr, CanonicalSumsAndProducts) {
  const DimExpr b = S("batch"), s = S("sequence");
  EXPECT_EQ((s + s).str(), "2*sequence");
  EXPECT_EQ((s - s).str(), "0");
  EXPECT_TRUE((s - s).is_constant());
  EXPECT_EQ(((b + DimExpr(1)) * s).str(), "batch*sequence+sequence");
  EXPECT_EQ(b * s, s * b);
  EXPECT_EQ((s + DimExpr(1)).str(), "sequence+1");
  EXPECT_EQ((DimExpr(2) * s - DimExpr(1)).str(), "2*sequence-1");
  EXPECT_EQ((-s).str(), "-sequence");
  EXPECT_EQ(s.as_symbol(), "sequence");
  EXPECT_EQ((DimExpr(2) * s).as_symbol(), "");
  EXPECT_EQ(DimExpr(7).constant(), 7);
  EXPECT_THROW(s.constant(), ge::Error);
}

TEST(DimExpr, FloorDivisionRules) {
  const DimExpr h = S("H");
  // A multiple of the divisor leaves the floor: (2*H)/2 = H, (4*H+6)/2 = 2*H+3.
  EXPECT_EQ(DimExpr::floor_div(DimExpr(2) * h, 2), h);
  EXPECT_EQ(DimExpr::floor_div(DimExpr(4) * h + DimExpr(6), 2).str(), "2*H+3");
  // The numerator's constant is kept in [0, k): (H-1)/2 + 1 = (H+1)/2 (the stride-2 3x3 Conv
  // with pads 1: floor((H + 2 - 3)/2) + 1).
  EXPECT_EQ(DimExpr::floor_div(h - DimExpr(1), 2) + DimExpr(1), DimExpr::floor_div(h + DimExpr(1), 2));
  EXPECT_EQ((DimExpr::floor_div(h - DimExpr(1), 2) + DimExpr(1)).str(), "(H+1)/2");
  // Nested divisions: (H/2)/16 = H/32.
  EXPECT_EQ(DimExpr::floor_div(DimExpr::floor_div(h, 2), 16).str(), "H/32");
  // resnet50's stem and max pool: ((H+1)/2 + 1)/2 = (H+3)/4, then (H+7)/8 per stride-2 stage.
  const DimExpr stem = DimExpr::floor_div(h + DimExpr(1), 2);
  EXPECT_EQ(DimExpr::floor_div(stem + DimExpr(1), 2).str(), "(H+3)/4");
  EXPECT_EQ(DimExpr::floor_div(DimExpr::floor_div(stem + DimExpr(1), 2) + DimExpr(1), 2).str(), "(H+7)/8");
  for (int64_t x = 1; x < 200; ++x)
    EXPECT_EQ(DimExpr::floor_div(stem + DimExpr(1), 2).evaluate({{"H", x}}), ((x + 1) / 2 + 1) / 2) << x;
  EXPECT_EQ(DimExpr::ceil_div(h, 2).str(), "(H+1)/2");
  EXPECT_EQ(DimExpr::mod(DimExpr(2) * h + DimExpr(1), 2).str(), "1");
  // A remainder prints as one, and parses back to the same expression.
  EXPECT_EQ(DimExpr::mod(h, 3).str(), "H%3");
  EXPECT_EQ(DimExpr::mod(h + DimExpr(1), 4).str(), "(H+1)%4");
  EXPECT_EQ((DimExpr::mod(h, 3) + DimExpr(2)).str(), "H%3+2");
  EXPECT_EQ((DimExpr::mod(h, 3) - h).str(), "-3*(H/3)");
  for (const DimExpr& e : {DimExpr::mod(h, 3), DimExpr::mod(h + DimExpr(1), 4), DimExpr::mod(h, 3) + DimExpr(2)})
    EXPECT_EQ(DimExpr::parse(e.str()), e) << e.str();
  EXPECT_EQ(DimExpr::floor_div(DimExpr(-7), 2).constant(), -4);  // floor, not truncation
  EXPECT_THROW(DimExpr::floor_div(h, 0), ge::Error);
}

TEST(DimExpr, Evaluates) {
  const std::map<std::string, int64_t> b{{"H", 225}, {"W", 7}};
  EXPECT_EQ(P("(H+1)/2").evaluate(b), 113);
  EXPECT_EQ(P("H/32*W").evaluate(b), 7 * 7);
  EXPECT_EQ(P("H%4").evaluate(b), 1);
  EXPECT_EQ(P("2*(H/32)-W").evaluate(b), 7);
  try {
    P("batch+1").evaluate(b);
    FAIL() << "no error";
  } catch (const ge::Error& e) {
    EXPECT_NE(std::string(e.what()).find("symbol 'batch' has no value"), std::string::npos) << e.what();
  }
}

TEST(DimExpr, TextRoundTrips) {
  for (const char* t : {"batch", "2*sequence", "sequence+1", "H/32", "(H+1)/2", "batch*sequence", "2*(H/32)",
                        "((H+1)/2)*W", "2*sequence-1", "-sequence+3", "(H/32)*(W/32)"}) {
    const DimExpr e = P(t);
    EXPECT_EQ(DimExpr::parse(e.str()), e) << t << " printed as " << e.str();
  }
  // A leading minus before a division: -(H/2)+S, not -H/2+S (which reads (-H)/2).
  const DimExpr half = S("S") - DimExpr::floor_div(S("H"), 2);
  EXPECT_EQ(half.str(), "-(H/2)+S");
  EXPECT_EQ(P(half.str().c_str()), half);
  EXPECT_EQ(P("H-(H/2)").evaluate({{"H", 3}}), 2);
  EXPECT_EQ(P("(-H)/2").evaluate({{"H", 3}}), -2);
  // Left to right: 2*H/32 is (2*H)/32 = H/16, and prints so.
  EXPECT_EQ(P("2*H/32").str(), "H/16");
  EXPECT_EQ(P(" batch * sequence ").str(), "batch*sequence");
}

TEST(DimExpr, ParseErrorsNameTheText) {
  auto msg = [](const char* t) {
    try {
      DimExpr::parse(t);
    } catch (const ge::Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(msg("H/W"), "dimension 'H/W': the right side of '/' must be a positive integer constant at character 3");
  EXPECT_EQ(msg("H+"), "dimension 'H+': expected a dimension at character 3");
  EXPECT_EQ(msg("(H"), "dimension '(H': expected ')' at character 3");
  EXPECT_EQ(msg("H$"), "dimension 'H$': unexpected '$' at character 2");
  EXPECT_NE(msg("99999999999999999999").find("integer out of range"), std::string::npos);
  EXPECT_NE(msg(std::string(200, '(').c_str()).find("nested too deeply"), std::string::npos);
  // A product of sums multiplies out: bounded, not exponential.
  std::string big = "(a+b+c+d)";
  for (int i = 0; i < 5; ++i) big += "*(a+b+c+d)";  // 84 terms
  EXPECT_NE(msg(big.c_str()).find("more than 64 terms"), std::string::npos) << msg(big.c_str());
  EXPECT_NE(msg("s-9223372036854775807-1").find("coefficient out of range"), std::string::npos);
  // A remainder repeats its operand and a division names its numerator: a chain of them doubled
  // the text per step (a fuzz input of 30 took minutes and gigabytes); bounded now.
  std::string chain = "H";
  for (int i = 0; i < 30; ++i) chain += "%57/7";
  EXPECT_NE(msg(chain.c_str()).find("a term over 1024 characters"), std::string::npos) << msg(chain.c_str());
  // A short chain still parses and means what it says.
  const DimExpr e = DimExpr::parse("H%57/7");
  EXPECT_EQ(e.evaluate({{"H", 100}}), 100 % 57 / 7);
}

TEST(DimExprTextIr, PrintsAndParsesSymbolicDims) {
  const std::string text =
      "graph g opset(ai.onnx=13) {\n"
      "  input %x: f32[batch,(H+1)/2,64]\n"
      "  %y: f32[batch,(H+1)/2,64] = Relu(%x)\n"
      "  output %y\n"
      "}\n";
  auto g = ge::parse_graph(text);
  const ge::Value* x = g->find_value("x");
  ASSERT_NE(x->symbolic_dims(), nullptr);
  EXPECT_EQ(ge::dims_str(*x->symbolic_dims()), "[batch,(H+1)/2,64]");
  EXPECT_EQ(x->shape, (ge::Shape{-1, -1, 64}));  // -1 on each symbolic axis
  ge::TextIrOptions o;
  o.show_node_names = false;
  EXPECT_EQ(ge::print_graph(*g, o), text);
  // A clone keeps them.
  EXPECT_EQ(ge::print_graph(*g->clone(), o), text);
}

TEST(DimExprTextIr, RefusesSymbolicConstantsAndBadDims) {
  auto msg = [](const std::string& t) {
    try {
      ge::parse_graph(t);
    } catch (const ge::Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(msg("graph g {\n  const %c: f32[batch]\n}\n").find("constant '%c' has a symbolic shape [batch]"), std::string::npos);
  EXPECT_NE(msg("graph g {\n  input %x: f32[H/W]\n}\n").find("the right side of '/' must be a positive integer constant"),
            std::string::npos);
  EXPECT_NE(msg("graph g {\n  input %x: f32[-2]\n}\n").find("dimension -2 is negative"), std::string::npos);
  EXPECT_NE(msg("graph g {\n  input %x: f32[-H]\n}\n").find("dimension -H is negative for every value of its symbols"),
            std::string::npos);
}

}  // namespace
