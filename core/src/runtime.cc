#include "ge/core/runtime.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <sched.h>
#include <optional>
#include <unordered_map>

#include "ge/core/profiler.h"
#include "ge/sdk/error.h"
#include "ge/sdk/kernel_delegate.h"
#include "ge/sdk/log.h"
#include "ge/sdk/stream_order.h"
#include "stream_pool.h"

namespace ge::core {

struct Executable::Impl {
  struct Step {
    const Node* node;
    std::unique_ptr<Kernel> kernel;
    std::vector<Tensor> inputs, outputs;
  };
  std::vector<Step> steps;
  std::vector<int> step_stream;  // the stream each step runs on (0 when streams run serially)
  // Multi-stream: per stream, its nodes in graph order; step -1 = a view (no kernel).
  struct Task {
    int step = -1;
    std::vector<size_t> waits, records;  // event indices
  };
  std::vector<std::vector<Task>> stream_tasks;
  std::unique_ptr<detail::StreamPool> pool;
  int streams = 1, intra_threads = 1;
  int threads = 1;  ///< the whole budget: the streams' shares (stream_share) add up to it
  size_t aliases = 0;  // nodes executed as views of their input (no kernel)
  // Produced values by Value::id: a view into the arena or their own buffer (empty: none yet).
  std::vector<std::optional<Tensor>> buffers;
  const Tensor* buffer(const Value* v) const {
    return v->id() < buffers.size() && buffers[v->id()] ? &*buffers[v->id()] : nullptr;
  }
  Tensor arena;  // one allocation for every value the memory stage planned (Graph::arena_bytes)
  // Where each graph input is read: (step, input slot).
  std::vector<std::vector<std::pair<size_t, size_t>>> input_uses;
  // Per graph output, the last two buffers collect_outputs copied it into. A returned tensor
  // shares its buffer; once the caller has dropped every copy (use_count 1) a later run copies
  // into it again instead of allocating: a fresh multi-megabyte buffer costs its page faults on
  // every run (yolo_small at batch 8: an 11 MB output, 3.9 ms of a 34 ms run). Two, because
  // `out = exe.run(in)` in a loop still holds the previous run's outputs during the run.
  std::vector<std::array<std::shared_ptr<Tensor>, 2>> output_blocks;
  std::vector<size_t> output_next;  // the slot a new buffer replaces, per output
  std::mutex output_mu;  // collect_outputs of consecutive pipelined requests run on different workers
};

namespace {
/// A node whose only output the memory plan put on its first input's bytes, with the same size,
/// and whose op is a view by the registry's contract (OpDef::view: Reshape, Flatten, Squeeze, …):
/// its output is the input reinterpreted, so nothing needs to run. In-place elementwise ops also
/// share bytes but compute, and are not views.
bool is_view(const Node& n, const Graph& g, const Environment& env) {
  if (g.arena_bytes == 0 || n.num_outputs() != 1 || n.num_inputs() == 0) return false;
  const Value* in = n.input(0);
  const Value* out = n.output(0);
  if (!in || !out || in->arena_offset < 0 || out->arena_offset != in->arena_offset) return false;
  if (in->nbytes() != out->nbytes() || out->is_graph_output() || in->is_graph_input()) return false;
  const OpDef* def = env.ops.find(n.domain(), n.op_type(), g.opset(n.domain()));
  return def && def->view;
}

std::string value_label(const Value& v) {
  std::string s = "value '" + v.name() + "' " + std::string(dtype_name(v.dtype)) + v.shape.str() + " (" +
                  std::to_string(v.nbytes()) + " bytes";
  if (v.producer()) s += ", output of " + v.producer()->describe();
  return s + ")";
}

/// Tensor::allocate, or a ge::Error saying how many bytes were wanted and for what when the host
/// cannot give them (an absurd --input-shape): Tensor::allocate's own message names no tensor.
Tensor allocate_or_refuse(DataType dtype, const Shape& shape, Format format, uint64_t bytes,
                          const std::function<std::string()>& what) {
  try {
    return Tensor::allocate(dtype, shape, format);
  } catch (const std::bad_alloc&) {
  } catch (const Error&) {  // calloc returned null
  }
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  throw Error("out of memory: cannot allocate " + std::to_string(bytes) + " bytes (" + gib + ") for " + what() +
              " (smaller input shapes need less: --input-shape)");
}

/// Threads of stream s when `budget` threads run `streams` streams: budget / streams, one more
/// for the first budget % streams streams, so the shares add up to the budget.
int stream_share(int budget, int streams, int s) {
  return streams <= 1 ? budget : std::max(1, budget / streams + (s < budget % streams ? 1 : 0));
}

/// Cores this process may run on (sched_getaffinity), 0 when unknown.
int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
}
}  // namespace

Executable::Executable(std::shared_ptr<const Graph> graph, const Environment& env, ExecOptions opts)
    : graph_(std::move(graph)), impl_(std::make_unique<Impl>()) {
  Backend& backend = env.backend(opts.backend);
  backend.set_threads(opts.threads);
  const Graph& g = *graph_;
  // A multi-stream schedule is checked before anything runs (ge::Error naming the bad edge or
  // event). The thread budget is split: S streams × (threads / S) intra-op threads each; with
  // fewer threads than streams the nodes run serially in graph order (a linear extension of the
  // schedule's order) with every thread inside the kernels.
  std::unique_ptr<StreamOrder> sorder;
  if (is_multi_stream(g) || g.schedule.pipeline_stages > 1) sorder = std::make_unique<StreamOrder>(g);
  if (is_multi_stream(g)) {
    const int threads = std::max(1, opts.threads);
    if (threads >= g.schedule.streams && !opts.serialize_streams) impl_->streams = g.schedule.streams;
  }
  // Exactly the threads asked for: stream s gets threads / S, and the first threads % S streams
  // one more (4 threads on 3 streams: 2 + 1 + 1, not 3 × 1).
  const int budget = std::max(1, opts.threads);
  impl_->threads = budget;
  impl_->intra_threads = std::max(1, budget / impl_->streams);
  if (const int cores = available_cores(); cores > 0 && budget > cores)
    log(LogLevel::Warn, "running " + std::to_string(budget) + " threads on " + std::to_string(cores) +
                            " available cores oversubscribes them (threads share cores and wait on each "
                            "other; --threads " + std::to_string(cores) + " or fewer runs faster)");
  constexpr size_t kNotInput = SIZE_MAX;
  std::vector<size_t> input_index(g.value_id_bound(), kNotInput);  // by Value::id
  for (size_t i = 0; i < g.inputs().size(); ++i) input_index[g.inputs()[i]->id()] = i;
  impl_->buffers.resize(g.value_id_bound());
  impl_->input_uses.resize(g.inputs().size());

  if (g.arena_bytes > 0 && opts.arena.data() && opts.arena.nbytes() >= g.arena_bytes)
    impl_->arena = opts.arena;
  else if (g.arena_bytes > 0)
    impl_->arena = allocate_or_refuse(DataType::UInt8, Shape{static_cast<int64_t>(g.arena_bytes)}, Format::ND,
                                      g.arena_bytes, [&g] {
                                        // The activation arena; its largest value says what made it so big.
                                        const Value* big = nullptr;
                                        for (const Node* n : g.nodes())
                                          for (const Value* o : n->outputs())
                                            if (o && o->arena_offset >= 0 && !o->is_graph_output() && (!big || o->nbytes() > big->nbytes())) big = o;
                                        return "the activation arena" +
                                               (big ? "; its largest " + value_label(*big) : std::string());
                                      });
  auto tensor_for = [&](const Value* v) -> Tensor {
    if (!v) return Tensor();
    if (v->is_constant()) return *v->data;
    if (input_index[v->id()] != kNotInput) return Tensor::view(v->dtype, v->shape, nullptr, v->format);
    std::optional<Tensor>& buf = impl_->buffers[v->id()];
    if (!buf) {
      Tensor t;
      if (v->arena_offset >= 0 && !v->is_graph_output()) {
        if (static_cast<uint64_t>(v->arena_offset) + v->nbytes() > g.arena_bytes)
          throw Error("value '" + v->name() + "' lies outside the planned arena (offset " +
                      std::to_string(v->arena_offset) + ", " + std::to_string(v->nbytes()) + " bytes, arena " +
                      std::to_string(g.arena_bytes) + ")");
        t = Tensor::view(v->dtype, v->shape, impl_->arena.data_as<uint8_t>() + v->arena_offset, v->format);
      } else {
        t = allocate_or_refuse(v->dtype, v->shape, v->format, v->nbytes(), [v] { return value_label(*v); });
      }
      buf = std::move(t);
    }
    return Tensor::view(v->dtype, v->shape, buf->data(), v->format);
  };

  // With an arena plan the nodes run in the graph's order (the order the plan's lifetimes were
  // computed for); without one, in a topological order.
  // A multi-stream schedule always runs in graph order (StreamOrder checked it).
  std::vector<Node*> order = g.arena_bytes > 0 || sorder ? g.nodes() : g.topological_order();
  for (Node* n : order) {
    if (is_view(*n, g, env)) {
      // The memory plan placed the output on the input's bytes: the node is a view, no kernel.
      tensor_for(n->output(0));
      ++impl_->aliases;
      continue;
    }
    impl_->step_stream.push_back(impl_->streams > 1 ? n->stream : 0);
    const KernelDef* kd = env.kernels.find(opts.backend, n->domain(), n->op_type());
    if (!kd) {
      // Unsupported, not malformed: the op is defined (the importer checked), GE cannot run it here.
      const OpDef* def = env.ops.find(n->domain(), n->op_type(), g.opset(n->domain()));
      const FunctionExpander* fx = env.ops.expander(n->domain(), n->op_type());
      const bool body = fx && fx->has_body(g.opset(n->domain()));
      throw UnsupportedError(n->describe() + ": no kernel for op type " + n->op_type() +
                             (def ? "-" + std::to_string(def->since_version) : "") + " (backends searched: " +
                             kernel_backends_searched(env.kernels, opts.backend) + ")" + (body ? "" : "; it has no ONNX function body to expand"));
    }
    KernelBuildContext ctx{*n, g.opset(n->domain()), stream_share(budget, impl_->streams, n->stream)};
    Impl::Step s{n, kd->factory(ctx), {}, {}};
    for (size_t i = 0; i < n->num_inputs(); ++i) {
      const Value* v = n->input(i);
      s.inputs.push_back(tensor_for(v));
      if (v && input_index[v->id()] != kNotInput) impl_->input_uses[input_index[v->id()]].emplace_back(impl_->steps.size(), i);
    }
    for (const Value* o : n->outputs()) s.outputs.push_back(tensor_for(o));
    impl_->steps.push_back(std::move(s));
  }
  if (impl_->streams > 1) build_streams(backend);
}

void Executable::build_streams(Backend& backend) {
  const Graph& g = *graph_;
  Impl& im = *impl_;
  im.stream_tasks.assign(static_cast<size_t>(im.streams), {});
  std::unordered_map<const Node*, std::pair<int, size_t>> where;  // stream, task index
  std::unordered_map<const Node*, int> step_of;
  for (size_t k = 0; k < im.steps.size(); ++k) step_of[im.steps[k].node] = static_cast<int>(k);
  for (const Node* n : g.nodes()) {
    auto it = step_of.find(n);
    Impl::Task t;
    t.step = it == step_of.end() ? -1 : it->second;
    where[n] = {n->stream, im.stream_tasks[n->stream].size()};
    im.stream_tasks[n->stream].push_back(std::move(t));
  }
  const std::vector<StreamEvent>& ev = g.schedule.events;
  for (size_t e = 0; e < ev.size(); ++e) {
    auto [rs, ri] = where.at(g.find_node(ev[e].record_after));
    auto [ws, wi] = where.at(g.find_node(ev[e].wait_before));
    im.stream_tasks[rs][ri].records.push_back(e);
    im.stream_tasks[ws][wi].waits.push_back(e);
  }
  // Each worker's OpenMP thread count is its stream's share (omp_set_num_threads is per thread),
  // so kernels that size their parallel regions from it use the budget and no more.
  im.pool = std::make_unique<detail::StreamPool>(im.streams, ev.size(), [&backend, budget = im.threads, streams = im.streams](int s) {
    backend.set_threads(stream_share(budget, streams, s));
  });
}

Executable::~Executable() = default;

size_t Executable::num_kernels() const { return impl_->steps.size(); }
size_t Executable::num_aliases() const { return impl_->aliases; }
uint64_t Executable::arena_bytes() const { return graph_->arena_bytes; }

std::optional<Tensor> Executable::value(const std::string& name) const {
  const Value* v = graph_->find_value(name);
  if (!v) return std::nullopt;
  const Tensor* t = impl_->buffer(v);
  if (!t) return std::nullopt;
  return t->clone();
}

const Node& Executable::step_node(size_t i) const { return *impl_->steps.at(i).node; }
std::string Executable::step_kernel(size_t i) const { return impl_->steps.at(i).kernel->impl_name(); }
int Executable::step_stream(size_t i) const { return impl_->step_stream.at(i); }
int Executable::streams() const { return impl_->streams; }
int Executable::intra_op_threads() const { return impl_->intra_threads; }

std::vector<Tensor> Executable::run(const std::vector<Tensor>& inputs) { return run(inputs, RunOptions{}); }

void Executable::bind_inputs(const std::vector<Tensor>& inputs) {
  const Graph& g = *graph_;
  if (inputs.size() != g.inputs().size())
    throw Error("model expects " + std::to_string(g.inputs().size()) + " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* v = g.inputs()[i];
    if (inputs[i].dtype() != v->dtype || inputs[i].shape() != v->shape)
      throw Error("input '" + v->name() + "' expects " + std::string(dtype_name(v->dtype)) + v->shape.str() + ", got " +
                  std::string(dtype_name(inputs[i].dtype())) + inputs[i].shape().str());
    for (auto [step, slot] : impl_->input_uses[i])
      impl_->steps[step].inputs[slot].set_data(const_cast<void*>(inputs[i].data()));
  }
}

std::vector<Tensor> Executable::collect_outputs(const std::vector<Tensor>& inputs) const {
  const Graph& g = *graph_;
  std::vector<Tensor> out;
  for (const Value* v : g.outputs()) {
    if (v->is_constant()) out.push_back(v->data->clone());
    else if (v->is_graph_input()) {
      for (size_t i = 0; i < g.inputs().size(); ++i)
        if (g.inputs()[i] == v) out.push_back(inputs[i].clone());
    } else {
      const Tensor* t = impl_->buffer(v);
      if (!t) throw Error("graph output '" + v->name() + "' has no buffer (no node of the plan writes it)");
      out.push_back(copy_output(out.size(), *t));
    }
  }
  return out;
}

Tensor Executable::copy_output(size_t k, const Tensor& src) const {
  std::lock_guard<std::mutex> lock(impl_->output_mu);
  if (impl_->output_blocks.size() <= k) {
    impl_->output_blocks.resize(k + 1);
    impl_->output_next.resize(k + 1, 0);
  }
  for (std::shared_ptr<Tensor>& b : impl_->output_blocks[k])
    if (b && b.use_count() == 1 && b->dtype() == src.dtype() && b->shape() == src.shape() && b->format() == src.format()) {
      if (src.nbytes()) std::memcpy(b->data(), src.data(), src.nbytes());
      return Tensor::wrap(b->dtype(), b->shape(), b->data(), b, b->format());
    }
  size_t& next = impl_->output_next[k];
  std::shared_ptr<Tensor>& b = impl_->output_blocks[k][next];
  next = (next + 1) % 2;
  b = std::make_shared<Tensor>(src.clone());
  return Tensor::wrap(b->dtype(), b->shape(), b->data(), b, b->format());
}

void Executable::run_step(size_t k, StepTimes* prof) {
  auto now_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
  auto& s = impl_->steps[k];
  KernelIO io{s.inputs, s.outputs};
  if (prof) prof->steps[k].start_ns = now_ns();
  try {
    s.kernel->run(io);
  } catch (const Error& e) {
    // Kernels name their node themselves, mostly; the others get it here (once).
    const std::string desc = s.node->describe();
    if (std::string(e.what()).rfind(desc, 0) == 0) throw;
    throw Error(desc + ": " + e.what());
  }
  if (prof) prof->steps[k].end_ns = now_ns();
}

int Executable::num_stages() const { return graph_->schedule.pipeline_stages; }

void Executable::run_stage(int stage) {
  if (stage < 0 || stage >= num_stages())
    throw Error("pipeline stage " + std::to_string(stage) + " outside 0.." + std::to_string(num_stages() - 1));
  // Stages are contiguous in graph order (StreamOrder checks it when the plan is made and loaded).
  for (size_t k = 0; k < impl_->steps.size(); ++k)
    if (impl_->steps[k].node->pipeline_stage == stage) run_step(k, nullptr);
}

std::vector<Tensor> Executable::run(const std::vector<Tensor>& inputs, const RunOptions& ro) {
  StepTimes* prof = ro.profile;
  if (prof) prof->steps.assign(impl_->steps.size(), StepSpan{});
  bind_inputs(inputs);
  if (impl_->pool) {
    detail::StreamPool& pool = *impl_->pool;
    const std::function<void(int)> body = [&](int stream) {
      for (const Impl::Task& t : impl_->stream_tasks[stream]) {
        for (size_t e : t.waits)
          if (!pool.wait(e)) return;  // another stream failed
        if (pool.aborted()) return;
        if (t.step >= 0) run_step(static_cast<size_t>(t.step), prof);
        for (size_t e : t.records) pool.record(e);
      }
    };
    pool.run(body);
  } else {
    for (size_t k = 0; k < impl_->steps.size(); ++k) run_step(k, prof);
  }
  return collect_outputs(inputs);
}

}  // namespace ge::core
