// ge/core/manifest.h — the deployment manifest (TOML). Format: docs/manifest.md.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace ge::core {

struct PluginEntry {
  std::string name;
  std::string path;       ///< absolute (resolved relative to the manifest that named it)
  std::string version;    ///< requirement, e.g. ">=0.1, <1"; empty = any
  std::string sha256;     ///< optional pin (lower-case hex)
  bool enabled = true;
  std::string origin;     ///< "file:line" of the entry, for messages
};

/// One option of a plugin-owned section: its value as TOML text and where it was written.
struct OptionValue {
  std::string toml;    ///< e.g. "1048576", "\"auto\"", "[\"conv_bn\"]"
  std::string origin;  ///< "file:line", or "--set" for command-line overrides
};

struct Manifest {
  std::string path;  ///< file it was read from ("" for built-in defaults)
  std::vector<PluginEntry> plugins;
  std::string opt_level = "O2";
  std::string numerics = "relaxed";
  std::vector<std::string> disabled_passes;
  /// Dynamic shapes (docs/plan.md, "Dynamic shapes"): [compile] gears (the --gears text),
  /// paddable (symbols a shape may be padded along to the next larger gear; none by default),
  /// specialization_cache (shapes outside every gear a plan keeps compiled, LRU; >= 1).
  std::string gears;
  std::vector<std::string> paddable;
  int64_t specialization_cache = 8;
  std::string backend = "cpu";
  int threads = 0;  ///< 0 = all cores
  /// Options of the sections passes and plugins read ([fusion], [simplify], [layout], [memory],
  /// [scheduler], [registry], [profiler]): section → key → value. Keys nobody declares are
  /// refused when the pipeline starts (see PassManager), naming the key and its origin.
  std::map<std::string, std::map<std::string, OptionValue>> sections;
  /// Includes already merged into this manifest (for messages).
  std::vector<std::string> includes;
};

/// Applies `--set SECTION.KEY=VALUE`: compile.*, backend.* set the typed fields (checked like the
/// file); other sections store VALUE as TOML text (a bare word is taken as a string). Throws
/// ge::Error naming the option on a malformed one.
void apply_override(Manifest& m, const std::string& assignment);

/// Reads and validates a manifest. Unknown keys and wrong types are errors naming the key,
/// file and line (ge::Error).
Manifest load_manifest(const std::string& path);

}  // namespace ge::core
