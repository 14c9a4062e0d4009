// plugins/ascend_backend/precision.h — the precision modes (docs/ascend.md "Precision modes", the vendor's ATC
// `--precision_mode` names) and the pass that applies them: `ascend_precision` (Stage::Fusion,
// after the fusion rules, before the layout pass). docs/ascend.md describes each mode.
#pragma once
#include <memory>
#include <string>

#include "ge/sdk/pass.h"

namespace ge::ascend {

enum class PrecisionMode { ForceFp16, AllowFp32ToFp16, AllowMixPrecision, MustKeepOriginDtype };

/// "force_fp16" (default) | "allow_fp32_to_fp16" | "allow_mix_precision" |
/// "must_keep_origin_dtype"; anything else is a ConfigError listing the modes.
PrecisionMode precision_mode_from_name(const std::string& name);
std::string precision_mode_name(PrecisionMode m);

/// The pass. `platform_dir` holds platforms/<soc>.toml (the pass validates
/// `[ascend] soc_version`, default Ascend910A, and reports its AI Core count); the
/// allow_mix_precision lists are the SDK's (ge/sdk/precision_lists.h).
std::shared_ptr<Pass> make_precision_pass(std::string platform_dir);

/// Adds ge.Cast's definition and shape inference.
void register_cast_op(class Registrar& r);

}  // namespace ge::ascend
