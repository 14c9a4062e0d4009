// ge.Graph, ge.TensorInfo, ge.Operator, ge.MemoryEstimate and ge.load_onnx.
#include <pybind11/stl.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "context.h"
// GCC 12 reports a false -Wmaybe-uninitialized inside std::map's copy for the ImportOptions built
// in load_onnx (the same family as GCC bug 105562).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "ge/core/file_io.h"
#include "ge/core/graph_export.h"
#include "ge/core/importer.h"
#include "ge/core/report.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"

namespace gepy {
namespace {

// ---- attributes: Python values <-> ge::AttrValue (ONNX AttributeProto kinds)

ge::AttrValue attr_from_py(const std::string& node, const std::string& name, const py::handle& v) {
  auto bad = [&]() -> ge::Error {
    return ge::Error("add_op '" + node + "': attribute '" + name + "' has Python type " +
                     py::str(py::type::of(v).attr("__name__")).cast<std::string>() +
                     " (expected int, float, str, a list of one of them, or a numpy array)");
  };
  if (py::isinstance<py::bool_>(v)) return static_cast<int64_t>(v.cast<bool>());
  if (py::isinstance<py::int_>(v)) return v.cast<int64_t>();
  if (py::isinstance<py::float_>(v)) return v.cast<float>();
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::isinstance<py::array>(v)) {
    py::array a = py::reinterpret_borrow<py::array>(v);
    if (a.ndim() == 0) {  // numpy scalar-like 0-d arrays behave as Python scalars
      char k = a.dtype().kind();
      if (k == 'i' || k == 'u' || k == 'b') return py::int_(py::reinterpret_borrow<py::object>(v)).cast<int64_t>();
      if (k == 'f') return py::float_(py::reinterpret_borrow<py::object>(v)).cast<float>();
    }
    return tensor_from_array(a);
  }
  if (py::hasattr(v, "dtype") && py::hasattr(v, "item"))  // numpy scalar types (np.int64(3), np.float32(1))
    return attr_from_py(node, name, v.attr("item")());
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    py::sequence s = py::reinterpret_borrow<py::sequence>(v);
    bool all_int = true, all_num = true, all_str = true;
    for (py::handle e : s) {
      bool is_int = py::isinstance<py::int_>(e) || (py::hasattr(e, "dtype") && py::str(e.attr("dtype").attr("kind")).cast<std::string>() == "i");
      bool is_num = is_int || py::isinstance<py::float_>(e) || (py::hasattr(e, "dtype") && py::str(e.attr("dtype").attr("kind")).cast<std::string>() == "f");
      all_int &= is_int;
      all_num &= is_num;
      all_str &= py::isinstance<py::str>(e);
    }
    if (all_int) {  // an empty list is "ints", as ONNX's helper makes it
      std::vector<int64_t> out;
      for (py::handle e : s) out.push_back(py::int_(py::reinterpret_borrow<py::object>(e)).cast<int64_t>());
      return out;
    }
    if (all_num) {
      std::vector<float> out;
      for (py::handle e : s) out.push_back(py::float_(py::reinterpret_borrow<py::object>(e)).cast<float>());
      return out;
    }
    if (all_str) return s.cast<std::vector<std::string>>();
  }
  throw bad();
}

/// Python has one list type and numpy arrays stand for lists too: coerce a value to the kind the
/// op's registry definition declares (ndarray -> ints/floats, ints -> floats, 1-element -> scalar).
/// Values that do not fit are left as they are; the importer's check then names the mismatch.
ge::AttrValue coerce(ge::AttrValue v, ge::AttrType want) {
  ge::AttrType got = ge::attr_type_of(v);
  if (got == want) return v;
  if (got == ge::AttrType::Tensor) {
    const ge::Tensor& t = std::get<ge::Tensor>(v);
    if (t.shape().rank() > 1) return v;
    const bool integral = ge::dtype_is_integer(t.dtype()) || t.dtype() == ge::DataType::Bool;
    if (want == ge::AttrType::Ints && integral) return t.to_int64_vector();
    if (want == ge::AttrType::Floats && (integral || ge::dtype_is_float(t.dtype()))) {
      std::vector<float> f;
      for (double d : t.to_double_vector()) f.push_back(static_cast<float>(d));
      return f;
    }
    return v;
  }
  // A scalar where the definition takes a list: PyTorch's kernel_size=3 is [3] (one per axis).
  if (got == ge::AttrType::Int && want == ge::AttrType::Ints) return std::vector<int64_t>{std::get<int64_t>(v)};
  if (got == ge::AttrType::Int && want == ge::AttrType::Floats) return std::vector<float>{static_cast<float>(std::get<int64_t>(v))};
  if (got == ge::AttrType::Float && want == ge::AttrType::Floats) return std::vector<float>{std::get<float>(v)};
  if (got == ge::AttrType::Ints && want == ge::AttrType::Floats) {
    std::vector<float> f;
    for (int64_t i : std::get<std::vector<int64_t>>(v)) f.push_back(static_cast<float>(i));
    return f;
  }
  return v;
}

py::object attr_to_py(const ge::AttrValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, ge::Tensor>) return array_from_tensor(x);
        else return py::cast(x);
      },
      v);
}

// ---- Python-facing views of one tensor and one operator (copies: they outlive no graph)

struct TensorInfoPy {
  std::string name, dtype, format;
  std::string external_format;  ///< graph inputs and outputs: the layout the caller feeds / reads
  std::vector<int64_t> shape;
  bool is_input = false, is_output = false, is_constant = false;
  std::string producer;  ///< producing node's name; "" for inputs and constants
  py::object value = py::none();
};

TensorInfoPy describe(const ge::Value& v) {
  TensorInfoPy t;
  t.name = v.name();
  t.dtype = v.dtype == ge::DataType::Undefined ? "undefined" : std::string(ge::dtype_name(v.dtype));
  if (v.dtype != ge::DataType::Undefined) try {
      t.dtype = numpy_dtype_name(v.dtype);
    } catch (const ge::Error&) {
    }
  t.format = std::string(ge::format_name(v.format));
  t.external_format = v.is_graph_input() || v.is_graph_output() ? t.format : "";
  // A graph input every reader takes through one TransData (the layout stage): the graph computes
  // it in that conversion's format; the caller still feeds external_format.
  if (v.is_graph_input() && !v.uses().empty()) {
    std::string inner;
    for (const ge::Use& u : v.uses()) {
      const bool td = u.node->domain() == "ge" && u.node->op_type() == "TransData" && u.node->output(0);
      const std::string f = td ? std::string(ge::format_name(u.node->output(0)->format)) : t.format;
      if (inner.empty()) inner = f;
      else if (inner != f) inner = "mixed";
    }
    if (inner != "mixed") t.format = inner;
  }
  // A graph output written by a TransData: the graph computed it in the TransData's source format.
  if (v.is_graph_output() && v.producer() && v.producer()->domain() == "ge" && v.producer()->op_type() == "TransData")
    t.format = std::string(ge::format_name(v.producer()->input(0)->format));
  t.shape = v.shape.dims();
  t.is_input = v.is_graph_input();
  t.is_output = v.is_graph_output();
  t.is_constant = v.is_constant();
  t.producer = v.producer() ? v.producer()->name() : "";
  // Blocked constants (FRACTAL_Z weights, …) hold padded storage, not the logical shape's elements.
  const bool plain = v.format == ge::Format::ND || v.format == ge::Format::NCHW || v.format == ge::Format::NHWC;
  if (v.is_constant() && plain) t.value = array_from_tensor(*v.data);
  return t;
}

struct OperatorPy {
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;
  py::dict attrs;
  int stream = 0, pipeline_stage = 0;
};

OperatorPy describe(const ge::Node& n) {
  OperatorPy o{n.name(), n.op_type(), n.domain(), {}, {}, py::dict(), n.stream, n.pipeline_stage};
  for (const ge::Value* v : n.inputs()) o.inputs.push_back(v ? v->name() : "");
  for (const ge::Value* v : n.outputs()) o.outputs.push_back(v ? v->name() : "");
  for (auto& [k, v] : n.attrs.all()) o.attrs[py::str(k)] = attr_to_py(v);
  return o;
}

struct MemoryEstimate {
  int64_t with_reuse = 0, without_reuse = 0, lower_bound = 0;
  std::string planner, level;
  bool compiled = false;  ///< of a graph ge.optimize compiled (its memory is planned)
  std::string svg;        ///< the plan as a picture (ge::core::to_memory_svg)
  /// What the graph's intermediate tensors take as it stands: a compiled graph's planned arena;
  /// before compilation nothing is planned, so every intermediate has its own buffer.
  int64_t bytes() const { return compiled ? with_reuse : without_reuse; }
};

/// The memory plan picture, or "" for a graph with nothing in the arena (no picture to show).
std::string memory_svg_or_empty(const ge::Graph& g, std::optional<int64_t> bound) {
  try {
    return ge::core::to_memory_svg(g, bound ? std::optional<uint64_t>(static_cast<uint64_t>(*bound)) : std::nullopt);
  } catch (const ge::Error&) {
    return "";
  }
}

void infer_shapes(PyGraph& g) {
  static const ge::core::ImportOptions defaults;  // as gec without --input-shape
  ge::core::propagate_shapes(*g.graph, *g.env, defaults);
}

}  // namespace

void bind_graph(py::module_& m) {
  py::class_<TensorInfoPy>(m, "TensorInfo", "One tensor (edge) of a graph: a copy of its type, taken when asked for.")
      .def_readonly("name", &TensorInfoPy::name)
      .def_property_readonly("shape", [](const TensorInfoPy& t) { return py::tuple(py::cast(t.shape)); },
                             "Static shape, a tuple of ints (elements per axis).")
      .def_readonly("dtype", &TensorInfoPy::dtype, "numpy dtype name, e.g. 'float32'.")
      .def_readonly("format", &TensorInfoPy::format,
                    "Memory format the graph computes the tensor in: ND, NCHW, NHWC, NC1HWC0, FRACTAL_Z, FRACTAL_NZ, "
                    "NC1HWC0_C04, FRACTAL_Z_C04, ... (ge/sdk/types.h). For a graph input or output that the layout "
                    "stage converts at the boundary, the converted format (the caller still uses external_format).")
      .def_readonly("external_format", &TensorInfoPy::external_format,
                    "Graph inputs and outputs: the format the caller feeds or reads; '' for other tensors.")
      .def_readonly("is_input", &TensorInfoPy::is_input)
      .def_readonly("is_output", &TensorInfoPy::is_output)
      .def_readonly("is_constant", &TensorInfoPy::is_constant, "An initializer (weights).")
      .def_readonly("producer", &TensorInfoPy::producer, "Name of the producing operator; '' for inputs and constants.")
      .def_readonly("value", &TensorInfoPy::value, "A copy of a constant's data as an ndarray; None otherwise (and for blocked formats).")
      .def("__repr__", [](const TensorInfoPy& t) {
        std::string s;
        for (int64_t d : t.shape) s += (s.empty() ? "" : ",") + std::to_string(d);
        return "<ge.TensorInfo '" + t.name + "' " + t.dtype + "[" + s + "] " + t.format +
               (!t.external_format.empty() && t.external_format != t.format ? " (fed as " + t.external_format + ")" : "") + ">";
      });

  py::class_<OperatorPy>(m, "Operator", "One node of a graph (a copy).")
      .def_readonly("name", &OperatorPy::name)
      .def_readonly("op_type", &OperatorPy::op_type)
      .def_readonly("domain", &OperatorPy::domain, "'' for ONNX ops, 'ge' for GE's fused ops.")
      .def_readonly("inputs", &OperatorPy::inputs, "Input tensor names ('' = omitted optional input).")
      .def_readonly("outputs", &OperatorPy::outputs)
      .def_readonly("attrs", &OperatorPy::attrs, "Attributes: int, float, str, lists, ndarray for tensors.")
      .def_readonly("stream", &OperatorPy::stream, "Stream the scheduler chose (0 when unscheduled).")
      .def_readonly("pipeline_stage", &OperatorPy::pipeline_stage)
      .def("__repr__", [](const OperatorPy& o) {
        return "<ge.Operator '" + o.name + "' " + (o.domain.empty() ? "" : o.domain + ".") + o.op_type + ">";
      });

  py::class_<MemoryEstimate>(m, "MemoryEstimate",
                             "Arena bytes the memory plugin plans for the graph's intermediate tensors.")
      .def_readonly("with_reuse", &MemoryEstimate::with_reuse, "Arena size in bytes with memory reuse (the plan).")
      .def_readonly("without_reuse", &MemoryEstimate::without_reuse,
                    "Bytes if every intermediate tensor had its own buffer (64-byte aligned each).")
      .def_readonly("lower_bound", &MemoryEstimate::lower_bound, "Largest bytes live at any one step.")
      .def_readonly("planner", &MemoryEstimate::planner)
      .def_readonly("level", &MemoryEstimate::level)
      .def_readonly("compiled", &MemoryEstimate::compiled, "The graph was compiled (its memory is planned).")
      .def_property_readonly("bytes", &MemoryEstimate::bytes,
                             "Bytes the intermediate tensors take as the graph stands: with_reuse for a compiled "
                             "graph (its plan), without_reuse before compilation (nothing planned yet).")
      .def("_repr_svg_", [](const MemoryEstimate& e) -> py::object { if (e.svg.empty()) return py::none(); return py::str(e.svg); },
           "The memory plan as SVG (Jupyter shows it): arena buffers over schedule steps, the lower bound marked.")
      .def("__int__", &MemoryEstimate::bytes)
      .def("__index__", &MemoryEstimate::bytes)
      .def("__str__", [](const MemoryEstimate& e) { return std::to_string(e.bytes()); })
      .def("__format__", [](const MemoryEstimate& e, const std::string& spec) {
        return py::str("{:" + spec + "}").attr("format")(e.bytes());
      })
      .def("__repr__", [](const MemoryEstimate& e) {
        return "<ge.MemoryEstimate " + std::to_string(e.bytes()) + " bytes (" + (e.compiled ? "planned" : "not planned yet") +
               "): with_reuse=" + std::to_string(e.with_reuse) + " without_reuse=" + std::to_string(e.without_reuse) +
               " lower_bound=" + std::to_string(e.lower_bound) + ">";
      });

  py::class_<PyGraph, std::shared_ptr<PyGraph>>(m, "Graph", R"(A computation graph (GE's IR).

Build one with add_tensor / add_initializer / add_op / mark_output, or load one with
ge.load_onnx. Every add_op runs shape inference, so each tensor has a dtype and static shape as
soon as it exists. Errors raise ge.Error with the message gec prints for the same graph.)")
      .def(py::init([](const std::string& name, int64_t opset, const std::string& manifest,
                       std::map<std::string, int64_t> opsets) {
             if (opset < 1) throw py::value_error("Graph(opset=" + std::to_string(opset) + "): the ai.onnx opset must be >= 1");
             auto g = std::make_shared<PyGraph>();
             g->graph = std::make_shared<ge::Graph>(name);
             g->graph->opsets[""] = opset;
             g->graph->opsets["ge"] = 1;  // GE's own fused ops (registry domain "ge", version 1)
             for (auto& [domain, version] : opsets) {
               if (version < 1)
                 throw py::value_error("Graph(opsets={'" + domain + "': " + std::to_string(version) + "}): an opset version must be >= 1");
               g->graph->opsets[domain == "ai.onnx" ? "" : domain] = version;
             }
             g->manifest = manifest;
             g->env = environment(manifest);
             return g;
           }),
           py::arg("name") = "graph", py::arg("opset") = 17, py::arg("manifest") = "",
           py::arg("opsets") = std::map<std::string, int64_t>{},
           "name: graph name; opset: ai.onnx operator set version; manifest: TOML file whose plugins "
           "type the graph ('' = the default manifest); opsets: {domain: version} of other operator "
           "domains the graph uses (a vendor's, e.g. {'myco': 1}; 'ge' is 1 unless given).")
      .def_property_readonly("name", [](const PyGraph& g) { return g.graph->name; })
      .def("add_tensor",
           [](PyGraph& g, const std::string& name, std::vector<int64_t> shape, const std::string& dtype,
              std::optional<std::string> format) {
             for (int64_t d : shape)
               if (d < 0) throw ge::Error("add_tensor '" + name + "': dimension " + std::to_string(d) + " is negative");
             ge::Value* v = g.graph->add_input(name, dtype_from_numpy(dtype), ge::Shape(shape));
             v->format = format ? ge::format_from_name(*format) : (shape.size() == 4 ? ge::Format::NCHW : ge::Format::ND);
           },
           py::arg("name"), py::arg("shape"), py::arg("dtype") = "float32", py::arg("format") = py::none(),
           "Adds a graph input. shape: list of ints; dtype: numpy name; format: 'NCHW' (the default for "
           "4-D shapes; 'ND' otherwise), 'NHWC', 'ND'. Raises ge.Error for a duplicate name.")
      .def("add_initializer",
           [](PyGraph& g, const std::string& name, const py::array& data) {
             g.graph->add_constant(name, tensor_from_array(data));
           },
           py::arg("name"), py::arg("data"), "Adds a constant (weights), copying the ndarray.")
      .def("add_op",
           [](PyGraph& g, const std::string& name, const std::string& op_type, std::vector<std::string> inputs,
              std::vector<std::string> outputs, py::dict attrs, const std::string& domain) {
             const std::string where = "add_op '" + name + "'";
             if (!g.graph->opsets.count(domain))
               throw ge::Error(where + ": domain '" + domain + "' has no opset in graph '" + g.graph->name +
                               "': declare its version, ge.Graph('" + g.graph->name + "', opsets={'" + domain + "': 1})");
             std::vector<ge::Value*> ins;
             for (const std::string& in : inputs) {
               if (in.empty()) {
                 ins.push_back(nullptr);
                 continue;
               }
               ge::Value* v = g.find(in);
               if (!v) throw ge::Error(where + ": input '" + in + "' is not a tensor of graph '" + g.graph->name + "'");
               ins.push_back(v);
             }
             if (g.graph->find_node(name)) throw ge::Error("add_op: graph '" + g.graph->name + "' already has a node '" + name + "'");
             ge::Attributes a;
             const ge::OpDef* def = g.env->ops.find(domain, op_type, g.graph->opset(domain));
             for (auto& [k, v] : attrs) {
               const std::string key = k.cast<std::string>();
               ge::AttrValue value = attr_from_py(name, key, v);
               const ge::AttrDef* ad = def ? def->find_attr(key) : nullptr;
               a.set(key, ad ? coerce(std::move(value), ad->type) : std::move(value));
             }
             for (const std::string& o : outputs) {
               ge::Value* v = g.graph->find_value(o);
               if (v && (v->producer() || v->is_graph_input() || v->is_constant()))
                 throw ge::Error(where + ": output '" + o + "' already exists in graph '" + g.graph->name + "'");
             }
             // Shape inference may rewrite the graph (a framework alias or a function body expands
             // into ONNX ops): work on a copy and keep it only when everything succeeded.
             std::shared_ptr<ge::Graph> work = g.graph->clone();
             std::vector<ge::Value*> wins, outs;
             for (ge::Value* v : ins) wins.push_back(v ? work->find_value(v->name()) : nullptr);
             for (const std::string& o : outputs) {
               ge::Value* v = work->find_value(o);
               outs.push_back(v ? v : work->add_value(o));
             }
             work->add_node(op_type, name, wins, outs, std::move(a), domain);
             PyGraph w = g;
             w.graph = work;
             infer_shapes(w);  // the importer's checks and messages: op known, inputs, attributes, shapes
             g.graph->swap(*work);
           },
           py::arg("name"), py::arg("op_type"), py::arg("inputs") = std::vector<std::string>{},
           py::arg("outputs") = std::vector<std::string>{}, py::arg("attrs") = py::dict(), py::arg("domain") = "",
           "Adds an operator reading tensors `inputs` (names; '' = omitted optional input) and creating "
           "`outputs`. attrs: {name: int | float | str | list | ndarray}. op_type: an ONNX op, a GE op "
           "(domain 'ge'), a vendor op (domain declared in Graph(opsets=...)), or a framework alias "
           "(Conv2d, BatchNorm, BiasAdd, Linear, ...: `gec ops`), which becomes the ONNX ops it means. "
           "Runs shape inference; raises ge.Error (as gec) for an unknown op type, wrong input count or "
           "dtype, unknown attribute; the graph is unchanged then.")
      .def("mark_output",
           [](PyGraph& g, const std::string& name) { g.graph->mark_output(g.value(name)); }, py::arg("name"),
           "Makes a tensor a graph output. A graph that marks none has as outputs the tensors no operator "
           "reads (as a framework's module returns its last results) when it is compiled.")
      .def("get_tensor", [](const PyGraph& g, const std::string& name) { return describe(*g.value(name)); },
           py::arg("name"), "The tensor's name, shape, dtype and format. Raises ge.Error for an unknown name.")
      .def("get_operators",
           [](const PyGraph& g) {
             std::vector<OperatorPy> ops;
             for (const ge::Node* n : g.graph->nodes()) ops.push_back(describe(*n));
             return ops;
           },
           "Operators in execution order.")
      .def_property_readonly("inputs", [](const PyGraph& g) {
        std::vector<std::string> r;
        for (auto* v : g.graph->inputs()) r.push_back(v->name());
        return r;
      })
      .def_property_readonly("outputs", [](const PyGraph& g) {
        std::vector<std::string> r;
        for (auto* v : g.graph->outputs()) r.push_back(v->name());
        return r;
      })
      .def("__len__", [](const PyGraph& g) { return g.graph->num_nodes(); }, "Number of operators.")
      .def_property_readonly("fusions", [](const PyGraph& g) { return ge::core::fusion_counts(g.result); },
                             "{fusion rule: applications} of the compilation that produced this graph (gec's report "
                             "'fusions'); empty for a graph not produced by ge.optimize / ge.fuse_operators.")
      .def_property_readonly("passes",
                             [](const PyGraph& g) {
                               py::list l;
                               for (auto& p : g.result.passes)
                                 l.append(py::dict(py::arg("name") = p.name, py::arg("stage") = p.stage,
                                                   py::arg("ms") = p.ms, py::arg("changed") = p.changed,
                                                   py::arg("nodes_after") = p.nodes_after, py::arg("status") = p.status));
                               return l;
                             },
                             "Passes of the compilation that produced this graph (gec's report 'passes').")
      .def_property_readonly("compiled_for", [](const PyGraph& g) { return g.compiled_for; },
                             "Backend of the full compilation that produced this graph; '' when not compiled.")
      .def("_estimate_memory",
           [](const PyGraph& g, std::optional<std::vector<std::string>> given) {
             // The memory stage alone on a copy, as planned in the IR's current order; a compiled
             // graph with its compilation's settings unless others are given.
             std::vector<std::string> overrides = given ? *given : g.overrides;
             PyGraph planned = run_pipeline(g, g.manifest, overrides, std::set<ge::Stage>{ge::Stage::Memory});
             ge::core::MemoryFigures f = ge::core::memory_figures(planned.result);
             if (!f.arena_bytes || !f.no_reuse_bytes)
               throw ge::Error("no loaded plugin plans memory (no memory-stage pass reported arena figures)");
             return MemoryEstimate{*f.arena_bytes, *f.no_reuse_bytes, f.lower_bound_bytes.value_or(0), f.planner, f.level,
                                   !g.compiled_for.empty(), memory_svg_or_empty(*planned.graph, f.lower_bound_bytes)};
           },
           py::arg("overrides") = py::none(),
           "Bytes of the arena the memory plugin plans, with and without reuse (MemoryEstimate). "
           "overrides: manifest options ('memory.level=\"basic\"', …).")
      .def("to_text", [](const PyGraph& g) { return ge::print_graph(*g.graph); }, "The text IR (sdk/text_ir.h).")
      .def("to_dot", [](const PyGraph& g) { return ge::core::to_dot(*g.graph); },
           "GraphViz DOT of the graph as `gec inspect --format dot` writes it (fused nodes list what they absorbed).")
      .def("save_onnx",
           [](const PyGraph& g, const std::string& path) {
             ge::core::write_file_atomically(path, ge::core::to_onnx(*g.graph), "ONNX model");
           },
           py::arg("path"), "Writes the graph as an ONNX model (GE's fused ops in domain 'ge').")
      .def("__repr__", [](const PyGraph& g) {
        std::string ins, outs;
        for (auto* v : g.graph->inputs()) ins += (ins.empty() ? "" : ", ") + v->name();
        for (auto* v : g.graph->outputs()) outs += (outs.empty() ? "" : ", ") + v->name();
        return "<ge.Graph '" + g.graph->name + "': " + std::to_string(g.graph->num_nodes()) + " operators, inputs [" + ins +
               "], outputs [" + outs + "]" + (g.compiled_for.empty() ? "" : ", compiled for " + g.compiled_for) + ">";
      });

  m.def(
      "load_onnx",
      [](const std::string& path, std::map<std::string, std::vector<int64_t>> input_shapes, const std::string& manifest,
         bool keep_initializer_inputs) {
        auto g = std::make_shared<PyGraph>();
        g->manifest = manifest;
        g->env = environment(manifest);
        ge::core::ImportOptions io;
        for (auto& [name, dims] : input_shapes) io.frontend.input_shapes[name] = dims;
        io.frontend.keep_initializer_inputs = keep_initializer_inputs;
        py::gil_scoped_release nogil;
        g->graph = ge::core::import_model(*g->env, path, io);
        return g;
      },
      py::arg("path"), py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{},
      py::arg("manifest") = "", py::arg("keep_initializer_inputs") = false,
      "Imports an ONNX model (static shapes on every tensor). input_shapes: {input: [dims]} as gec's "
      "--input-shape. Raises ge.Error naming the file or node (gec's messages).");
}

}  // namespace gepy
