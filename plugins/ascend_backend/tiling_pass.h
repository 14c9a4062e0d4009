// plugins/ascend_backend/tiling_pass.h — `ascend_tiling` (Stage::Layout, every level, after the
// layout pass): places every node by cost and stores its engine, block_dim, tiling and reason
// (tiling.h's attributes, plus ascend_soc_version) — docs/ascend.md, "Placement" and "Tiling".
#pragma once
#include <memory>
#include <string>

#include "ge/sdk/pass.h"

namespace ge::ascend {

/// `platform_dir` holds platforms/<soc>.toml; the SoC is `[ascend] soc_version` (default
/// Ascend910A, declared by ascend_precision).
std::shared_ptr<Pass> make_tiling_pass(std::string platform_dir);

}  // namespace ge::ascend
