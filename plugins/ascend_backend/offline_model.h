// plugins/ascend_backend/offline_model.h — the Ascend offline model (.om): what a device runtime
// is handed, stored as the plan section "ascend.om" (ge/sdk/plan_section.h, docs/ascend.md).
//
// An .om is a GE plan file (docs/plan.md) compiled for backend "ascend"; its header carries,
// besides the graph, this section: JSON (nlohmann-json, compact, keys in the order below), e.g.
//   {"format":"ge.ascend.om","version":1,"soc_version":"Ascend910A",
//    "feature_map_bytes":3612672,"weights_bytes":2471168,"streams":1,
//    "weights":[{"name":"conv1.w","dtype":"f16","dims":[64,3,3,3],"format":"FRACTAL_Z",
//                "offset":0,"size":18432}, ...],
//    "events":[{"id":0,"record_after":"a","wait_before":"b"}, ...],
//    "tasks":[{"kind":"kernel","stream":0,"node":"conv1","op":"ge.FusedConv","engine":"cube",
//              "block_dim":2,"tiling":[1,1,...],
//              "inputs":[{"value":"x","arena_offset":0,"bytes":401408,"format":"NC1HWC0"},
//                        {"value":"conv1.w","arena_offset":-1,"bytes":18432,"format":"FRACTAL_Z"}],
//              "outputs":[...]},
//             {"kind":"event_record","stream":0,"event":0}, ...]}
// Units: bytes; arena_offset is the byte offset in the feature-map arena, -1 for a constant (it
// lies in the weights region at its `weights` entry's offset) and for a graph input or output
// (bound to the caller's buffer at run time); offsets in `weights` count from the plan's weights
// section. Tasks: task.h (build_tasks: per node its event waits, its kernel,
// its event records; a stream runs its tasks in order).
//
// The section is derived from the graph it is saved with; at load the validator derives it
// again from the loaded graph and refuses any difference, naming the task and the field.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ge/sdk/plan_section.h"
#include "task.h"

namespace ge {
class Registrar;
}

namespace ge::ascend {

inline constexpr const char* kOmSectionName = "ascend.om";
inline constexpr int kOmVersion = 1;
inline constexpr const char* kDefaultSoc = "Ascend910A";

/// A constant in the weights region, in the device format it was converted to at compile time.
struct OmWeight {
  std::string name, dtype, format;  ///< dtype_name ("f16"), format_name ("FRACTAL_Z")
  std::vector<int64_t> dims;        ///< logical shape
  uint64_t offset = 0, size = 0;    ///< in the plan's weights section
  bool operator==(const OmWeight&) const = default;
};

struct OfflineModel {
  int version = kOmVersion;
  std::string soc_version;
  uint64_t feature_map_bytes = 0;  ///< the arena (Graph::arena_bytes)
  uint64_t weights_bytes = 0;      ///< the plan's weights section
  int streams = 1;
  std::vector<OmWeight> weights;
  std::vector<StreamEvent> events;  ///< ScheduleInfo::events; Task::event indexes them
  std::vector<Task> tasks;
};

/// The offline model of the graph in `ctx` compiled for `soc_version`. Throws ge::Error when the
/// schedule's events name no node.
OfflineModel build_offline_model(const PlanSectionContext& ctx, const std::string& soc_version);

std::string to_json(const OfflineModel& m);
/// Throws ge::Error naming the field ("tasks[3].block_dim") for malformed or missing fields.
OfflineModel offline_model_from_json(const std::string& bytes);

/// Refuses `stored` unless it equals `expected` (derived from the loaded graph); the ge::Error
/// names the first difference: "task 12 (kernel 'conv1' ge.FusedConv): block_dim is 4 in the
/// offline model, the graph gives 2".
void check_same(const OfflineModel& stored, const OfflineModel& expected);

/// `gec inspect --format sections`: counts (tasks by engine, event tasks, streams, feature-map
/// and weights bytes); with `detail`, every weight and task on its own line.
std::string describe(const OfflineModel& m, bool detail);

/// Registers the "ascend.om" plan section (writer, validator, describer) for backend "ascend".
/// The validator refuses an offline model compiled for another soc_version than the one the
/// loading environment asks for (`[ascend] soc_version`, gec --soc-version); when it asks for
/// none (ascend.toml leaves it unset), the .om runs on the SoC it names.
void register_offline_model(Registrar& r);

}  // namespace ge::ascend
