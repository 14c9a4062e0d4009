// tests/sanitize/sanitizer_canary.cc — one defect per mode, for the tests that check a sanitizer
// build (GE_SANITIZE, cmake/GeSanitize.cmake) as scripts/test --sanitize runs it: each defect
// must end in a report and a non-zero exit, and "clean" in exit 0 with no report.
//   sanitizer_canary leak | heap-overflow | use-after-free | signed-overflow | clean
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
void* volatile g_block;
// Opaque to the optimizer: the defects below must happen at run time, not be folded away.
volatile int g_sink;
int opaque(int v) {
  volatile int x = v;
  return x;
}
}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "leak") {
    // A block only this global knew of, lost when it is overwritten: LeakSanitizer at exit.
    g_block = new int[64];
    g_block = nullptr;
    std::printf("leaked\n");
    return 0;
  }
  if (mode == "heap-overflow") {
    int* p = new int[8];
    p[opaque(8)] = 1;  // one past the end
    g_sink = p[0];
    delete[] p;
    return 0;
  }
  if (mode == "use-after-free") {
    int* p = new int[8];
    delete[] p;
    g_sink = p[opaque(0)];
    return 0;
  }
  if (mode == "signed-overflow") {
    int big = opaque(2147483647);
    g_sink = big + opaque(1);  // [expr.pre]/4: undefined
    return 0;
  }
  if (mode == "clean") {
    int* p = new int[8];
    std::memset(p, 0, 8 * sizeof(int));
    g_sink = p[opaque(7)];
    delete[] p;
    return 0;
  }
  std::fprintf(stderr, "usage: sanitizer_canary leak|heap-overflow|use-after-free|signed-overflow|clean\n");
  return 2;
}
