// tests/fuzz/fuzz_onnx_import.cc — the whole ONNX import from model bytes: protobuf parsing, the
// tensor checks, onnx's version converter and shape inference, the conversion to ge::Graph, GE's
// registry checks and shape propagation with constant folding on the cpu backend's kernels,
// function expansion, and the verifier (core::import_model, on bytes instead of a file); then the
// same bytes through the import that keeps symbolic dims and its consistency check
// (ge/core/symbolic.h), whose probing runs the registry's inference at many shapes.
//
// Built twice: fuzz_onnx_import mutates raw bytes; fuzz_onnx_proto (GE_FUZZ_ONNX_MUTATOR) adds
// onnx_mutator.cc's LLVMFuzzerCustomMutator, which mutates the parsed ModelProto.
#include <filesystem>
#include <fstream>
#include <memory>

#include "fuzz_common.h"
#include "ge/core/environment.h"
#include "ge/core/importer.h"
#include "ge/core/manifest.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/symbolic.h"
#include "ge/sdk/verifier.h"

namespace {

const ge::core::Environment* g_env = nullptr;
std::string g_base_dir;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ge::fuzz::quiet_log();
  static std::unique_ptr<ge::core::Environment> env =
      ge::core::load_environment(ge::core::load_manifest(ge::core::default_manifest_path()));
  g_env = env.get();
  // External data resolves inside this folder; one file is there for a fuzzed location to name.
  g_base_dir = ge::fuzz::scratch_dir() + "/model";
  std::filesystem::create_directories(g_base_dir);
  std::ofstream(g_base_dir + "/weights.bin", std::ios::binary) << std::string(4096, '\x3f');
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  ge::fuzz::expect_clear_error("fuzz_onnx_import", [&] {
    ge::core::ImportOptions opts;
    std::unique_ptr<ge::Graph> g = ge::core::load_onnx_bytes(std::move(bytes), "fuzz.onnx", g_base_dir, opts.frontend);
    ge::core::propagate_shapes(*g, *g_env, opts);
    ge::verify_graph_or_throw(*g, nullptr);
  });
  ge::fuzz::expect_clear_error("fuzz_onnx_import (symbolic)", [&] {
    ge::core::ImportOptions opts;
    std::string again(reinterpret_cast<const char*>(data), size);
    ge::core::SymbolicImport s = ge::core::import_symbolic_bytes(*g_env, std::move(again), "fuzz.onnx", g_base_dir, opts);
    ge::core::verify_symbolic(*s.graph, *g_env);
  });
  return 0;
}
