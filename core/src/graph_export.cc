#include "ge/core/graph_export.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "ge/sdk/error.h"
#include "ge/sdk/layout.h"
#include "onnx_tensor.h"

namespace ge::core {

namespace {

std::string dot_quote(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o + "\"";
}

std::string type_str(const Value& v) { return std::string(dtype_name(v.dtype)) + v.shape.str(); }

void set_type(onnx::ValueInfoProto* vi, const Value& v) {
  vi->set_name(v.name());
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int32_t>(v.dtype));  // ge::DataType uses ONNX's numbering
  auto* shape = tt->mutable_shape();
  for (int64_t d : v.shape.dims()) shape->add_dim()->set_dim_value(d);
}

void set_attr(onnx::AttributeProto* a, const std::string& name, const AttrValue& v) {
  using A = onnx::AttributeProto;
  a->set_name(name);
  if (auto* i = std::get_if<int64_t>(&v)) {
    a->set_type(A::INT);
    a->set_i(*i);
  } else if (auto* f = std::get_if<float>(&v)) {
    a->set_type(A::FLOAT);
    a->set_f(*f);
  } else if (auto* s = std::get_if<std::string>(&v)) {
    a->set_type(A::STRING);
    a->set_s(*s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&v)) {
    a->set_type(A::INTS);
    for (int64_t x : *is) a->add_ints(x);
  } else if (auto* fs = std::get_if<std::vector<float>>(&v)) {
    a->set_type(A::FLOATS);
    for (float x : *fs) a->add_floats(x);
  } else if (auto* ss = std::get_if<std::vector<std::string>>(&v)) {
    a->set_type(A::STRINGS);
    for (const auto& x : *ss) a->add_strings(x);
  } else if (auto* t = std::get_if<Tensor>(&v)) {
    a->set_type(A::TENSOR);
    tensor_to_proto(*t, name, a->mutable_t());
  }
}

/// What a fused node computes beyond its base op, from the attributes its fusion rule wrote: the
/// text-valued ones (`activation="Relu"`, FusedElementwise's `ops` program, …), one per line.
std::string absorbed_label(const Node& n) {
  std::string out;
  for (const auto& [key, v] : n.attrs.all()) {
    std::string text;
    if (auto* str = std::get_if<std::string>(&v)) {
      text = *str;
    } else if (auto* list = std::get_if<std::vector<std::string>>(&v)) {
      for (const std::string& x : *list) text += (text.empty() ? "" : ", ") + x;
    } else {
      continue;
    }
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    out += "\n" + key + ": " + text;
  }
  return out;
}

std::string svg_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '&') o += "&amp;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

std::string human_bytes(double b) {
  char buf[32];
  if (b >= 1024.0 * 1024.0) std::snprintf(buf, sizeof buf, "%.2f MiB", b / (1024.0 * 1024.0));
  else if (b >= 1024.0) std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  else std::snprintf(buf, sizeof buf, "%.0f B", b);
  return buf;
}

/// A round tick spacing giving at most `max_ticks` ticks over [0, span].
double tick_step(double span, int max_ticks) {
  if (span <= 0) return 1;
  double step = std::pow(10.0, std::floor(std::log10(span / max_ticks)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (span / (step * m) <= max_ticks) return step * m;
  return step * 10;
}

}  // namespace

MemoryPicture memory_picture(const Graph& g) {
  MemoryPicture p;
  const std::vector<Node*> order = g.nodes();
  p.steps = static_cast<int>(order.size());
  p.arena_bytes = g.arena_bytes;
  std::unordered_map<const Node*, int> step;
  for (int i = 0; i < p.steps; ++i) step[order[i]] = i;
  for (int i = 0; i < p.steps; ++i)
    for (const Value* v : order[i]->outputs()) {
      if (!v || v->arena_offset < 0 || v->nbytes() == 0) continue;
      MemoryPicture::Buffer b{v, i, i, static_cast<uint64_t>(v->arena_offset), static_cast<uint64_t>(v->arena_offset) + v->nbytes()};
      for (const Use& u : v->uses())
        if (auto it = step.find(u.node); it != step.end()) b.last_step = std::max(b.last_step, it->second);
      p.buffers.push_back(b);
    }
  // Live bytes per step: the union of the byte ranges of the buffers live there (a view and its
  // source, an in-place output and its input, a Concat and its slices share bytes and count once).
  p.live_bytes.assign(static_cast<size_t>(p.steps), 0);
  std::vector<size_t> by_first(p.buffers.size());
  for (size_t i = 0; i < by_first.size(); ++i) by_first[i] = i;
  std::sort(by_first.begin(), by_first.end(), [&](size_t a, size_t b) { return p.buffers[a].first_step < p.buffers[b].first_step; });
  std::vector<size_t> active;
  size_t next = 0;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (int s = 0; s < p.steps; ++s) {
    while (next < by_first.size() && p.buffers[by_first[next]].first_step <= s) active.push_back(by_first[next++]);
    std::erase_if(active, [&](size_t i) { return p.buffers[i].last_step < s; });
    ranges.clear();
    for (size_t i : active) ranges.emplace_back(p.buffers[i].begin, p.buffers[i].end);
    std::sort(ranges.begin(), ranges.end());
    uint64_t total = 0, cur_b = 0, cur_e = 0;
    for (auto [b, e] : ranges) {
      if (b > cur_e) {
        total += cur_e - cur_b;
        cur_b = b, cur_e = e;
      } else {
        cur_e = std::max(cur_e, e);
      }
    }
    total += cur_e - cur_b;
    p.live_bytes[static_cast<size_t>(s)] = total;
    p.peak_live_bytes = std::max(p.peak_live_bytes, total);
  }
  return p;
}

std::string to_memory_svg(const Graph& g, std::optional<uint64_t> planner_lower_bound) {
  const MemoryPicture p = memory_picture(g);
  const uint64_t bound = planner_lower_bound.value_or(p.peak_live_bytes);
  if (p.buffers.empty() && p.arena_bytes == 0)
    throw Error("graph '" + g.name + "' has no memory plan (no value has an arena offset): compile it first");
  const double W = 960, H = 540, left = 90, top = 40, right = 20, bottom = 50;
  const double pw = W - left - right, ph = H - top - bottom;
  const double ymax = static_cast<double>(std::max<uint64_t>({p.arena_bytes, p.peak_live_bytes, 1}));
  const double steps = std::max(1, p.steps);
  auto X = [&](double step) { return left + pw * step / steps; };
  auto Y = [&](double bytes) { return top + ph - ph * bytes / ymax; };
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(2);
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " "
     << H << "\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\" data-arena-bytes=\"" << p.arena_bytes
     << "\" data-lower-bound-bytes=\"" << bound
     << "\" data-peak-live-bytes=\"" << p.peak_live_bytes << "\" data-steps=\"" << p.steps << "\">\n";
  os << "<title>" << svg_escape("memory plan of " + g.name) << "</title>\n";
  os << "<rect x=\"0\" y=\"0\" width=\"" << W << "\" height=\"" << H << "\" fill=\"white\"/>\n";
  os << "<text x=\"" << left << "\" y=\"18\" font-size=\"13\">" << svg_escape(g.name) << ": arena "
     << human_bytes(static_cast<double>(p.arena_bytes)) << ", lower bound " << human_bytes(static_cast<double>(bound))
     << ", peak live " << human_bytes(static_cast<double>(p.peak_live_bytes)) << ", " << p.buffers.size() << " buffers over " << p.steps
     << " steps</text>\n";
  // Buffers: x = the steps from the one that writes it to the last that reads it, y = its bytes.
  static const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                   "#edc948", "#e15759", "#9c755f", "#ff9da7", "#bab0ac"};
  std::map<std::string, int> colour;
  for (const MemoryPicture::Buffer& b : p.buffers) {
    const Node* prod = b.value->producer();
    const std::string op = prod ? (prod->domain().empty() ? "" : prod->domain() + ".") + prod->op_type() : "";
    const int c = colour.emplace(op, static_cast<int>(colour.size()) % 10).first->second;
    const double x0 = X(b.first_step), x1 = X(b.last_step + 1), y0 = Y(static_cast<double>(b.end)), y1 = Y(static_cast<double>(b.begin));
    os << "<rect x=\"" << x0 << "\" y=\"" << y0 << "\" width=\"" << std::max(0.5, x1 - x0) << "\" height=\""
       << std::max(0.5, y1 - y0) << "\" fill=\"" << kPalette[c] << "\" fill-opacity=\"0.75\" stroke=\"#333\" stroke-width=\"0.3\">"
       << "<title>" << svg_escape(b.value->name() + " " + type_str(*b.value) + ", " + human_bytes(static_cast<double>(b.end - b.begin)) +
                                  " at offset " + std::to_string(b.begin) + ", steps " + std::to_string(b.first_step) + "-" +
                                  std::to_string(b.last_step) + (prod ? ", written by " + prod->describe() : ""))
       << "</title></rect>\n";
  }
  // Live bytes per step (the union of the live buffers' bytes) and its peak, the lower bound.
  os << "<polyline fill=\"none\" stroke=\"#c00\" stroke-width=\"1\" points=\"";
  for (int s = 0; s < p.steps; ++s)
    os << X(s) << "," << Y(static_cast<double>(p.live_bytes[s])) << " " << X(s + 1) << "," << Y(static_cast<double>(p.live_bytes[s])) << " ";
  os << "\"/>\n";
  const double yp = Y(static_cast<double>(p.peak_live_bytes)), yb = Y(static_cast<double>(bound)),
               ya = Y(static_cast<double>(p.arena_bytes));
  os << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << yp << "\" y2=\"" << yp
     << "\" stroke=\"#c00\" stroke-dasharray=\"6,3\"/>\n";
  os << "<text x=\"" << left + pw - 4 << "\" y=\"" << yp + 12 << "\" text-anchor=\"end\" fill=\"#c00\">peak live "
     << human_bytes(static_cast<double>(p.peak_live_bytes)) << " (least arena for these buffers in this order)</text>\n";
  if (bound != p.peak_live_bytes) {  // the planner's bound allows aliases this plan's level did not use
    os << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << yb << "\" y2=\"" << yb
       << "\" stroke=\"#070\" stroke-dasharray=\"2,3\"/>\n";
    os << "<text x=\"" << left + pw - 4 << "\" y=\"" << yb + 12 << "\" text-anchor=\"end\" fill=\"#070\">lower bound "
       << human_bytes(static_cast<double>(bound)) << " (the planner's: every legal alias)</text>\n";
  }
  os << "<line x1=\"" << left << "\" x2=\"" << left + pw << "\" y1=\"" << ya << "\" y2=\"" << ya
     << "\" stroke=\"#000\" stroke-width=\"1.2\"/>\n";
  os << "<text x=\"" << left + 4 << "\" y=\"" << ya - 4 << "\">arena " << human_bytes(static_cast<double>(p.arena_bytes))
     << "</text>\n";
  // Axes.
  os << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << pw << "\" height=\"" << ph
     << "\" fill=\"none\" stroke=\"#888\"/>\n";
  const double xs = tick_step(steps, 12);
  for (double t = 0; t <= steps; t += xs)
    os << "<text x=\"" << X(t) << "\" y=\"" << top + ph + 14 << "\" text-anchor=\"middle\">" << static_cast<int64_t>(t) << "</text>\n";
  os << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">schedule step (node order)</text>\n";
  const double ys = tick_step(ymax, 8);
  for (double t = 0; t <= ymax; t += ys)
    os << "<text x=\"" << left - 6 << "\" y=\"" << Y(t) + 4 << "\" text-anchor=\"end\">" << human_bytes(t) << "</text>\n";
  os << "<text transform=\"translate(14," << top + ph / 2 << ") rotate(-90)\" text-anchor=\"middle\">arena offset</text>\n";
  os << "</svg>\n";
  return os.str();
}

std::string to_dot(const Graph& g) {
  std::ostringstream os;
  os << "digraph " << dot_quote(g.name) << " {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", "
     << "fillcolor=white, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=9];\n";
  std::vector<Node*> nodes = g.nodes();
  std::map<const Node*, size_t> id;
  for (size_t i = 0; i < nodes.size(); ++i) id[nodes[i]] = i;
  for (size_t i = 0; i < g.inputs().size(); ++i)
    os << "  in" << i << " [shape=ellipse, fillcolor=\"#e8f0fe\", label="
       << dot_quote(g.inputs()[i]->name() + "\n" + type_str(*g.inputs()[i])) << "];\n";
  for (size_t i = 0; i < g.outputs().size(); ++i)
    os << "  out" << i << " [shape=ellipse, fillcolor=\"#e8f0fe\", label="
       << dot_quote(g.outputs()[i]->name() + "\n" + type_str(*g.outputs()[i])) << "];\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    bool fused = !n.domain().empty();
    size_t weights = 0;
    for (const Value* v : n.inputs()) weights += v && v->is_constant();
    std::string label = (fused ? n.domain() + "." : "") + n.op_type() + "\n" + n.name();
    if (fused) label += absorbed_label(n);
    if (weights) label += "\n(" + std::to_string(weights) + " const)";
    os << "  n" << i << " [label=" << dot_quote(label) << (fused ? ", fillcolor=\"#ffd8a8\"" : "") << "];\n";
  }
  auto source = [&](const Value* v) -> std::string {
    if (v->producer()) return "n" + std::to_string(id.at(v->producer()));
    for (size_t i = 0; i < g.inputs().size(); ++i)
      if (g.inputs()[i] == v) return "in" + std::to_string(i);
    return "";
  };
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const Value* v : nodes[i]->inputs()) {
      if (!v) continue;
      std::string src = source(v);
      if (!src.empty()) os << "  " << src << " -> n" << i << " [label=" << dot_quote(type_str(*v)) << "];\n";
    }
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    std::string src = source(g.outputs()[i]);
    if (!src.empty()) os << "  " << src << " -> out" << i << " [label=" << dot_quote(type_str(*g.outputs()[i])) << "];\n";
  }
  os << "}\n";
  return os.str();
}

std::string to_onnx(const Graph& g) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("ge");
  m.set_producer_version("gec inspect");
  std::map<std::string, int64_t> opsets = g.opsets;
  for (const Node* n : g.nodes())
    if (!opsets.count(n->domain())) opsets[n->domain()] = 1;  // a fused op's domain without a version: 1
  for (auto& [domain, version] : opsets) {
    auto* op = m.add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  onnx::GraphProto* gp = m.mutable_graph();
  gp->set_name(g.name);
  for (const Value* v : g.values())
    if (v->is_constant() && !v->is_graph_input())
      tensor_to_proto(format_is_blocked(v->data->format()) ? convert_format(*v->data, Format::NCHW) : *v->data,
                      v->name(), gp->add_initializer());
  for (const Value* v : g.inputs()) set_type(gp->add_input(), *v);
  for (const Value* v : g.outputs()) set_type(gp->add_output(), *v);
  // ONNX requires nodes in topological order; the graph's list need not be (fusion appends).
  for (const Node* n : g.topological_order()) {
    onnx::NodeProto* np = gp->add_node();
    np->set_name(n->name());
    // Formats are dropped (every value is plain in the export), so a TransData — a logical
    // identity: shapes are logical, docs/layout.md — becomes an ONNX Identity.
    const bool transdata = n->domain() == "ge" && n->op_type() == "TransData";
    np->set_op_type(transdata ? "Identity" : n->op_type());
    np->set_domain(transdata ? "" : n->domain());
    for (const Value* v : n->inputs()) np->add_input(v ? v->name() : "");
    for (const Value* v : n->outputs()) np->add_output(v ? v->name() : "");
    if (!transdata)
      for (auto& [name, value] : n->attrs.all()) set_attr(np->add_attribute(), name, value);
    for (const Value* v : n->outputs())
      if (v && !v->is_graph_output() && v->dtype != DataType::Undefined) set_type(gp->add_value_info(), *v);
  }
  return m.SerializeAsString();
}

}  // namespace ge::core
