// tests/difftest/configs.h — the configurations a generated graph is compared across, and one
// evaluation of a graph in a child process (a crash or hang of GE is a result, not the end of
// the run).
//
// Every configuration is compared with the reference: the graph compiled at O0 (import only: no
// simplification, no fusion) on the cpu backend, 1 thread, the same inputs. Tolerances are the
// relative L2 error ‖out − ref‖₂ / ‖ref‖₂ of every float output (integer and bool outputs must
// be equal), chosen per configuration:
//  - `--numerics strict` (O2 and O3): bitwise equal (README: strict keeps only exact rewrites);
//  - O1, O2, O3, every scheduler and memory planner, ascend in fp32: 1e-4. Fused kernels
//    reassociate sums (oneDNN post-ops, FusedElementwise, folded BatchNorm weights); fp32 has a
//    unit roundoff of 6e-8, so 1e-4 leaves three orders of magnitude for sums of a few thousand
//    terms while any wrong element of a tensor of up to 4096 elements shows (≥ 1/64 of it);
//  - ascend with its default precision mode (force_fp16): 2e-2. fp16 keeps 11 significant bits
//    (unit roundoff 2^-11 ≈ 4.9e-4) on every operand and result of each op; chains of up to ~15
//    ops with Softmax/Exp/LayerNorm amplifying relative error by a few units each stay below
//    1e-2 in practice, and a wrong kernel is off by O(1).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/pipeline.h"
#include "ge/core/request.h"
#include "ge/sdk/ir.h"

namespace ge::difftest {

enum class Check { Reference, Bitwise, RelL2 };

struct ConfigSpec {
  std::string name;
  core::CompileRequest request;
  Check check = Check::RelL2;
  double tol = 1e-4;
  bool fp16 = false;  ///< computes in reduced precision: graphs with discontinuous ops are skipped
};

/// The reference (index 0) and every configuration compared with it.
std::vector<ConfigSpec> default_configs();

struct Config {
  ConfigSpec spec;
  std::unique_ptr<core::Environment> env;
  core::CompileOptions options;
  int threads = 1;
};
/// Loads each configuration's environment once (plugins, manifest overrides).
std::vector<Config> load_configs(const std::vector<ConfigSpec>& specs);

struct Outcome {
  enum Kind { Ok, Skipped, Mismatch, Error, Rejected };
  Kind kind = Ok;
  std::string detail;  ///< skip reason, mismatch figures, error message
  double rel_l2 = 0;   ///< largest over the outputs (RelL2 checks)
};
std::string_view kind_name(Outcome::Kind k);

/// Compiles and runs `g` in every configuration of `which` (indexes into cfgs; the reference is
/// always run first) in a forked child, inputs seeded with `input_seed`. Result i is for
/// which[i]. The reference failing with ge::UnsupportedError (a kernel refuses what shape
/// inference accepted) makes every result Rejected; the child dying by a signal or running past
/// `timeout_s` makes the configuration it was in an Error naming the signal or the timeout.
std::vector<Outcome> evaluate(const std::vector<Config>& cfgs, const Graph& g, uint32_t input_seed,
                              const std::vector<size_t>& which, double timeout_s = 120);

/// Why configuration `c` does not apply to `g`, or nullopt.
std::optional<std::string> skip_reason(const ConfigSpec& c, const Graph& g);

}  // namespace ge::difftest
