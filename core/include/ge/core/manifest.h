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

struct Manifest {
  std::string path;  ///< file it was read from ("" for built-in defaults)
  std::vector<PluginEntry> plugins;
  std::string opt_level = "O2";
  std::string numerics = "relaxed";
  std::vector<std::string> disabled_passes;
  std::string backend = "cpu";
  int threads = 0;  ///< 0 = all cores
  /// Sections not interpreted by the core ([layout], [memory], [scheduler], [fusion], per-plugin
  /// sections) kept as TOML text for the plugins that read them.
  std::map<std::string, std::string> sections;
};

/// Reads and validates a manifest. Unknown keys and wrong types are errors naming the key,
/// file and line (ge::Error).
Manifest load_manifest(const std::string& path);

}  // namespace ge::core
