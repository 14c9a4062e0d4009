// The precision modes on small text-IR graphs, running only the `ascend_precision` pass: which
// node computes in which dtype under each mode (exact expected values), allow_mix_precision's
// lists and the user's modify_mixlist, keep_dtype (array and file), strict numerics, the errors
// naming the file / key / op / node, and the graph before and after the pass.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "ascend_harness.h"
#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/pipeline.h"
#include "ge/sdk/precision_lists.h"

namespace ge::ascend {
namespace {

namespace fs = std::filesystem;

// conv (Cube, white) → relu (gray) → sqrt (black) → add(sqrt, relu) (gray) ; mul(relu, relu)
// (gray) ; concat(add, mul) (gray) → flat (AI CPU, fp32 only) → output.
const char* kGraph = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,4,2,2]
  const %w: f32[4,4,1,1]
  %c: f32[1,4,2,2] = Conv(%x, %w)  # conv
  %r: f32[1,4,2,2] = Relu(%c)  # relu
  %s: f32[1,4,2,2] = Sqrt(%r)  # sqrt
  %a: f32[1,4,2,2] = Add(%s, %r)  # add
  %m: f32[1,4,2,2] = Mul(%r, %r)  # mul
  %o: f32[1,8,2,2] = Concat(%a, %m) {axis=1}  # cat
  %out: f32[1,32] = Flatten(%o) {axis=1}  # flat
  output %out
})";

struct Compiled {
  std::unique_ptr<Graph> g;
  std::map<std::string, int64_t> counters;
  int64_t c(const std::string& k) const { return counters.count(k) ? counters.at(k) : 0; }
};

/// Parses `text` and runs only ascend_precision under `mode` with the overrides.
Compiled precision_only(const std::string& text, const std::string& mode, const std::vector<std::string>& overrides = {},
                        bool strict = false) {
  auto env = test::ascend_env(mode, overrides);
  Compiled r;
  r.g = parse_graph(text, "test");
  core::ImportOptions io;
  core::propagate_shapes(*r.g, *env, io);
  core::CompileOptions o = core::CompileOptions::from_manifest(env->manifest);
  o.backend = "ascend";
  o.strict_numerics = strict;
  o.fail_on_pass_error = true;
  o.only = std::vector<std::string>{"ascend_precision"};
  r.counters = core::compile_graph(*r.g, *env, o).counters;
  return r;
}

/// "conv:f16 relu:f32 ..." — the output dtype of each named node, in kGraph's order.
std::string dtypes(const Graph& g) {
  std::string s;
  for (const char* name : {"conv", "relu", "sqrt", "add", "mul", "cat", "flat"})
    for (const Node* n : g.nodes())
      if (n->name() == name)
        s += std::string(s.empty() ? "" : " ") + name + ":" + (n->output(0)->dtype == DataType::Float16 ? "f16" : "f32");
  return s;
}

/// The Casts inserted, as "value:from->to" sorted.
std::string casts(const Compiled& r) {
  std::string s;
  for (auto& [k, v] : r.counters)
    if (k.rfind("ascend.cast.", 0) == 0) s += (s.empty() ? "" : " ") + k.substr(12);
  return s;
}

std::string error_of(const std::string& text, const std::string& mode, const std::vector<std::string>& overrides,
                     bool strict = false) {
  try {
    precision_only(text, mode, overrides, strict);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("ge_ascend_precision_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p;
}

TEST(AscendPrecisionModes, EachModeChoosesTheDtypeOfEveryNode) {
  const Compiled f = precision_only(kGraph, "force_fp16");
  // flat (a dtype follower) follows cat into fp16; the graph output's Cast comes after it.
  EXPECT_EQ(dtypes(*f.g), "conv:f16 relu:f16 sqrt:f16 add:f16 mul:f16 cat:f16 flat:f16");
  EXPECT_EQ(casts(f), "out_fp16:fp16->fp32 x:fp32->fp16");
  EXPECT_EQ(f.c("ascend.precision.fp16_ops"), 6);
  EXPECT_EQ(f.c("ascend.precision.fp16_follow"), 1);
  EXPECT_EQ(f.c("ascend.casts.constants"), 1);  // w, converted at compile time

  // Matrix ops in fp16, every Vector op keeps fp32 (each has an fp32 implementation).
  const Compiled a = precision_only(kGraph, "allow_fp32_to_fp16");
  EXPECT_EQ(dtypes(*a.g), "conv:f16 relu:f32 sqrt:f32 add:f32 mul:f32 cat:f32 flat:f32");
  EXPECT_EQ(casts(a), "c:fp16->fp32 x:fp32->fp16");
  EXPECT_EQ(a.c("ascend.precision.fp32.vector"), 5);

  // white conv; relu follows it (gray); sqrt black; add reads sqrt (fp32) so stays fp32; mul
  // reads relu only (fp16); cat reads add (fp32).
  const Compiled m = precision_only(kGraph, "allow_mix_precision");
  EXPECT_EQ(dtypes(*m.g), "conv:f16 relu:f16 sqrt:f32 add:f32 mul:f16 cat:f32 flat:f32");
  EXPECT_EQ(casts(m), "m:fp16->fp32 r:fp16->fp32 x:fp32->fp16");  // r: one Cast for sqrt and add
  EXPECT_EQ(m.c("ascend.precision.kept.sqrt:black"), 1);
  EXPECT_EQ(m.c("ascend.precision.fp32.gray"), 2);

  const Compiled k = precision_only(kGraph, "must_keep_origin_dtype");
  EXPECT_EQ(dtypes(*k.g), "conv:f32 relu:f32 sqrt:f32 add:f32 mul:f32 cat:f32 flat:f32");
  EXPECT_EQ(casts(k), "");
  EXPECT_EQ(k.c("ascend.placement.aicpu.Conv"), 1);  // the Cube has no fp32
}

TEST(AscendPrecisionModes, KeepDtypeByNameByOpTypeAndFromAFile) {
  const Compiled a = precision_only(kGraph, "force_fp16", {R"(ascend.keep_dtype=["relu"])"});
  EXPECT_EQ(dtypes(*a.g), "conv:f16 relu:f32 sqrt:f16 add:f16 mul:f16 cat:f16 flat:f16");
  EXPECT_EQ(casts(a), "c:fp16->fp32 out_fp16:fp16->fp32 r:fp32->fp16 x:fp32->fp16");
  EXPECT_EQ(a.c("ascend.precision.kept.relu:keep_dtype"), 1);

  // Under allow_mix_precision a kept node also changes what its gray readers follow.
  const Compiled b = precision_only(kGraph, "allow_mix_precision", {R"(ascend.keep_dtype=["OpType::Relu"])"});
  EXPECT_EQ(dtypes(*b.g), "conv:f16 relu:f32 sqrt:f32 add:f32 mul:f32 cat:f32 flat:f32");

  // The vendor's file: one entry per line, '#' comments.
  const fs::path file = write_file("keep.cfg", "# kept in fp32\nconv\n\n  OpType::Mul  \n");
  const Compiled c = precision_only(kGraph, "force_fp16", {"ascend.keep_dtype=\"" + file.string() + "\""});
  EXPECT_EQ(dtypes(*c.g), "conv:f32 relu:f16 sqrt:f16 add:f16 mul:f32 cat:f16 flat:f16");
  EXPECT_EQ(c.c("ascend.placement.aicpu.Conv"), 1);
  fs::remove(file);

  EXPECT_NE(error_of(kGraph, "force_fp16", {R"(ascend.keep_dtype=["relu", "n99"])"}).find("no node named 'n99'"), std::string::npos);
  EXPECT_NE(error_of(kGraph, "force_fp16", {R"(ascend.keep_dtype=["OpType::Rleu"])"}).find("OpType::Rleu is not an op type"),
            std::string::npos);
  EXPECT_NE(error_of(kGraph, "force_fp16", {R"(ascend.keep_dtype="/nonexistent/keep.cfg")"}).find("cannot read keep_dtype file '/nonexistent/keep.cfg'"),
            std::string::npos);
  EXPECT_NE(error_of(kGraph, "force_fp16", {"ascend.keep_dtype=3"}).find("ascend.keep_dtype: value 3 must be an array"), std::string::npos);
}

TEST(AscendPrecisionModes, ModifyMixlistInTheVendorsJsonAndInToml) {
  // Sqrt black → white: sqrt, then add (now reading two fp16 values) and cat follow in fp16.
  const fs::path j = write_file("mix.json", R"({
  // the vendor's format (comments allowed)
  "white-list": { "to-add": ["Sqrt"] }
})");
  const Compiled a = precision_only(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + j.string() + "\""});
  EXPECT_EQ(dtypes(*a.g), "conv:f16 relu:f16 sqrt:f16 add:f16 mul:f16 cat:f16 flat:f16");

  // Conv white → black (added to black, removed from white as in the vendor's example): now
  // nothing before relu is fp16 and every gray op follows fp32.
  const fs::path t = write_file("mix.toml", "[black-list]\nto-add = [\"Conv\"]\n[white-list]\nto-remove = [\"Conv\"]\n");
  const Compiled b = precision_only(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + t.string() + "\""});
  EXPECT_EQ(dtypes(*b.g), "conv:f32 relu:f32 sqrt:f32 add:f32 mul:f32 cat:f32 flat:f32");
  EXPECT_EQ(b.c("ascend.precision.kept.conv:black"), 1);

  // Refusals name the file, the key and the op.
  const fs::path bad1 = write_file("bad1.json", R"({"black-list": {"to-remove": ["Conv"]}})");
  EXPECT_NE(error_of(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + bad1.string() + "\""})
                .find("key 'black-list.to-remove': op type 'Conv' is not in the black list (it is white)"),
            std::string::npos);
  const fs::path bad2 = write_file("bad2.json", R"({"white-list": {"to-add": ["Convv"]}})");
  EXPECT_NE(error_of(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + bad2.string() + "\""})
                .find("key 'white-list': op type 'Convv' is not defined by any loaded plugin"),
            std::string::npos);
  const fs::path bad3 = write_file("bad3.json", R"({"grey-list": {}})");
  EXPECT_NE(error_of(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + bad3.string() + "\""})
                .find("key 'grey-list': unknown key (known: black-list, white-list)"),
            std::string::npos);
  // Not JSON: GE's words, the file, and the line and column (from the parser's byte position).
  const fs::path bad4 = write_file("bad4.json", R"({"white-list": {"to-add": ["Sqrt"]})");
  EXPECT_NE(error_of(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + bad4.string() + "\""})
                .find("ascend.modify_mixlist file '" + bad4.string() + "' is not valid JSON: line 1, column 36: unexpected end of file"),
            std::string::npos);
  const fs::path bad6 = write_file("bad6.json", "{\n  \"white-list\": { \"to-add\": [\"Sqrt\"] },\n  \"black-list\": { \"to-add\": [\"Conv\" }\n}\n");
  const std::string e6 = error_of(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + bad6.string() + "\""});
  EXPECT_NE(e6.find("ascend.modify_mixlist file '" + bad6.string() + "' is not valid JSON: line 3, column 37: unexpected '}'"),
            std::string::npos) << e6;
  EXPECT_EQ(e6.find("json.exception"), std::string::npos) << e6;
  const fs::path bad5 = write_file("bad5.json", R"({"white-list": {"to-add": ["Sqrt"]}, "black-list": {"to-add": ["Sqrt"]}})");
  EXPECT_NE(error_of(kGraph, "allow_mix_precision", {"ascend.modify_mixlist=\"" + bad5.string() + "\""}).find("'Sqrt' is added to both lists"),
            std::string::npos);
  // Only allow_mix_precision reads the lists.
  EXPECT_NE(error_of(kGraph, "force_fp16", {"ascend.modify_mixlist=\"" + j.string() + "\""})
                .find("applies to precision_mode allow_mix_precision only; precision_mode is 'force_fp16'"),
            std::string::npos);
  for (const fs::path& p : {j, t, bad1, bad2, bad3, bad4, bad5, bad6}) fs::remove(p);
}

TEST(AscendPrecisionModes, StrictNumericsRefusesEveryModeButMustKeepOriginDtype) {
  for (const char* mode : {"force_fp16", "allow_fp32_to_fp16", "allow_mix_precision"})
    EXPECT_NE(error_of(kGraph, mode, {}, /*strict=*/true).find(std::string("precision_mode '") + mode + "' reduces precision"),
              std::string::npos)
        << mode;
  const Compiled k = precision_only(kGraph, "must_keep_origin_dtype", {}, /*strict=*/true);
  EXPECT_EQ(casts(k), "");
  EXPECT_NE(error_of(kGraph, "fp8", {}).find(
                "'ascend.precision_mode' must be one of \"force_fp16\", \"allow_fp32_to_fp16\", \"allow_mix_precision\", "
                "\"must_keep_origin_dtype\", not \"fp8\""),
            std::string::npos);
}

TEST(AscendPrecisionModes, TheShippedListsAreValidRegistryData) {
  // Every op type in the shipped lists (sdk/data/precision_lists.toml) is defined (the loader refuses unknown ones), and the
  // lists say what docs/ascend.md says.
  auto env = test::ascend_env("allow_mix_precision");
  const MixLists l = shipped_mix_lists(env->ops, "ascend");
  std::string white, black;
  for (auto& [op, c] : l.ops) (c == MixClass::White ? white : black) += op + " ";
  EXPECT_EQ(white, "Conv ConvTranspose Gemm MatMul ge.FusedConv ge.FusedMatMul ");
  EXPECT_EQ(black, "Pow ReduceMean Softmax Sqrt ge.LayerNormalization ");
  const fs::path bad = write_file("lists.toml", "white = [\"Conv\"]\nblack = [\"Conv\"]\n");
  try {
    load_mix_lists(bad.string(), env->ops, "ascend");
    ADD_FAILURE() << "an op in two lists was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'white': op type 'Conv' is also in 'black'"), std::string::npos) << e.what();
  }
  fs::remove(bad);
}

// Before (kGraph) / after: what allow_mix_precision leaves — w converted to fp16 at compile time,
// one Cast per value and direction, each before its readers.
TEST(AscendPrecisionModes, MixPrecisionBeforeAndAfter) {
  const Compiled m = precision_only(kGraph, "allow_mix_precision");
  EXPECT_EQ(print_graph(*m.g), R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,4,2,2]
  const %w_fp16: f16[4,4,1,1]
  %x_fp16: f16[1,4,2,2] = ge.Cast(%x) {to=10}  # Cast_1
  %c: f16[1,4,2,2] = Conv(%x_fp16, %w_fp16)  # conv
  %r: f16[1,4,2,2] = Relu(%c)  # relu
  %m: f16[1,4,2,2] = Mul(%r, %r)  # mul
  %m_fp32: f32[1,4,2,2] = ge.Cast(%m) {to=1}  # Cast_3
  %r_fp32: f32[1,4,2,2] = ge.Cast(%r) {to=1}  # Cast_2
  %s: f32[1,4,2,2] = Sqrt(%r_fp32)  # sqrt
  %a: f32[1,4,2,2] = Add(%s, %r_fp32)  # add
  %o: f32[1,8,2,2] = Concat(%a, %m_fp32) {axis=1}  # cat
  %out: f32[1,32] = Flatten(%o) {axis=1}  # flat
  output %out
}
)");
}


// Data movement between two Cubes: Reshape, Transpose (channel shuffle), Reshape, then Slice and
// Gather after the second. They only move bytes, so they follow their data input's dtype
// (precision_plan.h, dtype followers): no Cast between the Convs. Before they followed, force_fp16
// inserted 4 Casts here (x; c1 back to fp32 before the moves; r2 to fp16; c2 back to fp32).
const char* kMoves = R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8,4,4]
  const %w1: f32[8,8,1,1]
  const %w2: f32[8,8,1,1]
  const %s5: i64[5] = [1,2,4,4,4]
  const %s4: i64[4] = [1,8,4,4]
  const %st: i64[1] = [0]
  const %en: i64[1] = [4]
  const %ax: i64[1] = [1]
  const %i: i64[3] = [3,0,2]
  %c1: f32[1,8,4,4] = Conv(%x, %w1)  # c1
  %r1: f32[1,2,4,4,4] = Reshape(%c1, %s5)  # r1
  %t: f32[1,4,2,4,4] = Transpose(%r1) {perm=[0,2,1,3,4]}  # t
  %r2: f32[1,8,4,4] = Reshape(%t, %s4)  # r2
  %c2: f32[1,8,4,4] = Conv(%r2, %w2)  # c2
  %sl: f32[1,4,4,4] = Slice(%c2, %st, %en, %ax)  # sl
  %g: f32[1,4,3,4] = Gather(%sl, %i) {axis=2}  # g
  output %g
})";

std::string move_dtypes(const Graph& g) {
  std::string s;
  for (const char* name : {"c1", "r1", "t", "r2", "c2", "sl", "g"})
    for (const Node* n : g.nodes())
      if (n->name() == name)
        s += std::string(s.empty() ? "" : " ") + name + ":" + (n->output(0)->dtype == DataType::Float16 ? "f16" : "f32");
  return s;
}

TEST(AscendPrecisionModes, DataMovementFollowsItsInputsDtype) {
  // Every reducing mode makes both Convs fp16 (Cube ops are white and matrix ops), so the moves
  // follow in fp16: one Cast in (x), one out (the graph output g keeps fp32 after Gather).
  for (const char* mode : {"force_fp16", "allow_fp32_to_fp16", "allow_mix_precision"}) {
    SCOPED_TRACE(mode);
    const Compiled f = precision_only(kMoves, mode);
    EXPECT_EQ(move_dtypes(*f.g), "c1:f16 r1:f16 t:f16 r2:f16 c2:f16 sl:f16 g:f16");
    EXPECT_EQ(casts(f), "g_fp16:fp16->fp32 x:fp32->fp16");
    EXPECT_EQ(f.c("ascend.precision.fp16_ops"), 2);
    EXPECT_EQ(f.c("ascend.precision.fp16_follow"), 5);
    // Index inputs keep their integer dtypes.
    for (const Node* n : f.g->nodes()) {
      if (n->op_type() == "Gather" || n->op_type() == "Slice" || n->op_type() == "Reshape") {
        EXPECT_EQ(n->input(1)->dtype, DataType::Int64) << n->name();
      }
    }
  }
  // must_keep_origin_dtype: nothing changes.
  const Compiled k = precision_only(kMoves, "must_keep_origin_dtype");
  EXPECT_EQ(move_dtypes(*k.g), "c1:f32 r1:f32 t:f32 r2:f32 c2:f32 sl:f32 g:f32");
  EXPECT_EQ(casts(k), "");
  // keep_dtype on the Transpose keeps it fp32: r1 follows c1 (fp16) and is cast back, r2 follows
  // t (fp32) and is cast to fp16 for c2.
  const Compiled t = precision_only(kMoves, "force_fp16", {R"(ascend.keep_dtype=["t"])"});
  EXPECT_EQ(move_dtypes(*t.g), "c1:f16 r1:f16 t:f32 r2:f32 c2:f16 sl:f16 g:f16");
  EXPECT_EQ(casts(t), "g_fp16:fp16->fp32 r1:fp16->fp32 r2:fp32->fp16 x:fp32->fp16");
  // A move reading a graph input (fp32, not computed in fp16) stays fp32 and gets no Cast.
  const Compiled h = precision_only(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8,4,4]
  const %w: f32[8,8,1,1]
  %t: f32[1,8,4,4] = Transpose(%x) {perm=[0,1,3,2]}  # t
  %c: f32[1,8,4,4] = Conv(%t, %w)  # c
  output %c
})", "force_fp16");
  EXPECT_EQ(casts(h), "c_fp16:fp16->fp32 t:fp32->fp16");
  // A graph output also read by a move: the move reads the output's fp16 twin (no Cast back to
  // fp16), and so does the Conv after it.
  const Compiled o = precision_only(R"(graph g opset(ai.onnx=13) {
  input %x: f32[1,8,4,4]
  const %w: f32[8,8,1,1]
  const %s: i64[4] = [1,8,2,8]
  %c: f32[1,8,4,4] = Conv(%x, %w)  # c
  %r: f32[1,8,2,8] = Reshape(%c, %s)  # r
  %d: f32[1,8,2,8] = Conv(%r, %w)  # d
  output %c
  output %d
})", "force_fp16");
  EXPECT_EQ(casts(o), "c_fp16:fp16->fp32 d_fp16:fp16->fp32 x:fp32->fp16");
  for (const Node* n : o.g->nodes()) {
    if (n->op_type() == "Reshape") {
      EXPECT_EQ(n->input(0)->name(), "c_fp16");
    }
  }

  // End to end (every pass, the ascend kernels run the fp16 moves): two Casts, close to the CPU.
  auto cpu = test::cpu_env();
  auto env = test::ascend_env("force_fp16");
  auto in = test::random_inputs(*test::parse(*cpu, kMoves));
  auto ref = test::compile_and_run(test::parse(*cpu, kMoves), *cpu, "cpu", in);
  auto run = test::compile_and_run(test::parse(*env, kMoves), *env, "ascend", in);
  EXPECT_EQ(run.counters["ascend.casts.to_fp16"], 1);
  EXPECT_EQ(run.counters["ascend.casts.to_fp32"], 1);
  const double e = test::rel_l2(run.outputs.at(0), ref.outputs.at(0));
  std::printf("moves between two Convs, force_fp16: rel L2 %.3e\n", e);
  EXPECT_GT(e, 0.0);
  EXPECT_LE(e, 5e-3);
}

}  // namespace
}  // namespace ge::ascend
