// plugins/ascend_backend/platform.cc — reading platforms/<soc>.toml (platform.h).
#include "platform.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <vector>

#include <toml++/toml.h>

#include "ge/sdk/error.h"

namespace ge::ascend {
namespace fs = std::filesystem;

const std::vector<std::string>& platform_keys() {
  static const std::vector<std::string> keys{
      "ai_cores",          "clock_ghz",          "cube.fp16_m",        "cube.fp16_k",
      "cube.fp16_n",       "cube.int8_m",        "cube.int8_k",        "cube.int8_n",
      "vector.fp16_lanes", "buffers.l1",         "buffers.l0a",        "buffers.l0b",
      "buffers.l0c",       "buffers.ub",         "bandwidth.gm_to_l1", "bandwidth.l1_to_l0a",
      "bandwidth.l1_to_l0b", "bandwidth.l1_to_ub", "bandwidth.l0c_to_ub", "bandwidth.ub_to_gm",
      "alignment.ub",      "alignment.l1",       "alignment.l0a",      "alignment.l0b",
      "peak.fp16_tflops",  "aicpu.gflops",       "launch.aicore_us",   "launch.aicpu_us",
      // Timeline constants (timeline.h; assumptions): cross-stream event latency, AI CPUs, AI CPU bandwidth.
      "launch.event_us",   "aicpu.cores",        "aicpu.gbps",
      // Device global memory: no tensor of a task is larger (tiling_pass.cc refuses it).
      "memory.global_bytes"};
  return keys;
}

double Platform::get(const std::string& key) const {
  auto it = numbers.find(key);
  if (it == numbers.end()) throw Error("ascend platform '" + file + "': no number '" + key + "'");
  return it->second.value;
}

int64_t Platform::get_int(const std::string& key) const { return static_cast<int64_t>(std::llround(get(key))); }

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& what) {
  throw ConfigError("ascend platform '" + file + "': key '" + key + "': " + what);
}

PlatformNumber read_number(const std::string& file, const std::string& key, const toml::node& n) {
  const toml::table* t = n.as_table();
  if (!t) fail(file, key, "must be a table { value = ..., source = \"...\" }");
  for (auto&& [k, v] : *t) {
    static const std::set<std::string> known{"value", "source", "assumption", "why"};
    if (!known.count(std::string(k.str())))
      fail(file, key, "unknown field '" + std::string(k.str()) + "' (known: value, source, assumption, why)");
  }
  PlatformNumber p;
  const toml::node* v = t->get("value");
  if (!v) fail(file, key, "missing 'value'");
  if (auto i = v->value<int64_t>(); i && v->is_integer()) p.value = static_cast<double>(*i);
  else if (auto d = v->value<double>(); d && v->is_floating_point()) p.value = *d;
  else fail(file, key, "'value' must be a number");
  if (!(p.value > 0)) fail(file, key, "'value' must be positive");
  const toml::node* s = t->get("source");
  if (!s || !s->is_string() || s->value<std::string>()->empty()) fail(file, key, "missing 'source' (every number names its public source)");
  p.source = *s->value<std::string>();
  if (const toml::node* a = t->get("assumption")) {
    if (!a->is_boolean()) fail(file, key, "'assumption' must be true or false");
    p.assumption = *a->value<bool>();
  }
  if (const toml::node* w = t->get("why")) {
    if (!w->is_string()) fail(file, key, "'why' must be a string");
    p.why = *w->value<std::string>();
  }
  if (p.assumption && p.why.empty()) fail(file, key, "assumption = true needs 'why'");
  return p;
}

}  // namespace

Platform load_platform_file(const std::string& path) {
  if (!fs::exists(path)) throw ConfigError("ascend platform '" + path + "': file does not exist");
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw ConfigError("ascend platform '" + path + "':" + std::to_string(e.source().begin.line) + ": " +
                      std::string(e.description()));
  }
  Platform p;
  p.file = path;
  const toml::node* name = root.get("name");
  if (!name || !name->is_string()) fail(path, "name", "missing (a string, e.g. \"Ascend910A\")");
  p.name = *name->value<std::string>();
  std::set<std::string> wanted(platform_keys().begin(), platform_keys().end());
  for (auto&& [k, v] : root) {
    const std::string top(k.str());
    if (top == "name") continue;
    if (wanted.count(top)) {
      p.numbers[top] = read_number(path, top, v);
      continue;
    }
    const toml::table* sect = v.as_table();
    if (!sect) fail(path, top, "unknown key");
    for (auto&& [k2, v2] : *sect) {
      const std::string key = top + "." + std::string(k2.str());
      if (!wanted.count(key)) fail(path, key, "unknown key");
      p.numbers[key] = read_number(path, key, v2);
    }
  }
  for (const std::string& k : platform_keys())
    if (!p.numbers.count(k)) fail(path, k, "missing");
  return p;
}

std::string known_soc_versions(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    for (auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".toml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  return known.empty() ? "none" : known;
}

void refuse_empty_soc_version(const std::string& dir) {
  throw ConfigError("ascend.soc_version (gec --soc-version) is empty: name an SoC (known: " + known_soc_versions(dir) +
                    "; the files of " + dir + ")");
}

Platform load_platform(const std::string& dir, const std::string& soc) {
  if (soc.empty()) refuse_empty_soc_version(dir);
  const fs::path f = fs::path(dir) / (soc + ".toml");
  if (!fs::exists(f))
    throw ConfigError("ascend: unknown soc_version '" + soc + "' (no " + f.string() + "; known: " + known_soc_versions(dir) + ")");
  Platform p = load_platform_file(f.string());
  if (p.name != soc) fail(f.string(), "name", "is '" + p.name + "', the file name says '" + soc + "'");
  return p;
}

}  // namespace ge::ascend
