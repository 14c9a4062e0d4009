// Work counts of a node and the roofline cost model (ge/sdk/cost_model.h).
#include "ge/sdk/cost_model.h"

#include <algorithm>
#include <cmath>

#include "ge/sdk/op_registry.h"

namespace ge {

namespace {

int64_t numel_of(const Value* v) { return v ? v->numel() : 0; }
const Shape* shape_of(const Node& n, size_t i) { return n.input(i) ? &n.input(i)->shape : nullptr; }
int64_t last_dim(const Shape* s) { return s && s->rank() ? (*s)[s->rank() - 1] : 0; }

// prod(W.shape[1:]) = (Cin/group)·kh·kw…: the multiply-adds per output element of a convolution.
double conv_macs_per_output(const Node& n) {
  const Shape* w = shape_of(n, 1);
  if (!w || w->rank() < 2) return 0;
  double p = 1;
  for (size_t i = 1; i < w->rank(); ++i) p *= static_cast<double>((*w)[i]);
  return p;
}

/// The node's definition in `ops`, else in its graph's registry; null when neither knows it.
const OpDef* def_of(const Node& n, const OpRegistry* ops) {
  if (!ops && n.graph()) ops = n.graph()->ops;
  if (!ops) return nullptr;
  return ops->find(n.domain(), n.op_type(), n.graph() ? n.graph()->opset(n.domain()) : 1 << 30);
}

/// The registry's class of the op (op_class before the shape-based refinements).
std::string contract_class(const OpDef* d) {
  if (!d) return "other";
  if (d->view) return "view";
  if (!d->cost_class.empty()) return d->cost_class;
  if (d->pattern == OpPattern::Elementwise || d->pattern == OpPattern::Broadcast) return "elementwise";
  return "other";
}


}  // namespace

double node_flops(const Node& n, const OpRegistry* ops) {
  const std::string& op = n.op_type();
  const bool ge = n.domain() == "ge";
  const double out = static_cast<double>(numel_of(n.output(0)));
  auto has = [&](size_t i) { return n.input(i) != nullptr; };
  auto act = [&] { return n.attrs.get_string("activation", "").empty() ? 0.0 : out; };
  if (op == "Conv" && n.domain().empty()) return 2 * out * conv_macs_per_output(n) + (has(2) ? out : 0);
  if (op == "FusedConv" && ge)
    return 2 * out * conv_macs_per_output(n) + (has(2) ? out : 0) + (has(3) ? out : 0) + act();
  if (op == "MatMul" && n.domain().empty()) return 2 * out * static_cast<double>(last_dim(shape_of(n, 0)));
  if (op == "FusedMatMul" && ge)
    return 2 * out * static_cast<double>(last_dim(shape_of(n, 0))) + (has(2) ? out : 0) + act();
  if (op == "Gemm") {
    const Shape* a = shape_of(n, 0);
    if (!a || a->rank() != 2) return 0;
    double k = static_cast<double>(n.attrs.get_int("transA", 0) ? (*a)[0] : (*a)[1]);
    return 2 * out * k + (has(2) ? out : 0);
  }
  if (op == "Attention" && ge) {
    const Shape* kt = shape_of(n, 1);  // [B,H,d,S]
    double s = static_cast<double>(last_dim(kt));
    double d = kt && kt->rank() >= 2 ? static_cast<double>((*kt)[kt->rank() - 2]) : 0;
    double bh_ss = d > 0 ? out / d * s : 0;  // out = B·H·S·d
    return 4 * out * s + 5 * bh_ss;
  }
  if (op == "FusedElementwise" && ge) {
    // One operation per program instruction (attribute `ops`) per element.
    if (const AttrValue* a = n.attrs.find("ops"))
      if (auto* v = std::get_if<std::vector<std::string>>(a)) return out * static_cast<double>(std::max<size_t>(1, v->size()));
    return out;
  }
  if (op == "Softmax" || op == "LogSoftmax") return 5 * out;
  if (op == "LayerNormalization") return 8 * out;
  if (op == "Gelu") return 8 * out;
  if (op == "BatchNormalization" || op == "InstanceNormalization") return 2 * out;
  if (op == "MaxPool" || op == "AveragePool") {
    double k = 1;
    for (int64_t d : n.attrs.get_ints("kernel_shape")) k *= static_cast<double>(d);
    return out * k;
  }
  const OpDef* d = def_of(n, ops);
  if (d && d->pattern == OpPattern::Reduce) return static_cast<double>(numel_of(n.input(0)));
  if (contract_class(d) == "elementwise") return out;
  return 0;
}

uint64_t node_bytes(const Node& n) {
  uint64_t b = 0;
  for (const Value* v : n.inputs()) b += v ? v->nbytes() : 0;
  for (const Value* v : n.outputs()) b += v ? v->nbytes() : 0;
  return b;
}

std::string op_class(const Node& n, const OpRegistry* ops) {
  const std::string cls = contract_class(def_of(n, ops));
  if (cls != "gemm") return cls;
  const std::string& op = n.op_type();
  // Grouped convolutions (depthwise: one input channel per group) do a few MACs per loaded
  // byte and reach a small fraction of the GEMM ceiling: a class of their own.
  if (n.attrs.get_int("group", 1) > 1 && (op == "Conv" || op == "FusedConv")) {
    const Value* x = n.input(0);
    const int64_t g = n.attrs.get_int("group", 1);
    const bool depthwise = x && x->shape.rank() >= 2 && x->shape[1] == g;
    if (depthwise) return "depthwise";
    // Blocked (16-channel) kernels need whole blocks per group; other group widths take oneDNN's
    // slower paths (reorders inside the convolution), a class of their own.
    const int64_t per_group = x && x->shape.rank() >= 2 ? x->shape[1] / g : 0;
    return per_group % 16 == 0 ? "grouped" : "grouped_unaligned";
  }
  // Matrix-vector products (one activation row, batch 1 classifiers) stream their weights from
  // memory once per inference: bandwidth-bound at DRAM speed, not at the cached-activation
  // bandwidth the roofline's B(t) measures.
  if ((op == "MatMul" || op == "Gemm" || op == "FusedMatMul") && n.input(0) && n.input(0)->shape.rank() >= 1 &&
      n.input(0)->shape.numel() == n.input(0)->shape[n.input(0)->shape.rank() - 1])
    return "gemv";
  return cls;
}

namespace {
/// x1 · min(t, tn)^a with a chosen so that the curve passes through (tn, xn).
double scaled(double x1, double xn, int tn, int t) {
  t = std::max(1, t);
  if (tn <= 1 || x1 <= 0 || xn <= 0) return std::max(x1, 1e-9);
  const double a = std::log(xn / x1) / std::log(static_cast<double>(tn));
  return x1 * std::pow(static_cast<double>(std::min(t, tn)), a);
}
}  // namespace

double RooflineCostModel::gflops(int threads) const {
  return scaled(c_.gemm_gflops_1t, c_.gemm_gflops_nt, c_.threads_nt, threads);
}
double RooflineCostModel::gbps(int threads) const {
  return scaled(c_.mem_gbps_1t, c_.mem_gbps_nt, c_.threads_nt, threads);
}

double RooflineCostModel::efficiency(const std::string& cls, int threads) const {
  auto it = c_.efficiency.find(cls);
  const double e1 = it != c_.efficiency.end() && it->second > 0 ? it->second : 0.3;
  auto nt = c_.efficiency_nt.find(cls);
  if (nt == c_.efficiency_nt.end() || nt->second <= 0) return e1;
  return scaled(e1, nt->second, c_.threads_nt, threads);
}

uint64_t node_weight_bytes(const Node& n) {
  uint64_t b = 0;
  for (const Value* v : n.inputs()) b += v && v->is_constant() ? v->nbytes() : 0;
  return b;
}

double RooflineCostModel::weight_gbps(int threads) const { return gbps(threads) * efficiency("gemv", threads); }

double RooflineCostModel::node_us(const Node& n, int threads) const {
  const std::string cls = op_class(n, ops_);
  if (cls == "view") return 0;
  const double compute_ns = node_flops(n, ops_) / gflops(threads);
  const double memory_ns = static_cast<double>(node_bytes(n)) / gbps(threads);
  // gemv's efficiency already prices its weights read cold (it is calibrated that way).
  const double weights_ns = cls == "gemv" ? 0 : static_cast<double>(node_weight_bytes(n)) / weight_gbps(threads);
  return c_.launch_us + (std::max(compute_ns, memory_ns) / efficiency(cls, threads) + weights_ns) / 1000.0;
}

}  // namespace ge
