// plugins/ascend_backend/platform.h — an Ascend SoC's numbers (platforms/<name>.toml): AI Cores,
// clock, Cube and Vector sizes, buffer capacities, per-core transfer rates and alignments. Each
// number keeps its public source and whether it is an assumption (docs/ascend.md).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ge::ascend {

/// One number of a platform file: { value, source, assumption, why }.
struct PlatformNumber {
  double value = 0;
  std::string source;
  bool assumption = false;
  std::string why;
};

struct Platform {
  std::string name;  ///< "Ascend910A"
  std::string file;  ///< the file it was read from
  /// Every number by dotted key: "ai_cores", "clock_ghz", "cube.fp16_m", "buffers.l0a", ...
  std::map<std::string, PlatformNumber> numbers;

  /// The value of `key`; throws ge::Error naming the file and the key when absent.
  double get(const std::string& key) const;
  int64_t get_int(const std::string& key) const;
};

/// The keys every platform file must define (ai_cores, clock_ghz, cube.*, vector.fp16_lanes,
/// buffers.*, bandwidth.*, alignment.*, peak.fp16_tflops, and the placement / timing constants
/// aicpu.* and launch.*, docs/ascend.md "Cycle model").
const std::vector<std::string>& platform_keys();

/// Reads one platform file. Errors (ge::ConfigError) name the file and the key: a missing or
/// non-numeric value, a missing source, `assumption = true` without `why`, a non-positive
/// value, an unknown key, a TOML syntax error (with its line).
Platform load_platform_file(const std::string& path);

/// Reads `<dir>/<soc>.toml`; an unknown SoC is an error listing the files present in dir, an
/// empty name (gec --soc-version "") is refuse_empty_soc_version's error.
Platform load_platform(const std::string& dir, const std::string& soc);
/// The SoC versions of `dir` (its *.toml files' stems), sorted, comma-separated; "none".
std::string known_soc_versions(const std::string& dir);
/// Throws ge::ConfigError: ascend.soc_version (gec --soc-version) is empty, listing the known SoCs.
[[noreturn]] void refuse_empty_soc_version(const std::string& dir);

}  // namespace ge::ascend
