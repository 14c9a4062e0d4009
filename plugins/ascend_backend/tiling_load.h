// plugins/ascend_backend/tiling_load.h — what a kernel reads back from its node at build (= plan
// / offline model load) time: the stored engine and tiling (tiling.h), decoded, checked against
// the platform's buffers (check()) and against the node itself (batch/M/N/K or units/
// unit_elements/ub_bytes_per_unit recomputed from its shapes by tiling_choose.h). A node without
// the attributes (a graph not compiled by ascend_tiling, e.g. an older plan) is refused: the
// emulator never invents a tiling the offline model does not carry.
#pragma once
#include <optional>
#include <string>

#include "ge/sdk/ir.h"
#include "ge/sdk/kernel.h"
#include "placement.h"
#include "platform.h"
#include "tiling.h"

namespace ge::ascend {

/// platforms/<soc>.toml in `dir`, read once per (dir, soc) for the process (thread-safe).
const Platform& cached_platform(const std::string& dir, const std::string& soc);

struct StoredTask {
  Engine engine = Engine::AiCpu;
  std::optional<CubeTiling> cube;      ///< engine == Cube
  std::optional<VectorTiling> vector;  ///< engine == Vector
};

/// Reads and verifies the node's ascend_* attributes. Throws ge::Error "ascend: node 'x' (Op):
/// ..." for a missing attribute, an unknown engine, an engine the op has no kernel for, a tiling
/// that does not decode, does not fit the platform (check()) or does not match the node
/// ("corrupted tiling: M = … but the node's shapes give …"), or block_dim ≠ the tiling's.
StoredTask load_task(const Node& n, const std::string& platform_dir);

/// `f` preceded by load_task's check that the node is stored as an AI CPU task (for the kernels
/// that exist only on the AI CPU).
KernelFactory aicpu_only(KernelFactory f, const std::string& platform_dir);

/// The platform directory of the kernels registered by this plugin.
std::string platform_dir_of(const std::string& plugin_dir);

}  // namespace ge::ascend
