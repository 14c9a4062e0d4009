// gec compile / run / inspect of models with symbolic input dims (ge/core/dynamic.h): gears,
// specialization on first use of a shape, several input sets in one process.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "common.h"
#include "ge/core/dynamic.h"
#include "ge/core/file_io.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/plan.h"
#include "ge/core/session.h"
#include "ge/sdk/error.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace gec {

namespace {
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string shape_text(const ge::Shape& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.rank(); ++i) r += (i ? "," : "") + std::to_string(s.dims()[i]);
  return r + "]";
}

std::string signature_text(const std::vector<ge::core::SymbolicTensor>& ts) {
  std::string r;
  for (const auto& t : ts) r += (r.empty() ? "" : ", ") + t.name + " " + std::string(ge::dtype_name(t.dtype)) + t.dims_str();
  return r;
}

// The model's gears compiled (text from --gears, else the manifest's [compile] gears).
ge::core::DynamicPlan compile_gears(const std::string& model, const ge::core::Environment& env, const CommonOptions& common,
                                    const std::string& gears_text, nlohmann::json* gears_json) {
  ge::core::CompileOptions co = common.compile_options(env);
  ge::core::DynamicPlan p;
  p.spec = ge::core::dynamic_spec_from_file(model, co, env.manifest);
  const std::string text = gears_text.empty() ? env.manifest.gears : gears_text;
  std::vector<ge::core::Binding> bindings = ge::core::parse_gears(text, p.spec);
  std::printf("model %s: %s %s; %zu gear%s", model.c_str(),
              ge::core::has_symbolic_inputs({p.spec.inputs, {}, false}) ? "symbolic inputs" : "inputs",
              signature_text(p.spec.inputs).c_str(), bindings.size(), bindings.size() == 1 ? "" : "s");
  if (bindings.empty()) std::printf(" (every shape specializes on first use)");
  std::printf("\n");
  for (const ge::core::Binding& b : bindings) {
    auto t0 = Clock::now();
    ge::core::CompileResult r;
    std::shared_ptr<ge::Graph> g = ge::core::compile_binding(p.spec, b, env, co, &r);
    const double ms = ms_since(t0);
    std::printf("  gear %-28s %4zu nodes, arena %10llu bytes, compile %8.1f ms\n", ge::core::binding_str(b).c_str(),
                g->num_nodes(), static_cast<unsigned long long>(g->arena_bytes), ms);
    if (gears_json)
      gears_json->push_back({{"binding", ge::core::binding_str(b)}, {"nodes", g->num_nodes()},
                             {"arena_bytes", g->arena_bytes}, {"compile_ms", ms}});
    p.gears.push_back({b, std::move(g)});
  }
  return p;
}

// "prefix: specialization, suffix: stages cut at node 'u' (Unique) (...)": what each stage ran.
std::string stages_text(const ge::core::DynamicRunInfo& info) {
  std::string r;
  for (const ge::core::DynamicRunInfo& s : info.stages) {
    r += (r.empty() ? "" : "; ") + s.kind;
    if (!s.cut_node.empty()) r += " cut at " + s.cut_node + " (" + stages_text(s) + ")";
  }
  return r;
}

struct InputSet {
  std::string name, inputs_dir, check_dir;
};

std::vector<InputSet> input_sets(const CLI::App& sub) {
  std::vector<std::string> inputs = sub.get_option("--inputs")->results();
  inputs.erase(std::remove(inputs.begin(), inputs.end(), std::string()), inputs.end());
  const std::string check_dir = sub.get_option("--check")->as<std::string>();
  std::vector<InputSet> sets;
  if (!check_dir.empty()) {
    // A model folder: every test_data_set_K, in K order.
    std::vector<std::pair<long, std::string>> found;
    for (const auto& e : fs::directory_iterator(check_dir)) {
      const std::string n = e.path().filename().string();
      if (e.is_directory() && n.rfind("test_data_set_", 0) == 0) {
        const std::string k = n.substr(14);
        if (!k.empty() && std::all_of(k.begin(), k.end(), ::isdigit)) found.emplace_back(std::stol(k), e.path().string());
      }
    }
    std::sort(found.begin(), found.end());
    if (!found.empty()) {
      if (!inputs.empty())
        throw ge::Error("--check '" + check_dir + "' holds test_data_set_K folders (each with its inputs); --inputs is not taken with it");
      for (auto& [k, d] : found) sets.push_back({fs::path(d).filename().string(), d, d});
      return sets;
    }
    if (inputs.size() > 1) throw ge::Error("--check '" + check_dir + "' holds one set of references; give one --inputs with it");
    sets.push_back({check_dir, inputs.empty() ? check_dir : inputs[0], check_dir});
    return sets;
  }
  for (const std::string& d : inputs) sets.push_back({d, d, ""});
  if (sets.empty())
    throw ge::Error("a model with symbolic input dims runs at the shapes of its inputs: give --inputs DIR (one or more) "
                    "or --check DIR (a folder of input_K.pb and output_K.pb, or a model folder of test_data_set_K)");
  return sets;
}

std::vector<ge::Tensor> read_set_inputs(const std::string& dir, const std::vector<ge::TensorInfo>& ins) {
  std::vector<ge::Tensor> out;
  for (size_t k = 0; k < ins.size(); ++k) {
    std::string p = (fs::path(dir) / ("input_" + std::to_string(k) + ".pb")).string();
    if (!fs::exists(p)) throw ge::Error("--inputs: '" + p + "' is missing (graph input #" + std::to_string(k) + " '" + ins[k].name + "')");
    out.push_back(ge::core::read_tensor_file(p));
  }
  return out;
}
}  // namespace

bool is_dynamic_model(const std::string& model, const CommonOptions& common) {
  if (!common.input_shapes.empty()) return false;  // static shapes asked for: the static path
  if (ge::core::is_plan_file(model)) {
    try {
      return ge::core::plan_is_dynamic(model);
    } catch (const ge::Error&) {
      return false;  // unreadable: the full load of the static path says what is wrong with the file
    }
  }
  if (fs::path(model).extension() != ".onnx" || !fs::is_regular_file(model)) return false;
  try {
    return ge::core::has_symbolic_inputs(ge::core::onnx_signature(ge::core::read_regular_file(model, "model file"), model));
  } catch (const ge::Error&) {
    return false;  // the static path reports what is wrong with the file
  }
}

int cmd_compile_dynamic(const std::string& model, const CommonOptions& common, const std::string& plan_out,
                        const std::string& gears_text) {
  auto env = common.load_environment(model);
  nlohmann::json gears = nlohmann::json::array();
  auto t0 = Clock::now();
  ge::core::DynamicPlan p = compile_gears(model, *env, common, gears_text, &gears);
  const double compile_ms = ms_since(t0);
  nlohmann::json r = {{"model", model}, {"dynamic", {{"inputs", signature_text(p.spec.inputs)}, {"gears", gears},
                                                     {"compile_ms", compile_ms}}}};
  if (!plan_out.empty()) {
    auto t1 = Clock::now();
    std::vector<uint8_t> bytes = ge::core::serialize_dynamic_plan(p, *env);
    write_file_atomic(plan_out, std::string(bytes.begin(), bytes.end()));
    std::printf("plan: wrote %s in %.1f ms (%zu bytes: %zu gear%s, source model %zu bytes)\n", plan_out.c_str(), ms_since(t1),
                bytes.size(), p.gears.size(), p.gears.size() == 1 ? "" : "s", p.spec.source_size);
    r["dynamic"]["plan_bytes"] = bytes.size();
  }
  if (!common.report.empty()) write_json(r, common.report);
  return 0;
}

int cmd_run_dynamic(const std::string& model, const CommonOptions& common, CLI::App& sub) {
  const std::vector<InputSet> sets = input_sets(sub);
  const std::string outputs_dir = sub.get_option("--outputs")->as<std::string>();
  if (!outputs_dir.empty() && sets.size() > 1) throw ge::Error("--outputs takes the outputs of one input set; " +
                                                               std::to_string(sets.size()) + " are given");
  if (sub.get_option("--requests")->as<int>() > 0) throw ge::Error("--requests is not supported for a model with symbolic input dims");
  const int iterations = sub.get_option("--iterations")->as<int>();
  const std::string json_path = sub.get_option("--json")->as<std::string>();
  ge::core::Tolerance tol;
  tol.max_rel_l2 = sub.get_option("--max-rel-l2")->as<double>();
  tol.rtol = sub.get_option("--rtol")->as<double>();
  if (sub.get_option("--atol")->count()) tol.atol = sub.get_option("--atol")->as<double>();
  tol.elementwise = !sub.get_option("--max-rel-l2")->count() || sub.get_option("--rtol")->count() ||
                    sub.get_option("--atol")->count();

  std::shared_ptr<const ge::core::Environment> env = common.load_environment(model);
  ge::PlanLoadOptions lo;
  lo.threads = common.thread_count(*env);
  std::shared_ptr<ge::LoadedPlan> plan;
  auto t0 = Clock::now();
  nlohmann::json gears = nlohmann::json::array();
  if (ge::core::is_plan_file(model)) {
    plan = ge::LoadedPlan::load(model, env, lo);
    if (!common.manifest.empty()) ge::core::check_manifest_matches_plan(plan->contents(), *env, model);  // as load_plan_model
    std::printf("plan %s: loaded in %.1f ms; %zu gear%s, specialization cache %zu\n", model.c_str(), plan->load_ms(),
                plan->contents().dynamic->gears.size(), plan->contents().dynamic->gears.size() == 1 ? "" : "s",
                plan->contents().dynamic->spec.cache_size);
  } else {
    ge::core::DynamicPlan p = compile_gears(model, *env, common, "", &gears);
    auto bytes = std::make_shared<const std::vector<uint8_t>>(ge::core::serialize_dynamic_plan(p, *env));
    lo.source_kind = "model";
    plan = ge::LoadedPlan::load_bytes(bytes, model, env, lo);
  }
  const double load_ms = ms_since(t0);
  ge::Session session = plan->new_session();

  bool all_ok = true;
  nlohmann::json sets_json = nlohmann::json::array();
  for (const InputSet& set : sets) {
    std::vector<ge::Tensor> inputs = read_set_inputs(set.inputs_dir, plan->inputs());
    std::string shapes;
    for (size_t i = 0; i < inputs.size(); ++i) shapes += (i ? ", " : "") + plan->inputs()[i].name + shape_text(inputs[i].shape());
    auto t1 = Clock::now();
    std::vector<ge::Tensor> outputs = session.run(inputs);
    const double first_ms = ms_since(t1);
    const ge::core::DynamicRunInfo info = *session.last_run();
    std::printf("set %s: %s → %s%s%s", set.name.c_str(), shapes.c_str(), info.kind.c_str(), info.ran.empty() ? "" : " ",
                ge::core::binding_str(info.ran).c_str());
    if (!info.cut_node.empty()) std::printf(" cut at %s (%s)", info.cut_node.c_str(), stages_text(info).c_str());
    if (info.compiled) std::printf(", compiled on first use in %.1f ms", info.compile_ms);
    if (info.built) std::printf(", kernels built in %.1f ms", info.build_ms);
    std::printf(", first run %.3f ms, arena %llu bytes\n", first_ms, static_cast<unsigned long long>(info.arena_bytes));
    std::vector<double> times;
    for (int i = 0; i < iterations; ++i) {
      auto t2 = Clock::now();
      outputs = session.run(inputs);
      times.push_back(ms_since(t2));
    }
    double min_ms = 0, median_ms = 0;
    if (!times.empty()) {
      std::sort(times.begin(), times.end());
      min_ms = times.front();
      median_ms = times.size() % 2 ? times[times.size() / 2] : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
      std::printf("  timing: %d iterations after the first: min %.3f ms, median %.3f ms\n", iterations, min_ms, median_ms);
    }
    nlohmann::json check = nullptr;
    bool ok = true;
    if (!set.check_dir.empty()) {
      check = nlohmann::json::array();
      for (size_t k = 0; k < outputs.size(); ++k) {
        std::string p = (fs::path(set.check_dir) / ("output_" + std::to_string(k) + ".pb")).string();
        const std::string& oname = plan->outputs()[k].name;
        if (!fs::exists(p)) throw ge::Error("--check: '" + p + "' is missing (graph output #" + std::to_string(k) + " '" + oname + "')");
        ge::core::Comparison cmp = ge::core::compare_tensors(outputs[k], ge::core::read_tensor_file(p), tol);
        ok &= cmp.ok;
        std::printf("  check output %zu '%s': %s %s\n", k, oname.c_str(), cmp.ok ? "PASS" : "FAIL", cmp.message.c_str());
        check.push_back({{"output", oname}, {"ok", cmp.ok}, {"rel_l2", cmp.rel_l2}, {"max_abs", cmp.max_abs}});
      }
    }
    all_ok &= ok;
    if (!outputs_dir.empty()) {
      fs::create_directories(outputs_dir);
      std::vector<std::pair<std::string, std::string>> files;
      for (size_t k = 0; k < outputs.size(); ++k)
        files.emplace_back((fs::path(outputs_dir) / ("output_" + std::to_string(k) + ".pb")).string(),
                           ge::core::tensor_file_bytes(outputs[k], plan->outputs()[k].name));
      ge::core::write_files_atomically(files, "output tensor file");
    }
    sets_json.push_back({{"set", set.name}, {"shapes", shapes}, {"ran", info.kind}, {"binding", ge::core::binding_str(info.ran)},
                         {"cut_node", info.cut_node.empty() ? nlohmann::json() : nlohmann::json(info.cut_node)},
                         {"gear", info.gear}, {"compiled_ms", info.compiled ? nlohmann::json(info.compile_ms) : nlohmann::json()},
                         {"build_ms", info.built ? nlohmann::json(info.build_ms) : nlohmann::json()},
                         {"first_run_ms", first_ms}, {"min_ms", min_ms}, {"median_ms", median_ms},
                         {"arena_bytes", info.arena_bytes}, {"check", check}});
  }
  const ge::core::SpecializationStats st = plan->specialization_stats();
  std::printf("specializations: %lld compiled (%.1f ms), %lld cache hits, %lld evicted\n", static_cast<long long>(st.compiled),
              st.compile_ms, static_cast<long long>(st.hits), static_cast<long long>(st.evicted));
  bool checked = false;
  for (const InputSet& s : sets) checked |= !s.check_dir.empty();
  if (checked) std::printf("check: %s (%zu set%s)\n", all_ok ? "PASS" : "FAIL", sets.size(), sets.size() == 1 ? "" : "s");
  if (!json_path.empty() || !common.report.empty()) {
    nlohmann::json r = {{"model", model},
                        {"dynamic", {{"load_ms", load_ms}, {"gears", gears}, {"sets", sets_json},
                                     {"specializations", {{"compiled", st.compiled}, {"compile_ms", st.compile_ms},
                                                          {"hits", st.hits}, {"evicted", st.evicted}}}}}};
    if (!json_path.empty()) write_json(r, json_path);
    if (!common.report.empty()) write_json(r, common.report);
  }
  return all_ok ? 0 : 1;
}

int inspect_dynamic(const std::string& model, const ge::core::Environment& env, const std::string& out_path) {
  ge::core::PlanContents c = ge::core::load_plan(model, env);
  const ge::core::DynamicPlan& p = *c.dynamic;
  std::string text = "plan " + model + ": dynamic, backend " + c.backend + ", " + std::to_string(c.file_bytes) +
                     " bytes (weights section " + std::to_string(c.weights_bytes) + ", source model " +
                     std::to_string(p.spec.source_size) + ")\n";
  text += "inputs: " + signature_text(p.spec.inputs) + "\n";
  text += "outputs: " + signature_text(p.spec.outputs) + "\n";
  std::string pad;
  for (const std::string& s : p.spec.paddable) pad += (pad.empty() ? "" : ", ") + s;
  text += "paddable: " + (pad.empty() ? std::string("none") : pad) + "; specialization cache: " +
          std::to_string(p.spec.cache_size) + " shapes\n";
  uint64_t most = 0;
  text += std::to_string(p.gears.size()) + " gear" + (p.gears.size() == 1 ? "" : "s") + "\n";
  for (size_t i = 0; i < p.gears.size(); ++i) {
    const ge::Graph& g = *p.gears[i].graph;
    most = std::max(most, g.arena_bytes);
    text += "  gear " + std::to_string(i) + " " + ge::core::binding_str(p.gears[i].binding) + ": " +
            std::to_string(g.num_nodes()) + " nodes, arena " + std::to_string(g.arena_bytes) + " bytes, " +
            std::to_string(g.schedule.streams > 0 ? g.schedule.streams : 1) + " stream(s)\n";
  }
  text += "arena of a session: " + std::to_string(most) + " bytes (the largest gear's; a larger specialization grows it)\n";
  if (out_path.empty()) std::fwrite(text.data(), 1, text.size(), stdout);
  else write_file_atomic(out_path, text);
  return 0;
}

}  // namespace gec
