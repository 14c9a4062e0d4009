// plugins/ascend_backend/offline_model.cc — the offline model from a graph, its JSON form and the
// field-by-field comparison the load-time validator runs (offline_model.h).
#include "offline_model.h"

#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "ge/sdk/error.h"

namespace ge::ascend {

namespace {

using Json = nlohmann::ordered_json;

std::string format_str(int f) {
  if (f < 0 || f > static_cast<int>(kFormatLast)) return "format#" + std::to_string(f);
  return std::string(format_name(static_cast<Format>(f)));
}

/// An integer JSON value as T. nlohmann's get<integer>() converts a float or an out-of-range
/// integer with a plain cast (a float outside T's range is undefined behaviour, C++20
/// [conv.fpint]): an integer field must hold an integer that T represents.
template <class T>
T integer(const Json& v, const std::string& path) {
  if (!v.is_number_integer())
    throw Error("offline model: " + path + " is not an integer (" + std::string(v.type_name()) + ")");
  const bool fits = v.is_number_unsigned() ? std::in_range<T>(v.get<uint64_t>()) : std::in_range<T>(v.get<int64_t>());
  if (!fits) throw Error("offline model: " + path + " is out of range (" + v.dump() + ")");
  return v.is_number_unsigned() ? static_cast<T>(v.get<uint64_t>()) : static_cast<T>(v.get<int64_t>());
}

/// A field of `j`, converted to T; a missing or mistyped field is an error naming its path.
template <class T>
T field(const Json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) throw Error("offline model: " + where + "." + key + " is missing");
  const std::string path = where + "." + key;
  if constexpr (std::is_integral_v<T>) {
    return integer<T>(*it, path);
  } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    if (!it->is_array()) throw Error("offline model: " + path + " is not an array (" + std::string(it->type_name()) + ")");
    T out;
    for (size_t i = 0; i < it->size(); ++i) out.push_back(integer<int64_t>((*it)[i], path + "[" + std::to_string(i) + "]"));
    return out;
  } else {
    try {
      return it->template get<T>();
    } catch (const nlohmann::json::exception&) {
      throw Error("offline model: " + path + " has the wrong type (" + it->type_name() + ")");
    }
  }
}

const Json& array_field(const Json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) throw Error("offline model: " + where + "." + key + " is missing or not an array");
  return *it;
}

Json operand_json(const TaskOperand& o) {
  return Json{{"value", o.value}, {"arena_offset", o.arena_offset}, {"bytes", o.bytes}, {"format", format_str(o.format)}};
}

std::vector<TaskOperand> operands_from(const Json& a, const std::string& where) {
  std::vector<TaskOperand> out;
  for (size_t i = 0; i < a.size(); ++i) {
    std::string w = where + "[" + std::to_string(i) + "]";
    if (!a[i].is_object()) throw Error("offline model: " + w + " is not an object");
    std::string f = field<std::string>(a[i], "format", w);
    int fmt = -1;
    try {
      fmt = static_cast<int>(format_from_name(f));
    } catch (const Error&) {
      throw Error("offline model: " + w + ".format '" + f + "' is no format");
    }
    out.push_back(TaskOperand{field<std::string>(a[i], "value", w), field<int64_t>(a[i], "arena_offset", w),
                              field<int64_t>(a[i], "bytes", w), fmt});
  }
  return out;
}

std::string task_label(const Task& t, size_t i) {
  std::string s = "task " + std::to_string(i) + " (" + task_kind_name(t.kind);
  if (t.kind == Task::Kind::Kernel) s += " '" + t.node + "' " + t.op_type;
  else s += " of event " + std::to_string(t.event);
  return s + ")";
}

template <class T>
std::string show(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) return "'" + v + "'";
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return Json(v).dump();
  else return std::to_string(v);
}

/// Throws when a stored field differs from the graph's, naming where and what.
template <class T>
void same(const std::string& where, const std::string& what, const T& stored, const T& expected) {
  if (stored == expected) return;
  throw Error(where + ": " + what + " is " + show(stored) + " in the offline model, the graph gives " + show(expected));
}

void same_operands(const std::string& where, const std::string& kind, const std::vector<TaskOperand>& s,
                   const std::vector<TaskOperand>& e) {
  same(where, kind + " count", s.size(), e.size());
  for (size_t i = 0; i < s.size(); ++i) {
    std::string w = kind + "[" + std::to_string(i) + "]";
    same(where, w + ".value", s[i].value, e[i].value);
    same(where, w + ".arena_offset", s[i].arena_offset, e[i].arena_offset);
    same(where, w + ".bytes", s[i].bytes, e[i].bytes);
    same(where, w + ".format", format_str(s[i].format), format_str(e[i].format));
  }
}

}  // namespace

OfflineModel build_offline_model(const PlanSectionContext& ctx, const std::string& soc_version) {
  const Graph& g = ctx.graph();
  OfflineModel m;
  m.soc_version = soc_version;
  m.feature_map_bytes = g.arena_bytes;
  m.weights_bytes = ctx.weights_bytes();
  m.streams = std::max(1, g.schedule.streams);
  for (const Value* v : g.values()) {
    auto r = ctx.weights_range(*v);
    if (!r || !v->data) continue;
    m.weights.push_back(OmWeight{v->name(), std::string(dtype_name(v->data->dtype())),
                                 std::string(format_name(v->data->format())), v->data->shape().dims(), r->offset,
                                 r->size});
  }
  m.events = g.schedule.events;
  m.tasks = build_tasks(g);
  return m;
}

std::string to_json(const OfflineModel& m) {
  Json weights = Json::array(), events = Json::array(), tasks = Json::array();
  for (const OmWeight& w : m.weights)
    weights.push_back({{"name", w.name}, {"dtype", w.dtype}, {"dims", w.dims}, {"format", w.format},
                       {"offset", w.offset}, {"size", w.size}});
  for (size_t e = 0; e < m.events.size(); ++e)
    events.push_back({{"id", e}, {"record_after", m.events[e].record_after}, {"wait_before", m.events[e].wait_before}});
  for (const Task& t : m.tasks) {
    Json j{{"kind", task_kind_name(t.kind)}, {"stream", t.stream}};
    if (t.kind == Task::Kind::Kernel) {
      j["node"] = t.node;
      j["op"] = t.op_type;
      j["engine"] = t.engine;
      j["block_dim"] = t.block_dim;
      j["tiling"] = t.tiling;
      Json in = Json::array(), out = Json::array();
      for (const TaskOperand& o : t.inputs) in.push_back(operand_json(o));
      for (const TaskOperand& o : t.outputs) out.push_back(operand_json(o));
      j["inputs"] = std::move(in);
      j["outputs"] = std::move(out);
    } else {
      j["event"] = t.event;
    }
    tasks.push_back(std::move(j));
  }
  Json j{{"format", "ge.ascend.om"},        {"version", m.version},     {"soc_version", m.soc_version},
         {"feature_map_bytes", m.feature_map_bytes}, {"weights_bytes", m.weights_bytes}, {"streams", m.streams},
         {"weights", std::move(weights)},  {"events", std::move(events)}, {"tasks", std::move(tasks)}};
  try {
    return j.dump();
  } catch (const nlohmann::json::exception& e) {
    // Names come from the model; JSON needs them in UTF-8.
    throw Error(std::string("offline model: cannot encode the task list as JSON (") + e.what() + ")");
  }
}

OfflineModel offline_model_from_json(const std::string& bytes) {
  Json j = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw Error("offline model: not a JSON object");
  const std::string top = "om";
  if (field<std::string>(j, "format", top) != "ge.ascend.om") throw Error("offline model: om.format is not 'ge.ascend.om'");
  OfflineModel m;
  m.version = field<int>(j, "version", top);
  if (m.version != kOmVersion)
    throw Error("offline model: version " + std::to_string(m.version) + "; this plugin reads version " +
                std::to_string(kOmVersion) + " (recompile the model)");
  m.soc_version = field<std::string>(j, "soc_version", top);
  m.feature_map_bytes = field<uint64_t>(j, "feature_map_bytes", top);
  m.weights_bytes = field<uint64_t>(j, "weights_bytes", top);
  m.streams = field<int>(j, "streams", top);
  const Json& ws = array_field(j, "weights", top);
  for (size_t i = 0; i < ws.size(); ++i) {
    std::string w = "weights[" + std::to_string(i) + "]";
    m.weights.push_back(OmWeight{field<std::string>(ws[i], "name", w), field<std::string>(ws[i], "dtype", w),
                                 field<std::string>(ws[i], "format", w), field<std::vector<int64_t>>(ws[i], "dims", w),
                                 field<uint64_t>(ws[i], "offset", w), field<uint64_t>(ws[i], "size", w)});
  }
  const Json& es = array_field(j, "events", top);
  for (size_t i = 0; i < es.size(); ++i) {
    std::string w = "events[" + std::to_string(i) + "]";
    if (field<size_t>(es[i], "id", w) != i) throw Error("offline model: " + w + ".id is not " + std::to_string(i));
    m.events.push_back({field<std::string>(es[i], "record_after", w), field<std::string>(es[i], "wait_before", w)});
  }
  const Json& ts = array_field(j, "tasks", top);
  for (size_t i = 0; i < ts.size(); ++i) {
    std::string w = "tasks[" + std::to_string(i) + "]";
    if (!ts[i].is_object()) throw Error("offline model: " + w + " is not an object");
    Task t;
    std::string kind = field<std::string>(ts[i], "kind", w);
    t.stream = field<int>(ts[i], "stream", w);
    if (kind == "kernel") {
      t.kind = Task::Kind::Kernel;
      t.node = field<std::string>(ts[i], "node", w);
      t.op_type = field<std::string>(ts[i], "op", w);
      t.engine = field<std::string>(ts[i], "engine", w);
      t.block_dim = field<int64_t>(ts[i], "block_dim", w);
      t.tiling = field<std::vector<int64_t>>(ts[i], "tiling", w);
      t.inputs = operands_from(array_field(ts[i], "inputs", w), w + ".inputs");
      t.outputs = operands_from(array_field(ts[i], "outputs", w), w + ".outputs");
    } else if (kind == "event_record" || kind == "event_wait") {
      t.kind = kind == "event_record" ? Task::Kind::EventRecord : Task::Kind::EventWait;
      t.event = field<int>(ts[i], "event", w);
    } else {
      throw Error("offline model: " + w + ".kind '" + kind + "' is not kernel, event_record or event_wait");
    }
    m.tasks.push_back(std::move(t));
  }
  return m;
}

void check_same(const OfflineModel& s, const OfflineModel& e) {
  same("offline model", "soc_version", s.soc_version, e.soc_version);
  same("offline model", "feature_map_bytes", s.feature_map_bytes, e.feature_map_bytes);
  same("offline model", "weights_bytes", s.weights_bytes, e.weights_bytes);
  same("offline model", "streams", s.streams, e.streams);
  same("offline model", "weight count", s.weights.size(), e.weights.size());
  for (size_t i = 0; i < s.weights.size(); ++i) {
    const OmWeight &a = s.weights[i], &b = e.weights[i];
    std::string w = "weight " + std::to_string(i) + " ('" + b.name + "')";
    same(w, "name", a.name, b.name);
    same(w, "dtype", a.dtype, b.dtype);
    same(w, "dims", a.dims, b.dims);
    same(w, "format", a.format, b.format);
    same(w, "offset", a.offset, b.offset);
    same(w, "size", a.size, b.size);
  }
  same("offline model", "event count", s.events.size(), e.events.size());
  for (size_t i = 0; i < s.events.size(); ++i) {
    std::string w = "event " + std::to_string(i);
    same(w, "record_after", s.events[i].record_after, e.events[i].record_after);
    same(w, "wait_before", s.events[i].wait_before, e.events[i].wait_before);
  }
  same("offline model", "task count", s.tasks.size(), e.tasks.size());
  for (size_t i = 0; i < s.tasks.size(); ++i) {
    const Task &a = s.tasks[i], &b = e.tasks[i];
    const std::string w = task_label(b, i);
    same(w, "kind", task_kind_name(a.kind), task_kind_name(b.kind));
    same(w, "stream", a.stream, b.stream);
    if (b.kind != Task::Kind::Kernel) {
      same(w, "event", a.event, b.event);
      continue;
    }
    same(w, "node", a.node, b.node);
    same(w, "op", a.op_type, b.op_type);
    same(w, "engine", a.engine, b.engine);
    same(w, "block_dim", a.block_dim, b.block_dim);
    same(w, "tiling", a.tiling, b.tiling);
    same_operands(w, "inputs", a.inputs, b.inputs);
    same_operands(w, "outputs", a.outputs, b.outputs);
  }
}

}  // namespace ge::ascend
