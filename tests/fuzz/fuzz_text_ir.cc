// tests/fuzz/fuzz_text_ir.cc — the text-IR parser (ge::parse_graph, ge/sdk/text_ir.h) and its
// round trip: what parses prints, and the printed text parses back to the same print
// (print_graph(*parse_graph(print_graph(g))) == print_graph(g), as text_ir.h promises).
#include <cstdio>
#include <cstdlib>

#include "fuzz_common.h"
#include "ge/sdk/text_ir.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ge::fuzz::quiet_log();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<ge::Graph> g;
  std::string err = ge::fuzz::expect_clear_error("fuzz_text_ir", [&] { g = ge::parse_graph(text, "fuzz.ir"); });
  if (!g) return 0;
  ge::TextIrOptions opts;
  opts.max_const_elements = 16;
  const std::string printed = ge::print_graph(*g, opts);
  std::unique_ptr<ge::Graph> back;
  err = ge::fuzz::expect_clear_error("fuzz_text_ir", [&] { back = ge::parse_graph(printed, "printed.ir"); });
  if (!back) {
    std::fprintf(stderr, "fuzz_text_ir: the printed graph does not parse back: %s\n%s\n", err.c_str(), printed.c_str());
    std::abort();
  }
  const std::string again = ge::print_graph(*back, opts);
  if (again != printed) {
    std::fprintf(stderr, "fuzz_text_ir: print/parse round trip differs:\n--- printed\n%s--- reprinted\n%s", printed.c_str(),
                 again.c_str());
    std::abort();
  }
  return 0;
}
