// plugins/ascend_backend/precision.h — the precision modes (issue 9 item 2) and the pass that
// applies them: `ascend_precision` (Stage::Fusion, after the fusion rules, before the layout pass).
#pragma once
#include <memory>
#include <string>

#include "ge/sdk/pass.h"

namespace ge::ascend {

enum class PrecisionMode { ForceFp16, MustKeepOriginDtype };

/// "force_fp16" (default) | "must_keep_origin_dtype"; the vendor's other names
/// (allow_fp32_to_fp16, allow_mix_precision) are refused as not implemented yet; anything else
/// is a ConfigError listing the modes.
PrecisionMode precision_mode_from_name(const std::string& name);

/// The pass. `platform_dir` holds platforms/<soc>.toml (the pass validates
/// `[ascend] soc_version`, default Ascend910A, and reports its AI Core count).
std::shared_ptr<Pass> make_precision_pass(std::string platform_dir);

/// Adds ge.Cast's definition and shape inference.
void register_cast_op(class Registrar& r);

}  // namespace ge::ascend
