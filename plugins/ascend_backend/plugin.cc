// plugins/ascend_backend/plugin.cc — entry point of libge_ascend_backend.so: backend "ascend"
// (a functional emulator of the AI Core and AI CPU, docs/ascend.md), its kernels, format
// preferences, ge.Cast and the precision pass. Not in the default manifest: load it with
// `gec ... --manifest lib/ge/plugins/ascend.toml` (plugins/ascend_backend/ascend.toml).
#include "device_model.h"
#include "ge/sdk/plugin.h"
#include "kernels.h"
#include "offline_model.h"
#include "ops_info.h"
#include "precision.h"
#include "preferences.h"
#include "tiling_pass.h"

namespace {

class AscendBackend : public ge::Backend {
 public:
  std::string name() const override { return "ascend"; }
  std::string description() const override {
    return "ascend: functional emulator of an Ascend AI Core (Cube fp16 x fp16 -> fp32 in fractal order, Vector) "
           "and AI CPU (fp32) on the host";
  }
};

/// The [ascend] options with one type (ascend.keep_dtype and ascend.overflow_check_inputs take a
/// list or a file name: the precision pass checks them).
void declare_ascend_options(ge::Registrar& r) {
  using ge::OptionType;
  using ge::OptionPhase;
  r.declare_option({"ascend.precision_mode", OptionType::String, std::string("force_fp16"), {}, {},
                    {"force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype"},
                    "precision mode of the AI Core ops (docs/ascend.md \"Precision modes\")", OptionPhase::Compile, ""});
  r.declare_option({"ascend.soc_version", OptionType::String, std::string("Ascend910A"), {}, {}, {},
                    "the SoC's platform file (platforms/NAME.toml); an .om is checked against its own", OptionPhase::Run, ""});
  r.declare_option({"ascend.modify_mixlist", OptionType::String, std::string(""), {}, {}, {},
                    "a file changing the white/black/gray lists of allow_mix_precision", OptionPhase::Compile, ""});
  r.declare_option({"ascend.overflow_check", OptionType::String, std::string("off"), {}, {}, {"off", "error", "keep"},
                    "run the fp32 graph once and refuse (error) or keep in fp32 (keep) nodes whose values exceed fp16",
                    OptionPhase::Compile, ""});
}

void register_ascend(ge::Registrar& r) {
  // The op information library (ops_info.toml) is parsed here, so a malformed entry fails the
  // plugin's registration, naming the file and line, instead of a later compile.
  (void)ge::ascend::all_op_infos();
  declare_ascend_options(r);
  r.add_backend(std::make_shared<AscendBackend>());
  ge::ascend::register_cast_op(r);
  ge::ascend::register_cube_kernels(r);
  ge::ascend::register_conv_transpose_kernel(r);
  ge::ascend::register_vector_kernels(r);
  ge::ascend::register_pool_kernels(r);
  ge::ascend::register_row_kernels(r);
  ge::ascend::register_fused_vector_kernels(r);
  ge::ascend::register_data_kernels(r);
  ge::ascend::register_move_kernels(r);
  ge::ascend::register_aicpu_kernels(r);  // + the AI CPU engine: the cpu backend's kernels (KernelDelegate)
  ge::ascend::register_preferences(r);
  r.add_pass(ge::ascend::make_precision_pass(r.plugin_dir() + "/ascend/platforms"));
  // Stage::Layout: runs after the layout plugin's pass (this plugin is loaded after it).
  r.add_pass(ge::ascend::make_tiling_pass(r.plugin_dir() + "/ascend/platforms"));
  ge::ascend::register_offline_model(r);  // plan section "ascend.om": the offline model
  // Timing (docs/ascend.md "Cycle model"): the schedulers estimate with the cycle
  // model; gec run / profile show the simulated device time.
  const std::string platforms = r.plugin_dir() + "/ascend/platforms";
  r.add_cost_model("ascend", [platforms](const ge::OptionReader& o) -> std::shared_ptr<const ge::CostModel> {
    return std::make_shared<ge::ascend::AscendCostModel>(ge::ascend::platform_for(platforms, o));
  });
  r.add_device_simulator("ascend", [platforms](const ge::Graph& g, const ge::OptionReader& o) {
    return ge::ascend::simulate_graph(g, *ge::ascend::platform_for(platforms, g, o), true);
  });
}

}  // namespace

GE_PLUGIN("ascend_backend", "0.1.0", register_ascend)
