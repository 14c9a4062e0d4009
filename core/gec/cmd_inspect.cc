// gec inspect: the optimized graph as text IR, GraphViz DOT, SVG (through graphviz's `dot`) or
// ONNX with fused ops in the `ge` domain (for Netron); its memory plan as an SVG picture.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "common.h"
#include "ge/core/symbolic.h"
#include "ge/core/plan.h"
#include "ge/core/graph_export.h"
#include "ge/core/report.h"
#include "ge/sdk/error.h"
#include "ge/sdk/text_ir.h"

namespace fs = std::filesystem;

namespace gec {

namespace {

/// The backend sections of a plan (ge/sdk/plan_section.h), each described by the plugin that
/// registered it (the Ascend offline model: tasks by engine, events, feature-map bytes).
int print_sections(const std::string& model, const ge::core::Environment& env, bool detail, const std::string& out_path) {
  if (!ge::core::is_plan_file(model)) throw ge::Error("--format sections: '" + model + "' is not a plan file (compile it with -o)");
  ge::core::PlanContents plan = ge::core::load_plan(model, env);
  std::string text = "plan " + model + ": backend " + plan.backend + ", " + std::to_string(plan.sections.size()) +
                     " backend section" + (plan.sections.size() == 1 ? "" : "s") + "\n";
  for (const ge::core::PlanSection& s : plan.sections) {
    text += "section '" + s.name + "' (plugin " + s.plugin + ", " + std::to_string(s.data.size()) + " bytes)\n";
    for (const auto& [def, plugin] : env.plan_sections)
      if (def.name == s.name && def.describe) text += def.describe(s.data, detail);
    if (!text.empty() && text.back() != '\n') text += "\n";
  }
  if (out_path.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
  else write_file_atomic(out_path, text);
  return 0;
}

bool have_dot() { return std::system("command -v dot >/dev/null 2>&1") == 0; }

}  // namespace

int cmd_inspect(const std::string& model, const CommonOptions& common, const std::string& format,
                const std::string& out_path) {
  if (format == "onnx" && out_path.empty()) throw ge::Error("--format onnx writes a binary file: give -o FILE.onnx");
  if (format == "svg" && !have_dot())
    throw ge::Error("--format svg needs graphviz's 'dot' on PATH (Debian package graphviz; scripts/bootstrap installs it); "
                    "--format dot writes the DOT text");
  auto env = common.load_environment(model);
  if (format == "sections" || format == "sections-full") return print_sections(model, *env, format == "sections-full", out_path);
  // A plan file (told apart by its magic) shows its graph as saved, without recompiling. Without
  // --report only the graph is read: no kernels are built and stdout carries nothing but the output.
  const bool plan = ge::core::is_plan_file(model);
  if (format == "symbolic") {
    // The model as imported with its symbolic dims kept (ge/core/symbolic.h), before any pass.
    if (plan) throw ge::Error("--format symbolic shows an ONNX model as imported with its symbolic dims; '" + model + "' is a plan");
    ge::core::SymbolicImport s = ge::core::import_symbolic(*env, model, common.import_options());
    std::vector<std::string> problems = ge::core::verify_symbolic(*s.graph, *env);
    if (!problems.empty()) throw ge::InvalidGraphError("model file '" + model + "': symbolic inference is inconsistent: " + problems.front());
    std::string bytes;
    for (auto& [sym, param] : s.symbols) bytes += "# symbol " + sym + (sym == param ? "" : " (dim_param '" + param + "')") + "\n";
    for (const std::string& f : s.fresh) bytes += "# fresh symbol " + f + "\n";
    for (const std::string& c : s.constraints) bytes += "# assumed: " + c + "\n";
    ge::TextIrOptions o;
    o.max_const_elements = 64;  // shape constants, so that the text parses back to the same graph
    bytes += ge::print_graph(*s.graph, o);
    if (out_path.empty()) std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    else write_file_atomic(out_path, bytes);
    return 0;
  }
  if (plan && format == "text" && ge::core::plan_is_dynamic(model)) return inspect_dynamic(model, *env, out_path);
  std::optional<Compiled> c;
  std::shared_ptr<const ge::Graph> graph;
  if (plan && common.report.empty()) {
    graph = ge::core::load_plan(model, *env).graph;
    if (!graph) throw ge::Error("plan '" + model + "' is dynamic and has no gear: no graph to show (--format text lists it)");
  } else {
    c = plan ? load_plan_model(model, *env, common) : compile_model(model, *env, common);
    graph = c->graph;
  }
  const ge::Graph& g = *graph;
  std::string bytes;
  if (format == "text") bytes = ge::print_graph(g);
  else if (format == "dot" || format == "svg") bytes = ge::core::to_dot(g);
  else if (format == "onnx") bytes = ge::core::to_onnx(g);
  else if (format == "memory-svg") {
    std::optional<uint64_t> bound;
    if (c)
      if (auto b = ge::core::memory_figures(c->result).lower_bound_bytes) bound = static_cast<uint64_t>(*b);
    bytes = ge::core::to_memory_svg(g, bound);
  }
  else throw ge::Error("--format '" + format + "': expected text, dot, svg, memory-svg or onnx");

  if (format == "svg") {
    // dot reads the DOT text from a temporary file (a path of ours: no user text reaches the
    // shell) and writes the SVG to a pipe; -o then gets it atomically like every other format,
    // so a failing dot leaves no half-written file.
    fs::path dot_file = fs::temp_directory_path() / ("gec_inspect_" + std::to_string(::getpid()) + ".dot");
    write_file_atomic(dot_file.string(), bytes);
    const std::string cmd = "dot -Tsvg '" + dot_file.string() + "'";
    std::string svg;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (pipe) {
      char buf[1 << 16];
      for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) svg.append(buf, n);
    }
    const int rc = pipe ? ::pclose(pipe) : -1;
    fs::remove(dot_file);
    if (rc != 0) throw ge::Error("graphviz 'dot' failed (exit status " + std::to_string(rc) + ")");
    if (out_path.empty()) std::fwrite(svg.data(), 1, svg.size(), stdout);
    else write_file_atomic(out_path, svg);
  } else if (out_path.empty()) {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  } else {
    write_file_atomic(out_path, bytes);
  }
  if (c && !common.report.empty()) {
    nlohmann::json r = make_report(model, *c);
    r["run"] = nullptr;
    write_json(r, common.report);
  }
  return 0;
}

}  // namespace gec
