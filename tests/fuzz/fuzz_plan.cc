// tests/fuzz/fuzz_plan.cc — the plan loader (core::parse_plan, ge/core/plan.h): the preamble, the
// protobuf header, the graph conversion (plan_graph.cc), the invariants, the backend sections
// (plan_sections.cc), the dynamic-plan gears; then what loading a plan does next (gec run,
// Session): the load-time passes and the Executable, whose kernels are built from the stored
// attributes.
//
// Built twice: fuzz_plan loads plans of the default manifest (cpu backend); fuzz_om
// (GE_FUZZ_ASCEND) loads Ascend offline models (.om: plans of backend "ascend" whose "ascend.om"
// section the ascend plugin validates against the graph, offline_model.cc / om_section.cc) in
// the ascend manifest's environment.
//
// The file size field and the checksum are rewritten before parsing (reseal_plan): a mutation
// would otherwise almost always stop at the checksum, and the parser behind it is the target.
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_common.h"
#include "ge/core/dynamic.h"
#include "ge/core/environment.h"
#include "ge/core/manifest.h"
#include "ge/core/plan.h"
#include "ge/core/runtime.h"

namespace {

const ge::core::Environment* g_env = nullptr;

#ifdef GE_FUZZ_ASCEND
constexpr const char* kTarget = "fuzz_om";
std::string manifest_path() { return ge::core::backend_manifest_path("ascend"); }
#else
constexpr const char* kTarget = "fuzz_plan";
std::string manifest_path() { return ge::core::default_manifest_path(); }
#endif

// Where the preamble keeps the file size (ge/core/plan.h; core/src/plan_file.cc).
constexpr size_t kPreamble = 128, kOffFileSize = 56;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ge::fuzz::quiet_log();
  static std::unique_ptr<ge::core::Environment> env =
      ge::core::load_environment(ge::core::load_manifest(manifest_path()));
  g_env = env.get();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A mapped file is page-aligned and the weights 64-byte aligned within it; so is this copy.
  auto bytes = std::make_shared<std::vector<uint8_t>>(data, data + size);
  if (size >= kPreamble) {
    const uint64_t n = size;
    std::memcpy(bytes->data() + kOffFileSize, &n, sizeof n);
    ge::core::reseal_plan(*bytes);
  }
  ge::fuzz::expect_clear_error(kTarget, [&] {
    ge::core::PlanContents c = ge::core::parse_plan(bytes->data(), bytes->size(), bytes, *g_env, "fuzz.plan");
    std::vector<std::shared_ptr<ge::Graph>> graphs;
    if (c.dynamic)
      for (auto& gg : c.dynamic->gears) graphs.push_back(gg.graph);
    else
      graphs.push_back(c.graph);
    for (auto& g : graphs) {
      ge::core::run_load_time_passes(*g, *g_env, c.backend, {});
      ge::core::Executable exe(g, *g_env, ge::core::ExecOptions{.backend = c.backend, .threads = 1, .serialize_streams = false, .arena = {}});
    }
  });
  return 0;
}
