// plugins/scheduler/batch_split.cc — the `batch_split` pass: a graph whose every node computes
// each image (sample) of the batch on its own runs as R = B / m copies of itself at micro-batch m,
// one after the other: Split of every graph input along dim 0, the copies, Concat of every output
// along dim 0. The copies share the weights; each copy's intermediate tensors are m/B the size.
//
// Why: at batch B a CNN's activations outgrow the last-level cache and every layer reads its input
// back from DRAM (squeezenet1_1 at batch 8 on one thread: its three MaxPools 2.3 ms against 8 ×
// 94 µs per image, `gec profile`); a micro-batch whose layers' tensors stay in cache does not.
// The cost is reading the weights R times and R times as many kernel launches. It is the
// depth-first, batch-tiled execution of memory-bound layer chains (Alwani et al., "Fused-Layer
// CNN Accelerators", MICRO 2016, tile across layers to keep intermediates on chip; here the tile
// is a group of images). Measured effect: docs/scheduling.md "Batch split".
//
// Legality (every node that reads a value depending on a graph input): the node is on the lists
// below with its batch-preserving condition (a Concat/Softmax/... axis other than 0, a Reshape
// whose target keeps dim 0, a MatMul whose B has no batch of its own, no MaxPool Indices, ...),
// every such input has dim 0 = B and a batch-major format (ND, NCHW, NHWC, NC1HWC0), and every
// other input broadcasts over dim 0 (rank below the output's, or dim 0 of 1) or is a weight.
// Every graph input and output has dim 0 = B. Anything else leaves the graph whole (counter
// `batch_split.refused`; the node and reason at debug level).
//
// Options (manifest [batch_split]):
//   mode = "auto" (default): on the cpu backend at one thread per kernel, split when the largest
//          node's working set (the bytes of its activation inputs and outputs) at batch B exceeds
//          3/4 of the last-level cache and the weights are no larger than it; at more threads per
//          kernel the smaller kernels scale worse than the cache saves (squeezenet1_1 at 2
//          threads: 13.0 → 13.7 ms split in two); "on": split at any thread count and backend;
//          "off".
//   micro_batch = 0 (default): the largest divisor m ≥ 2 of B whose working set (m/B of the
//          batch's) fits in a quarter of the cache (one image per copy gained nothing over two
//          on the models measured and launches R times as many kernels); or m, a divisor of B.
// Runs in the schedule stage before `schedule`: after layout (TransData and weights are final),
// before the scheduler orders the copies and the memory stage reuses one copy's buffers for the
// next (the arena shrinks with the micro-batch).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/sdk/error.h"
#include "ge/sdk/log.h"
#include "registration.h"

namespace ge::sched {
namespace {

constexpr const char* kSection = "batch_split";

/// Ops computing each position of dim 0 from the same position of their batched inputs, with
/// other inputs broadcast (ONNX Operators.md broadcasting).
const std::set<std::string>& elementwise_ops() {
  static const std::set<std::string> s = {
      "Relu", "LeakyRelu", "Sigmoid", "Tanh", "Clip", "HardSigmoid", "HardSwish", "Elu", "Selu", "Celu",
      "Softplus", "Softsign", "Exp", "Log", "Abs", "Neg", "Sqrt", "Reciprocal", "Erf", "Gelu", "Identity",
      "Cast", "Floor", "Ceil", "Round", "Sign", "PRelu", "Mish", "ThresholdedRelu", "Not", "Sin", "Cos",
      "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Equal", "Less", "Greater",
      "LessOrEqual", "GreaterOrEqual", "Where", "And", "Or", "Xor", "Dropout", "FusedElementwise"};
  return s;
}

/// Ops that read input 0 per image (its dim 0) with weights in the other inputs; ge.FusedConv's
/// residual input Z (slot 3) is batched like the output.
const std::set<std::string>& per_image_ops() {
  static const std::set<std::string> s = {
      "Conv", "ConvTranspose", "FusedConv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
      "LpPool", "BatchNormalization", "InstanceNormalization", "LRN", "DepthToSpace", "SpaceToDepth", "TransData"};
  return s;
}

/// Axis ops: separable when their (normalized) axis is not 0.
const std::set<std::string>& axis_ops() {
  static const std::set<std::string> s = {"Concat", "Split", "Softmax", "LogSoftmax", "Hardmax",
                                          "LayerNormalization", "ArgMax", "ArgMin", "LpNormalization",
                                          "Flatten", "CumSum", "TopK"};
  return s;
}

bool batch_major(Format f) {
  return f == Format::ND || f == Format::NCHW || f == Format::NHWC || f == Format::NC1HWC0 || f == Format::NC1HWC0_C04;
}

const std::vector<int64_t>* const_ints(const Value* v, std::vector<int64_t>& store) {
  if (!v || !v->is_constant() || (v->dtype != DataType::Int64 && v->dtype != DataType::Int32)) return nullptr;
  store = v->data->to_int64_vector();
  return &store;
}

const std::vector<double>* const_floats(const Value* v, std::vector<double>& store) {
  if (!v || !v->is_constant()) return nullptr;
  store = v->data->to_double_vector();
  return &store;
}

class Analysis {
 public:
  Analysis(const Graph& g, int64_t B) : g_(g), B_(B), batched_(g.value_id_bound(), 0) {}

  /// "" when every node is separable, else why not.
  std::string run() {
    for (const Value* v : g_.inputs()) {
      if (v->shape.rank() == 0 || v->shape[0] != B_) return "graph input '" + v->name() + "' has no batch dim of " + std::to_string(B_);
      if (!batch_major(v->format)) return "graph input '" + v->name() + "' is " + std::string(format_name(v->format));
      batched_[v->id()] = 1;
    }
    for (const Node* n : g_.topological_order()) {
      bool any = false;
      for (const Value* v : n->inputs()) any = any || (v && batched_[v->id()]);
      if (!any) continue;  // computes no batch: shared by the copies
      if (std::string why = check(*n); !why.empty()) return n->describe() + ": " + why;
      for (const Value* o : n->outputs())
        if (o) {
          if (o->shape.rank() == 0 || o->shape[0] != B_) return n->describe() + ": output '" + o->name() + "' has no batch dim";
          if (!batch_major(o->format)) return n->describe() + ": output '" + o->name() + "' is " + std::string(format_name(o->format));
          batched_[o->id()] = 1;
        }
    }
    for (const Value* v : g_.outputs()) {
      if (!batched_[v->id()]) return "graph output '" + v->name() + "' does not depend on the batch";
      if (v->is_graph_input()) return "graph output '" + v->name() + "' is a graph input";
    }
    return "";
  }

  bool batched(const Value* v) const { return v && batched_[v->id()]; }

  /// Reshape targets whose dim 0 is B: rewritten to m in each copy.
  const std::set<const Node*>& reshape_targets() const { return reshape_b_; }

 private:
  /// A batched input must be [B, ...]; an unbatched one must broadcast over dim 0 of `out_rank`.
  /// (Only elementwise ops broadcast: elsewhere a batched input of another rank is fine.)
  std::string operands(const Node& n, size_t out_rank, const std::set<size_t>& batch_free = {},
                       bool broadcasts = false) const {
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const Value* v = n.input(i);
      if (!v) continue;
      if (batched(v)) {
        if (batch_free.count(i)) return "input " + std::to_string(i) + " may not depend on the batch";
        if (broadcasts && v->shape.rank() != out_rank) return "batched input " + std::to_string(i) + " is broadcast";
        if (!batch_major(v->format)) return "input " + std::to_string(i) + " is " + std::string(format_name(v->format));
      } else if (!batch_free.count(i) && v->shape.rank() == out_rank && out_rank > 0 && v->shape[0] != 1) {
        return "input " + std::to_string(i) + " has a dim 0 of its own";
      }
    }
    return "";
  }

  int64_t axis(const Node& n, int64_t dflt) const {
    const int64_t r = static_cast<int64_t>(n.input(0)->shape.rank());
    int64_t a = n.attrs.get_int("axis", dflt);
    return a < 0 ? a + r : a;
  }

  std::string check(const Node& n) {
    const std::string& op = n.op_type();
    const bool ge_domain = n.domain() == "ge";
    if (!n.domain().empty() && !ge_domain) return "op of domain '" + n.domain() + "' is not known to be per-image";
    if (ge_domain && op != "FusedConv" && op != "FusedElementwise" && op != "TransData" && op != "FusedMatMul")
      return "not known to be per-image";
    const size_t out_rank = n.output(0) ? n.output(0)->shape.rank() : 0;
    if (elementwise_ops().count(op)) return operands(n, out_rank, {}, true);
    if (per_image_ops().count(op)) {
      if (!batched(n.input(0))) return "input 0 does not depend on the batch";
      if (op == "MaxPool" && n.output(1) && (!n.output(1)->uses().empty() || n.output(1)->is_graph_output()))
        return "its Indices output numbers elements across the batch";
      if (op == "BatchNormalization" && ((n.num_outputs() > 1 && n.output(1)) || n.attrs.get_int("training_mode", 0) != 0))
        return "training mode";
      if (op == "TransData") {
        for (const char* k : {"src_format", "dst_format"}) {
          Format f = Format::FRACTAL_Z;
          try {
            f = format_from_name(n.attrs.get_string(k, "ND"));
          } catch (const Error&) {
          }
          if (!batch_major(f)) return std::string(k) + " is not batch-major";
        }
      }
      std::set<size_t> weights;
      for (size_t i = 1; i < n.num_inputs(); ++i)
        if (!(op == "FusedConv" && i == 3)) weights.insert(i);
      return operands(n, out_rank, weights);
    }
    if (axis_ops().count(op)) {
      // ONNX's default axes: Flatten 1; Softmax, LogSoftmax, Hardmax 1 before opset 13 (the
      // input coerced to 2-D there), -1 from 13; LayerNormalization, LpNormalization, TopK -1;
      // the others 0 (which refuses).
      int64_t dflt = 0;
      if (op == "Flatten") dflt = 1;
      else if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") dflt = n.graph()->opset("") >= 13 ? -1 : 1;
      else if (op == "LayerNormalization" || op == "LpNormalization" || op == "TopK") dflt = -1;
      int64_t a = axis(n, dflt);
      if (op == "CumSum") {
        std::vector<int64_t> s;
        const auto* ax = const_ints(n.input(1), s);
        if (!ax || ax->size() != 1) return "its axis is not a constant";
        a = (*ax)[0] < 0 ? (*ax)[0] + static_cast<int64_t>(n.input(0)->shape.rank()) : (*ax)[0];
      }
      if (a == 0) return "it works along dim 0";
      std::set<size_t> rest;
      if (op != "Concat")
        for (size_t i = 1; i < n.num_inputs(); ++i) rest.insert(i);
      return operands(n, out_rank, rest);
    }
    if (op == "Transpose") {
      const std::vector<int64_t> perm = n.attrs.get_ints("perm");
      if (perm.empty() || perm[0] != 0) return "it moves dim 0";
      return operands(n, out_rank);
    }
    if (op == "Reshape") {
      std::vector<int64_t> s;
      const auto* t = const_ints(n.input(1), s);
      if (!t || t->empty()) return "its target shape is not a constant";
      const bool rest_fixed = std::all_of(t->begin() + 1, t->end(), [](int64_t d) { return d > 0; });
      if ((*t)[0] == B_) reshape_b_.insert(&n);
      else if (!((*t)[0] == 0 || ((*t)[0] == -1 && rest_fixed))) return "its target does not keep dim 0";
      if (n.output(0)->shape[0] != B_) return "its output has no batch dim";
      return operands(n, out_rank, {1});
    }
    if (op == "Slice" || op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin" ||
        op == "ReduceProd" || op == "ReduceL2" || op == "ReduceL1" || op == "ReduceLogSumExp" || op == "ReduceSumSquare" ||
        op == "Squeeze" || op == "Unsqueeze") {
      // Axes from the attribute (older opsets) or input 1 (Reduce* 18, Squeeze/Unsqueeze 13) or
      // input 3 (Slice 10); absent means every axis.
      std::vector<int64_t> axes = n.attrs.get_ints("axes"), s;
      const size_t slot = op == "Slice" ? 3 : 1;
      if (n.input(slot)) {
        const auto* ax = const_ints(n.input(slot), s);
        if (!ax) return "its axes are not a constant";
        axes = *ax;
      }
      const int64_t r = static_cast<int64_t>(op == "Unsqueeze" ? out_rank : n.input(0)->shape.rank());
      // (A Squeeze without axes drops every dim of 1: dim 0 too in a copy of one image.)
      if (axes.empty()) return "it works along every axis";
      for (int64_t a : axes)
        if ((a < 0 ? a + r : a) == 0) return "it works along dim 0";
      std::set<size_t> rest;
      for (size_t i = 1; i < n.num_inputs(); ++i) rest.insert(i);
      return operands(n, out_rank, rest);
    }
    if (op == "Pad") {
      std::vector<int64_t> s;
      std::vector<int64_t> pads = n.attrs.get_ints("pads");
      if (n.input(1)) {
        const auto* p = const_ints(n.input(1), s);
        if (!p) return "its pads are not a constant";
        pads = *p;
      }
      if (n.input(3)) return "it pads chosen axes";
      const size_t r = n.input(0)->shape.rank();
      if (pads.size() != 2 * r || pads[0] != 0 || pads[r] != 0) return "it pads dim 0";
      return operands(n, out_rank, {1, 2, 3});
    }
    if (op == "Resize" || op == "Upsample") {
      // At a scale of 1 these coordinate transformations map output index i of dim 0 to input
      // index i (Operators.md#Resize); tf_half_pixel_for_nn shifts it by half a pixel and
      // tf_crop_and_resize crops dim 0 by its roi.
      const std::string ctm = n.attrs.get_string("coordinate_transformation_mode", "half_pixel");
      if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "align_corners" && ctm != "asymmetric")
        return "coordinate_transformation_mode " + ctm + " moves dim 0";
      std::vector<double> s;
      const Value* scales = op == "Upsample" || n.graph()->opset("") < 11 ? n.input(1) : n.input(2);
      const auto* sc = const_floats(scales, s);
      if (!sc || sc->empty() || (*sc)[0] != 1.0) return "it does not keep dim 0 by a constant scale of 1";
      std::set<size_t> rest;
      for (size_t i = 1; i < n.num_inputs(); ++i) rest.insert(i);
      return operands(n, out_rank, rest);
    }
    if (op == "Gemm") {
      if (n.attrs.get_int("transA", 0) != 0) return "transA reads the batch as columns";
      // A batched C must be [B, N] or [B, 1]: a C of rank 1 broadcasts along the columns.
      return operands(n, out_rank, {1}, true);
    }
    if (op == "MatMul" || op == "FusedMatMul") {
      // numpy.matmul batching: a batched B must have A's batch dims; an unbatched one none.
      // ge.FusedMatMul's bias (input 2) is broadcast on the last dim.
      const Value* b = n.input(1);
      if (batched(b)) {
        if (b->shape.rank() < 3 || b->shape.rank() != n.input(0)->shape.rank()) return "its batched B is broadcast";
        return operands(n, out_rank, {2});
      }
      if (!batched(n.input(0)) || n.input(0)->shape.rank() < 2 || b->shape.rank() > 2) return "B has batch dims";
      return operands(n, out_rank, {1, 2});
    }
    return "not known to be per-image";
  }

  const Graph& g_;
  const int64_t B_;
  std::vector<char> batched_;
  std::set<const Node*> reshape_b_;
};

/// The last-level cache this process's core shares, in bytes (0 when unknown): the kernel's
/// cache topology first (a VM's CPUID may describe the host's whole L3: 384 MiB here against the
/// 32 MiB sysfs reports), else sysconf.
int64_t last_level_cache_bytes() {
  for (const char* idx : {"index3", "index2"}) {
    std::ifstream f(std::string("/sys/devices/system/cpu/cpu0/cache/") + idx + "/size");
    std::string s;
    if (f >> s && !s.empty()) {
      const char unit = s.back();
      const int64_t k = unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
      const int64_t n = std::atoll(s.c_str());
      if (n > 0) return n * k;
    }
  }
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 <= 0) l3 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l3 > 0 ? l3 : 0;
}

/// Bytes of the activations a node reads and writes, and the weights of the graph.
struct Footprint {
  int64_t node_bytes = 0;  ///< largest over nodes, at batch B
  int64_t weight_bytes = 0;
};

Footprint footprint(const Graph& g, const Analysis& a) {
  Footprint f;
  std::set<const Value*> weights;
  for (const Node* n : g.nodes()) {
    int64_t b = 0;
    for (const Value* v : n->inputs())
      if (v && a.batched(v)) b += static_cast<int64_t>(v->nbytes());
      else if (v && v->is_constant()) weights.insert(v);
    for (const Value* v : n->outputs())
      if (v && a.batched(v)) b += static_cast<int64_t>(v->nbytes());
    f.node_bytes = std::max(f.node_bytes, b);
  }
  for (const Value* v : weights) f.weight_bytes += static_cast<int64_t>(v->nbytes());
  return f;
}

Tensor int64_tensor(const std::vector<int64_t>& v) {
  Tensor t = Tensor::allocate(DataType::Int64, Shape{static_cast<int64_t>(v.size())});
  std::copy(v.begin(), v.end(), t.data_as<int64_t>());
  return t;
}

std::string unique_node_name(const Graph& g, const std::string& base) {
  if (!g.find_node(base)) return base;
  for (int i = 1;; ++i)
    if (!g.find_node(base + "_" + std::to_string(i))) return base + "_" + std::to_string(i);
}

/// Rewrites g into R copies at micro-batch m (Analysis a said it may).
void split(Graph& g, const Analysis& a, int64_t B, int64_t m) {
  const int64_t R = B / m;
  const std::vector<Node*> order = g.topological_order();
  std::vector<std::vector<Value*>> copy(g.value_id_bound());  // batched value id -> its R copies
  auto copy_value = [&](Value* v, int64_t r) {
    Shape s = v->shape;
    s[0] = m;
    Value* c = g.add_value(g.unique_value_name(v->name() + "_b" + std::to_string(r)), v->dtype, s);
    c->format = v->format;
    return c;
  };
  // Inputs: Split along dim 0 (opset 13 takes the sizes as an input, older ones as an attribute).
  const bool split_input = g.opset("") >= 13;
  for (Value* x : g.inputs()) {
    std::vector<Value*> parts;
    for (int64_t r = 0; r < R; ++r) parts.push_back(copy_value(x, r));
    Attributes at;
    at.set("axis", int64_t{0});
    std::vector<Value*> ins{x};
    if (split_input) ins.push_back(g.add_constant(g.unique_value_name(x->name() + "_split"), int64_tensor(std::vector<int64_t>(R, m))));
    else at.set("split", std::vector<int64_t>(R, m));
    g.add_node("Split", unique_node_name(g, x->name() + "_batch_split"), ins, parts, at);
    copy[x->id()] = parts;
  }
  std::vector<Node*> batched_nodes;
  for (Node* n : order) {
    bool any = false;
    for (const Value* v : n->inputs()) any = any || a.batched(v);
    if (any) batched_nodes.push_back(n);
  }
  std::unordered_map<const Node*, Value*> target_m;  // Reshape targets with dim 0 = m
  for (const Node* n : a.reshape_targets()) {
    std::vector<int64_t> t = n->input(1)->data->to_int64_vector();
    t[0] = m;
    target_m[n] = g.add_constant(g.unique_value_name(n->input(1)->name() + "_b"), int64_tensor(t));
  }
  for (int64_t r = 0; r < R; ++r)
    for (Node* n : batched_nodes) {
      std::vector<Value*> ins, outs;
      for (size_t i = 0; i < n->num_inputs(); ++i) {
        Value* v = n->input(i);
        if (i == 1 && target_m.count(n)) ins.push_back(target_m.at(n));
        else ins.push_back(v && a.batched(v) ? copy[v->id()][static_cast<size_t>(r)] : v);
      }
      for (Value* o : n->outputs()) {
        if (!o) {
          outs.push_back(nullptr);
          continue;
        }
        Value* c = copy_value(o, r);
        copy[o->id()].push_back(c);
        outs.push_back(c);
      }
      g.add_node(n->op_type(), unique_node_name(g, n->name() + "_b" + std::to_string(r)), ins, outs, n->attrs,
                 n->domain());
    }
  // The originals go; each graph output is the Concat of its copies.
  for (auto it = batched_nodes.rbegin(); it != batched_nodes.rend(); ++it) g.remove_node(*it);
  std::set<const Value*> joined;  // a value listed twice as a graph output gets one Concat
  for (Value* y : g.outputs()) {
    if (!joined.insert(y).second) continue;
    Attributes at;
    at.set("axis", int64_t{0});
    g.add_node("Concat", unique_node_name(g, y->name() + "_batch_concat"), copy[y->id()], {y}, at);
  }
  for (Value* v : g.values())
    if (!v->producer() && v->uses().empty() && !v->is_graph_input() && !v->is_graph_output()) g.remove_value(v);
}

class BatchSplit final : public Pass {
 public:
  PassInfo info() const override {
    PassInfo i;
    i.name = "batch_split";
    i.stage = Stage::Schedule;
    i.min_level = OptLevel::O2;
    i.numerics = NumericsEffect::Exact;
    i.summary = "runs a batch whose images are computed independently as copies of the graph at a micro-batch "
                "whose tensors fit in the last-level cache";
    i.options = {"batch_split.mode", "batch_split.micro_batch"};
    i.before = {"schedule"};
    return i;
  }

  bool run(Graph& g, PassContext& ctx) override {
    const std::string mode = ctx.string_option(kSection, "mode", "auto");
    const int64_t want = ctx.int_option(kSection, "micro_batch", 0);
    // auto: the host CPU's cache decides, so only for the cpu backend.
    if (mode == "off" || (mode == "auto" && (ctx.threads() > 1 || ctx.backend() != "cpu")) || g.inputs().empty())
      return false;
    const int64_t B = g.inputs()[0]->shape.rank() ? g.inputs()[0]->shape[0] : 0;
    if (B < 2 || (want > 0 && want >= B)) return false;
    if (want > 0 && B % want != 0)
      throw ConfigError("batch_split.micro_batch = " + std::to_string(want) + " does not divide the batch of " +
                        std::to_string(B) + " (graph input '" + g.inputs()[0]->name() + "')");
    Analysis a(g, B);
    if (std::string why = a.run(); !why.empty()) {
      ctx.count("batch_split.refused");
      log(LogLevel::Debug, "batch_split: graph '" + g.name + "' runs whole: " + why);
      return false;
    }
    int64_t m = want;
    if (m == 0) {
      const int64_t llc = last_level_cache_bytes();
      const Footprint f = footprint(g, a);
      // Splitting pays where the whole batch's tensors spill out of the cache (measured at one
      // thread, batch 8, 32 MiB L3: squeezenet1_1's largest node 31 MB, mobilenet_v2's 48 MB,
      // unet_small's 50 MB: 6-11 % faster split) and costs where they fit (yolo_small 22 MB: 5 %
      // slower; shufflenet_v2 18 MB: even): a node of over 3/4 of the cache splits.
      // Each copy reads the weights again: up to the cache's size that cost is below the
      // activations' (densenet121, 32 MB of weights, 0.96 of the cache: 209-215 → 188-195 ms
      // split in two); inception_v3's 95 MB and resnet50's 102 MB gain nothing split.
      if (llc == 0 || f.weight_bytes > llc || f.node_bytes <= llc / 4 * 3) {
        log(LogLevel::Debug, "batch_split: largest node " + std::to_string(f.node_bytes) + " B, weights " +
                                 std::to_string(f.weight_bytes) + " B, cache " + std::to_string(llc) + " B: runs whole");
        return false;
      }
      for (int64_t d = B; d >= 2; --d)
        if (B % d == 0) {
          m = d;
          if (f.node_bytes / B * d <= llc / 4) break;
        }
      log(LogLevel::Debug, "batch_split: largest node " + std::to_string(f.node_bytes) + " B at batch " +
                               std::to_string(B) + ", weights " + std::to_string(f.weight_bytes) + " B, cache " +
                               std::to_string(llc) + " B: micro-batch " + std::to_string(m));
      if (m == B) return false;
    }
    split(g, a, B, m);
    ctx.count("batch_split.copies", B / m);
    return true;
  }
};

GE_SCHEDULE_PASS(BatchSplit);

}  // namespace

std::vector<OptionDecl> batch_split_options() {
  return {{"batch_split.mode", OptionType::String, std::string("auto"), {}, {}, {"auto", "on", "off"},
           "split a batch into micro-batches run one after the other (docs/scheduling.md \"Batch split\"): auto "
           "(at one thread per kernel), on, off",
           OptionPhase::Compile, ""},
          {"batch_split.micro_batch", OptionType::Int, int64_t{0}, 0.0, {}, {},
           "images per copy (a divisor of the batch); 0 = the largest whose tensors fit in a quarter of the "
           "last-level cache",
           OptionPhase::Compile, ""}};
}

}  // namespace ge::sched
