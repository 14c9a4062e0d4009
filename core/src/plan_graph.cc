// The optimized graph to and from the plan header. The reader trusts nothing: a header that passed
// the checksum may still have been written by a buggy or hostile producer, so every index, enum,
// extent, byte count and offset is checked before it is used.
#include "plan_graph.h"

#include <xxhash.h>

#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include "ge/sdk/error.h"
#include "ge/sdk/stream_order.h"

namespace ge::core::plan_detail {

namespace {

constexpr uint64_t kAlign = 64;
// Upper bounds that no real model reaches; they keep garbage from asking for absurd allocations.
constexpr int64_t kMaxNumel = int64_t{1} << 40;
constexpr uint64_t kMaxArena = uint64_t{1} << 40;

bool valid_dtype(int32_t d) {
  switch (static_cast<DataType>(d)) {
    case DataType::Float32: case DataType::UInt8: case DataType::Int8: case DataType::UInt16:
    case DataType::Int16: case DataType::Int32: case DataType::Int64: case DataType::Bool:
    case DataType::Float16: case DataType::Float64: case DataType::UInt32: case DataType::UInt64:
    case DataType::BFloat16:
      return true;
    default:
      return false;  // Undefined and String have no fixed element size
  }
}

DataType checked_dtype(int32_t d, const std::string& what) {
  if (!valid_dtype(d)) throw Error(what + " has an invalid dtype (" + std::to_string(d) + ")");
  return static_cast<DataType>(d);
}

Format checked_format(int32_t f, const std::string& what) {
  if (f < 0 || f > static_cast<int32_t>(kFormatLast))
    throw Error(what + " has an invalid format (" + std::to_string(f) + ")");
  return static_cast<Format>(f);
}

Shape checked_shape(const google::protobuf::RepeatedField<int64_t>& dims, const std::string& what) {
  if (dims.size() > 16) throw Error(what + " has rank " + std::to_string(dims.size()) + " (at most 16)");
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxNumel) throw Error(what + " has an invalid extent " + std::to_string(d));
    if (d != 0 && n > kMaxNumel / d) throw Error(what + " has more than 2^40 elements");
    n *= d;
  }
  return Shape(std::vector<int64_t>(dims.begin(), dims.end()));
}

}  // namespace

uint64_t store_weight_bytes(const uint8_t* p, uint64_t n, std::vector<uint8_t>& weights, WeightDedupe* dedupe) {
  if (dedupe && n) {
    const uint64_t hash = XXH3_64bits(p, n);
    auto [lo, hi] = dedupe->stored.equal_range(hash);
    for (auto it = lo; it != hi; ++it)
      if (it->second.second == n && std::memcmp(weights.data() + it->second.first, p, n) == 0) {
        dedupe->saved_bytes += n;
        return it->second.first;
      }
  }
  weights.resize((weights.size() + kAlign - 1) / kAlign * kAlign, 0);
  const uint64_t at = weights.size();
  if (dedupe && n) dedupe->stored.emplace(XXH3_64bits(p, n), std::make_pair(at, n));
  weights.insert(weights.end(), p, p + n);
  return at;
}

namespace {

void put_tensor(const Tensor& t, planfile::TensorData& td, std::vector<uint8_t>* weights, WeightDedupe* dedupe = nullptr) {
  if (!valid_dtype(static_cast<int32_t>(t.dtype())))
    throw Error("a " + std::string(dtype_name(t.dtype())) + " tensor cannot be stored in a plan");
  td.set_dtype(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape().dims()) td.add_dims(d);
  td.set_format(static_cast<int32_t>(t.format()));
  const auto* p = static_cast<const uint8_t*>(t.data());
  if (!weights) {
    td.set_is_inline(true);
    td.set_inline_bytes(p, t.nbytes());
    return;
  }
  td.set_offset(store_weight_bytes(p, t.nbytes(), *weights, dedupe));
  td.set_size(t.nbytes());
}

// A tensor from its description; constants view the weights, inline (attribute) tensors are copied.
Tensor get_tensor(const planfile::TensorData& td, const uint8_t* weights, uint64_t weights_size,
                  const std::shared_ptr<void>& keepalive, const std::string& what) {
  DataType dt = checked_dtype(td.dtype(), what);
  Shape s = checked_shape(td.dims(), what);
  Format f = checked_format(td.format(), what);
  uint64_t nbytes = static_cast<uint64_t>(format_storage_numel(s.dims(), f)) * dtype_size(dt);
  if (td.is_inline()) {
    if (td.inline_bytes().size() != nbytes)
      throw Error(what + " holds " + std::to_string(td.inline_bytes().size()) + " bytes, expected " +
                  std::to_string(nbytes) + " (stored elements × dtype size)");
    Tensor t = Tensor::allocate(dt, s, f);
    if (nbytes) std::memcpy(t.data(), td.inline_bytes().data(), nbytes);
    return t;
  }
  if (td.size() != nbytes)
    throw Error(what + " holds " + std::to_string(td.size()) + " bytes, expected " + std::to_string(nbytes) +
                " (stored elements × dtype size)");
  if (td.offset() % kAlign != 0 || td.offset() > weights_size || nbytes > weights_size - td.offset())
    throw Error(what + " lies outside the weights section (offset " + std::to_string(td.offset()) + ", " +
                std::to_string(nbytes) + " bytes, section " + std::to_string(weights_size) + ")");
  // The mapping is private and writable (copy-on-write), so the const_cast cannot corrupt the file.
  return Tensor::wrap(dt, s, const_cast<uint8_t*>(weights) + td.offset(), keepalive, f);
}

}  // namespace

void graph_to_header(const Graph& g, const std::string& backend, planfile::Header& h, std::vector<uint8_t>& weights,
                     WeightDedupe* dedupe) {
  h.set_graph_name(g.name);
  h.set_backend(backend);
  h.set_arena_bytes(g.arena_bytes);
  for (auto& [domain, version] : g.opsets) {
    auto* o = h.add_opsets();
    o->set_domain(domain);
    o->set_version(version);
  }
  std::unordered_map<const Value*, int64_t> index;
  // Constants sharing one Tensor (shared_ptr) are stored once.
  std::map<const void*, planfile::TensorData> stored;
  for (const Value* v : g.values()) {
    index[v] = h.values_size();
    auto* pv = h.add_values();
    pv->set_name(v->name());
    pv->set_dtype(static_cast<int32_t>(v->dtype));
    for (int64_t d : v->shape.dims()) pv->add_dims(d);
    pv->set_format(static_cast<int32_t>(v->format));
    pv->set_arena_offset(v->arena_offset);
    if (v->data) {
      auto it = stored.find(v->data->data());
      if (it != stored.end() && it->second.size() == v->data->nbytes() &&
          it->second.dims_size() == static_cast<int>(v->data->shape().rank())) {
        *pv->mutable_data() = it->second;
        pv->mutable_data()->set_dtype(static_cast<int32_t>(v->data->dtype()));
        pv->mutable_data()->clear_dims();
        for (int64_t d : v->data->shape().dims()) pv->mutable_data()->add_dims(d);
      } else {
        put_tensor(*v->data, *pv->mutable_data(), &weights, dedupe);
        if (v->data->nbytes()) stored[v->data->data()] = pv->data();
      }
    }
  }
  for (const Node* n : g.nodes()) {
    auto* pn = h.add_nodes();
    pn->set_name(n->name());
    pn->set_op_type(n->op_type());
    pn->set_domain(n->domain());
    pn->set_kernel_backend(backend);
    pn->set_stream(n->stream);
    pn->set_pipeline_stage(n->pipeline_stage);
    for (const Value* v : n->inputs()) pn->add_inputs(v ? index.at(v) : -1);
    for (const Value* v : n->outputs()) pn->add_outputs(index.at(v));
    for (auto& [name, val] : n->attrs.all()) {
      auto* a = pn->add_attrs();
      a->set_name(name);
      a->set_type(static_cast<int32_t>(attr_type_of(val)));
      std::visit(
          [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, int64_t>) a->set_i(x);
            else if constexpr (std::is_same_v<T, float>) a->set_f(x);
            else if constexpr (std::is_same_v<T, std::string>) a->set_s(x);
            else if constexpr (std::is_same_v<T, std::vector<int64_t>>) a->mutable_ints()->Add(x.begin(), x.end());
            else if constexpr (std::is_same_v<T, std::vector<float>>) a->mutable_floats()->Add(x.begin(), x.end());
            else if constexpr (std::is_same_v<T, std::vector<std::string>>) for (auto& s : x) a->add_strings(s);
            else put_tensor(x, *a->mutable_t(), nullptr);
          },
          val);
    }
  }
  for (const Value* v : g.inputs()) h.add_inputs(index.at(v));
  for (const Value* v : g.outputs()) h.add_outputs(index.at(v));
  auto* sc = h.mutable_schedule();
  sc->set_scheduler(g.schedule.scheduler);
  sc->set_streams(g.schedule.streams);
  sc->set_pipeline_stages(g.schedule.pipeline_stages);
  for (const StreamEvent& e : g.schedule.events) {
    auto* pe = sc->add_events();
    pe->set_record_after(e.record_after);
    pe->set_wait_before(e.wait_before);
  }
  sc->set_estimated_latency_ms(g.schedule.estimated_latency_ms);
  sc->set_reason(g.schedule.reason);
}

std::shared_ptr<Graph> header_to_graph(const planfile::Header& h, const uint8_t* weights, uint64_t weights_size,
                                       const std::shared_ptr<void>& keepalive) {
  auto g = std::make_shared<Graph>(h.graph_name());
  if (h.arena_bytes() > kMaxArena) throw Error("the arena of " + std::to_string(h.arena_bytes()) + " bytes is too large");
  g->arena_bytes = h.arena_bytes();
  for (auto& o : h.opsets()) g->opsets[o.domain()] = o.version();
  const int64_t nvalues = h.values_size();
  auto value_at = [&](int64_t i, const std::string& what) -> int64_t {
    if (i < 0 || i >= nvalues) throw Error(what + " refers to value #" + std::to_string(i) + " (" + std::to_string(nvalues) + " values)");
    return i;
  };
  // Which node produces each value: a value is written at most once.
  std::vector<int> producer(static_cast<size_t>(nvalues), -1);
  for (int ni = 0; ni < h.nodes_size(); ++ni)
    for (int64_t o : h.nodes(ni).outputs()) {
      int64_t i = value_at(o, "node #" + std::to_string(ni));
      if (producer[i] >= 0) throw Error("value #" + std::to_string(i) + " has two producers");
      producer[i] = ni;
    }

  std::vector<Value*> values;
  values.reserve(static_cast<size_t>(nvalues));
  for (int64_t i = 0; i < nvalues; ++i) {
    const auto& pv = h.values(static_cast<int>(i));
    std::string what = "value '" + pv.name() + "'";
    // A value without data may be untyped (an unused optional output) or hold strings; tensors
    // with bytes (checked in get_tensor) must have a fixed element size.
    DataType dt = pv.dtype() == static_cast<int32_t>(DataType::Undefined) || pv.dtype() == static_cast<int32_t>(DataType::String)
                      ? static_cast<DataType>(pv.dtype())
                      : checked_dtype(pv.dtype(), what);
    Shape s = checked_shape(pv.dims(), what);
    Value* v = nullptr;
    if (pv.has_data()) {
      Tensor t = get_tensor(pv.data(), weights, weights_size, keepalive, what);
      if (t.dtype() != dt || t.shape() != s) throw Error(what + ": its data's dtype or shape differs from the value's");
      if (producer[i] < 0) v = g->add_constant(pv.name(), std::move(t));
      else {
        // Data of a produced value is attached after its producer exists (else it reads as a constant).
        v = g->add_value(pv.name(), dt, s);
        v->data = std::make_shared<const Tensor>(std::move(t));
      }
    } else {
      v = g->add_value(pv.name(), dt, s);
    }
    v->format = checked_format(pv.format(), what);
    if (pv.arena_offset() < -1) throw Error(what + " has an invalid arena offset");
    if (pv.arena_offset() >= 0) {
      uint64_t off = static_cast<uint64_t>(pv.arena_offset());
      if (off > g->arena_bytes || v->nbytes() > g->arena_bytes - off)
        throw Error(what + " lies outside the arena (offset " + std::to_string(off) + ", " + std::to_string(v->nbytes()) +
                    " bytes, arena " + std::to_string(g->arena_bytes) + ")");
    }
    v->arena_offset = pv.arena_offset();
    values.push_back(v);
  }
  // Data of produced values: detach it while the producer is being added, restore afterwards.
  std::vector<std::shared_ptr<const Tensor>> produced_data(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    if (producer[i] >= 0) produced_data[i] = std::exchange(values[i]->data, nullptr);

  std::vector<bool> is_input(values.size(), false), ready(values.size(), false);
  for (int64_t i : h.inputs()) {
    value_at(i, "graph input");
    if (producer[i] >= 0 || values[i]->data) throw Error("graph input '" + values[i]->name() + "' is produced or constant");
    if (!is_input[i]) g->mark_input(values[i]);
    is_input[i] = ready[i] = true;
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i]->data) ready[i] = true;
  // Nodes in stored order; each input must be ready (input, constant or produced earlier): this
  // keeps the execution order valid and the graph acyclic.
  for (int ni = 0; ni < h.nodes_size(); ++ni) {
    const auto& pn = h.nodes(ni);
    std::string what = "node '" + pn.name() + "' (" + pn.op_type() + ")";
    std::vector<Value*> ins, outs;
    for (int64_t i : pn.inputs()) {
      if (i == -1) { ins.push_back(nullptr); continue; }
      value_at(i, what);
      if (!ready[i]) throw Error(what + " reads value '" + values[i]->name() + "' before it is written");
      ins.push_back(values[i]);
    }
    for (int64_t o : pn.outputs()) outs.push_back(values[o]);
    Attributes attrs;
    for (const auto& a : pn.attrs()) {
      switch (static_cast<AttrType>(a.type())) {
        case AttrType::Int: attrs.set(a.name(), a.i()); break;
        case AttrType::Float: attrs.set(a.name(), a.f()); break;
        case AttrType::String: attrs.set(a.name(), a.s()); break;
        case AttrType::Ints: attrs.set(a.name(), std::vector<int64_t>(a.ints().begin(), a.ints().end())); break;
        case AttrType::Floats: attrs.set(a.name(), std::vector<float>(a.floats().begin(), a.floats().end())); break;
        case AttrType::Strings: attrs.set(a.name(), std::vector<std::string>(a.strings().begin(), a.strings().end())); break;
        case AttrType::Tensor:
          if (!a.t().is_inline()) throw Error(what + ": attribute '" + a.name() + "' is not an inline tensor");
          attrs.set(a.name(), get_tensor(a.t(), nullptr, 0, nullptr, what + " attribute '" + a.name() + "'"));
          break;
        default: throw Error(what + ": attribute '" + a.name() + "' has an invalid type " + std::to_string(a.type()));
      }
    }
    Node* n = g->add_node(pn.op_type(), pn.name(), std::move(ins), std::move(outs), std::move(attrs), pn.domain());
    n->stream = pn.stream();
    n->pipeline_stage = pn.pipeline_stage();
    for (int64_t o : pn.outputs()) ready[o] = true;
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (produced_data[i]) values[i]->data = std::move(produced_data[i]);
  for (int64_t i : h.outputs()) {
    value_at(i, "graph output");
    if (!ready[i]) throw Error("graph output '" + values[i]->name() + "' is never written");
    g->mark_output(values[i]);
  }
  if (h.has_schedule()) {
    const auto& sc = h.schedule();
    g->schedule.scheduler = sc.scheduler();
    g->schedule.streams = sc.streams();
    g->schedule.pipeline_stages = sc.pipeline_stages();
    for (const auto& e : sc.events()) g->schedule.events.push_back({e.record_after(), e.wait_before()});
    g->schedule.estimated_latency_ms = sc.estimated_latency_ms();
    g->schedule.reason = sc.reason();
  }
  // Streams in range, events naming nodes and pointing forward, every cross-stream edge ordered:
  // a bad schedule is refused here, naming the edge, and never reaches the runtime.
  StreamOrder check(*g);
  return g;
}

}  // namespace ge::core::plan_detail
