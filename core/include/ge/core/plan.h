// ge/core/plan.h — execution plan files: save a compiled graph, load it later without recompiling.
//
// Byte layout (little-endian; core/src/plan_file.cc):
//   [0, 128)        preamble: magic "GEPLAN\0\1", format version, SDK ABI major/minor, the offsets
//                   and sizes of the two sections, the total file size, XXH3-128 checksum of the file
//   [128, …)        header: protobuf ge.planfile.Header (core/proto/ge_plan.proto) — the optimized
//                   graph (values with dtype/shape/format/arena offset, nodes with attributes and
//                   kernel bindings, inputs, outputs, opsets), arena size, backend, plugins,
//                   backend sections (ge/sdk/plan_section.h: e.g. the Ascend offline model)
//   [W, W+size)     weights: raw constant bytes, W and every tensor 64-byte aligned; memory-mapped
//                   at load, constants are Tensor::wrap views whose keepalive holds the mapping
// The checksum (XXH3-128, zero-padded to 32 bytes) covers every byte of the file except those 32.
// Version 2 replaced version 1's SHA-256, which cost ~60 ms per 100 MB loaded.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ge/core/environment.h"
#include "ge/sdk/ir.h"
#include "ge/sdk/pass.h"

namespace ge::core {

inline constexpr char kPlanMagic[8] = {'G', 'E', 'P', 'L', 'A', 'N', '\0', '\1'};
inline constexpr uint32_t kPlanFormatVersion = 2;

/// A backend section as stored (ge/sdk/plan_section.h); validated by its plugin at load.
struct PlanSection {
  std::string name, plugin, data;
};

struct DynamicPlan;  // ge/core/dynamic.h

/// A plan as loaded: the graph (constants view the mapped weights) and where it came from.
struct PlanContents {
  /// A dynamic plan's graph is its first gear's (null when it has none: every shape specializes).
  std::shared_ptr<Graph> graph;
  /// Set for a plan compiled with symbolic input dims (Header.dynamic): gears and source model.
  std::shared_ptr<DynamicPlan> dynamic;
  std::string backend;
  /// Producing plugins (name, version), as recorded at compile time.
  std::vector<std::pair<std::string, std::string>> plugins;
  /// Backend sections (Header.sections), each accepted by its plugin's validator.
  std::vector<PlanSection> sections;
  uint64_t file_bytes = 0, header_bytes = 0, weights_bytes = 0;
  /// The manifest options the plan was compiled with ("section.key" → TOML text, as written in
  /// the manifest or by --set); nullopt for a plan written before they were recorded.
  std::optional<std::map<std::string, std::string>> compile_options;
};

/// Whether `key` ("section.key") only matters while compiling (docs/manifest.md, "Plans"):
/// every key of [compile], every declared option of phase compile (ge/sdk/options.h), and every
/// undeclared key a pass reads that does not run at plan load (PassInfo::options).
bool is_compile_time_option(const std::string& key, const Environment& env);
/// Refuses a manifest that disagrees with a compiled plan: every compile-time key the manifest
/// of `env` sets (with its file:line) must have the value the plan was compiled with (for a key
/// the plan's manifest did not set, the declared default). Throws ge::ConfigError naming the
/// manifest's file and line, the key, both values and what to do. A plan without the record
/// (older plans) is not checked.
void check_manifest_matches_plan(const PlanContents& plan, const Environment& env, const std::string& plan_path);

/// The plan bytes of a compiled graph. Records every plugin of `env` as a producer (the passes
/// and kernels that shaped the graph came from them) and the bytes of every plan section `env`
/// registered for `backend`. Throws ge::Error for a constant that cannot be stored (string
/// tensors), a node without a kernel on `backend` or a section writer's refusal.
std::vector<uint8_t> serialize_plan(const Graph& g, const Environment& env, const std::string& backend);
/// serialize_plan to `path` through a temporary file and a rename: never a half-written plan.
void save_plan(const Graph& g, const Environment& env, const std::string& backend, const std::string& path);

/// Maps and validates a plan file. Throws ge::Error naming the file for: wrong magic, another
/// format version or SDK ABI major, a truncated file, a checksum mismatch, any offset or size
/// outside the file, a tensor whose bytes differ from numel × dtype size, a malformed graph, a
/// producing plugin missing from `env` or present with another major version, a backend or
/// kernel binding `env` lacks, a backend section no plugin of `env` reads, a section registered
/// for the plan's backend that it lacks, a section its validator refuses. Never crashes on garbage.
PlanContents load_plan(const std::string& path, const Environment& env);
/// The same checks on bytes in memory; `keepalive` owns them (constants view them). `what` names
/// the source in messages ("plan 'what': …").
PlanContents parse_plan(const uint8_t* data, size_t size, std::shared_ptr<void> keepalive, const Environment& env,
                        const std::string& what);
/// True when the file starts with the plan magic (gec run tells plans and models apart so).
bool is_plan_file(const std::string& path);
/// The backend a plan file was compiled for, read from its header without the checksum or any
/// other check (load_plan does those): enough to choose the environment that will load it.
/// Throws ge::Error naming the file when it is not a readable plan.
std::string plan_backend(const std::string& path);
/// True when the plan file was compiled with symbolic input dims (Header.dynamic), read like
/// plan_backend (without checks).
bool plan_is_dynamic(const std::string& path);
/// Recomputes the checksum of plan bytes in place (tests and fuzzing mutate the header and
/// reseal it, so that the parser behind the checksum is exercised too).
void reseal_plan(std::vector<uint8_t>& bytes);

// ---- load-time passes (core/src/load_passes.cc)

/// What a caller asks of a plan at load.
struct LoadOptions {
  /// Graph outputs to keep, by name; empty = all. The others and every node that only fed them
  /// are dropped at load (ge::Error naming an unknown output).
  std::vector<std::string> outputs;
};

/// The passes that run when a plan is loaded, in order. Every one is PassInfo::runtime_safe:
/// load time never runs heavy passes (run_load_time_passes refuses any other).
std::vector<std::shared_ptr<Pass>> load_time_passes(const LoadOptions& opts);
/// Runs load_time_passes on `g`; returns the PassInfo of each pass run.
std::vector<PassInfo> run_load_time_passes(Graph& g, const Environment& env, const std::string& backend,
                                           const LoadOptions& opts);

}  // namespace ge::core
