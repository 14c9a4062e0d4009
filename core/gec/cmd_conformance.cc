// gec conformance: runs ONNX backend node tests (model.onnx + test_data_set_N/{input,output}_K.pb).
//
// Each case runs in a forked child so that a crash or a hang is reported against that case and
// the run goes on. Outcome per case: pass; fail (wrong values, or an error that is not a
// deliberate refusal); unsupported (import refused it with ge::UnsupportedError — a dtype,
// attribute, rank, opset or type GE does not handle — or it uses an op no registry defines);
// crash. GE claims an op its backend runs (a kernel or a function body): the command exits 1 when
// a case whose ops are all claimed fails or crashes. Tolerances are ONNX's backend-test defaults (rtol 1e-3, atol 1e-7).
#include <onnx/onnx_pb.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common.h"
#include "ge/core/file_io.h"
#include "ge/core/compare.h"
#include "ge/core/dynamic.h"
#include "ge/core/importer.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/pipeline.h"
#include "ge/core/runtime.h"
#include "ge/sdk/error.h"

namespace fs = std::filesystem;

namespace gec {

namespace {

struct CaseResult {
  std::string name, outcome, detail;
  std::set<std::string> ops;
  bool claimed = false;
};

std::set<std::string> ops_of(const std::string& model_path) {
  std::set<std::string> ops;
  onnx::ModelProto m;
  std::string bytes;
  try {
    bytes = ge::core::read_regular_file(model_path, "model file");  // a FIFO would block an ifstream
  } catch (const ge::Error&) {
    return ops;  // the case itself then reports the file
  }
  if (m.ParseFromString(bytes))
    for (auto& n : m.graph().node()) ops.insert((n.domain().empty() || n.domain() == "ai.onnx" ? "" : n.domain() + ".") + n.op_type());
  return ops;
}

/// ONNX 1.12's node tests store bfloat16 data as uint16 TensorProtos (its numpy has no bfloat16):
/// the same bits, taken as the bfloat16 the model declares.
ge::Tensor as_bfloat16_if_declared(const ge::Tensor& t, ge::DataType declared) {
  if (declared != ge::DataType::BFloat16 || t.dtype() != ge::DataType::UInt16) return t;
  return ge::Tensor::wrap(ge::DataType::BFloat16, t.shape(), const_cast<void*>(t.data()),
                          std::make_shared<ge::Tensor>(t));
}

/// Runs in the child: returns "pass", "fail\t<msg>" or "unsupported\t<msg>".
/// --input-shape overrides for graph inputs whose first test set's data has another shape than the
/// model declares (a few node tests, e.g. CastLike's `like`, declare a shape their data does not
/// have; ONNX Runtime runs them with the data's shape).
std::vector<std::string> data_shapes(const fs::path& dir) {
  std::vector<std::string> out;
  onnx::ModelProto m;
  std::ifstream in(dir / "model.onnx", std::ios::binary);
  if (!in || !m.ParseFromIstream(&in)) return out;
  std::set<std::string> inits;
  for (auto& t : m.graph().initializer()) inits.insert(t.name());
  int k = 0;
  for (auto& vi : m.graph().input()) {
    if (inits.count(vi.name())) continue;
    std::ifstream f(dir / "test_data_set_0" / ("input_" + std::to_string(k++) + ".pb"), std::ios::binary);
    onnx::TensorProto t;
    if (!f || !t.ParseFromIstream(&f) || !vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) continue;
    const auto& dims = vi.type().tensor_type().shape().dim();
    bool same = dims.size() == t.dims_size();
    for (int i = 0; same && i < dims.size(); ++i) same = dims[i].has_dim_value() && dims[i].dim_value() == t.dims(i);
    if (same) continue;
    std::string spec = vi.name() + ":";
    for (int i = 0; i < t.dims_size(); ++i) spec += (i ? "," : "") + std::to_string(t.dims(i));
    out.push_back(spec);
  }
  return out;
}

/// The case's model without any declared output or intermediate shape (element types stay) and
/// with the data's input shapes written in, as a file in the temporary directory (the case runs
/// in a child of its own, so the name is unique).
std::string stripped_model(const fs::path& dir) {
  const std::string src = (dir / "model.onnx").string();
  onnx::ModelProto m;
  if (!m.ParseFromString(ge::core::read_regular_file(src, "model file"))) throw ge::Error("model file '" + src + "' is not an ONNX model");
  auto* g = m.mutable_graph();
  g->clear_value_info();
  // Every dim becomes unknown (neither dim_value nor dim_param); the rank stays because models
  // of IR version < 4 must give a shape (onnx's checker), and GE takes no shape from unknown dims.
  for (auto& o : *g->mutable_output())
    if (o.type().has_tensor_type() && o.type().tensor_type().has_shape())
      for (auto& d : *o.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) d.Clear();
  for (const std::string& spec : data_shapes(dir)) {
    const std::string name = spec.substr(0, spec.rfind(':'));
    for (auto& vi : *g->mutable_input()) {
      if (vi.name() != name) continue;
      auto* shp = vi.mutable_type()->mutable_tensor_type()->mutable_shape();
      shp->clear_dim();
      std::string dims = spec.substr(spec.rfind(':') + 1);
      for (size_t p = 0; !dims.empty() && p != std::string::npos;) {
        size_t q = dims.find(',', p);
        shp->add_dim()->set_dim_value(std::stoll(dims.substr(p, q == std::string::npos ? q : q - p)));
        p = q == std::string::npos ? q : q + 1;
      }
    }
  }
  const std::string out = (fs::temp_directory_path() / ("gec-conformance-" + std::to_string(getpid()) + ".onnx")).string();
  std::string bytes;
  m.SerializeToString(&bytes);
  write_file_atomic(out, bytes);
  return out;
}

std::string run_case(const fs::path& dir, const ge::core::Environment& env, const CommonOptions& given, bool strip) {
  std::string stripped;
  struct Remove {
    std::string* p;
    ~Remove() {
      if (!p->empty()) std::remove(p->c_str());
    }
  } remove{&stripped};
  try {
    CommonOptions common = given;
    std::string model = (dir / "model.onnx").string();
    if (strip) model = stripped = stripped_model(dir);
    else
      for (const std::string& spec : data_shapes(dir)) common.input_shapes.push_back(spec);
    // A model whose output shapes depend on values (only when none is declared) runs in stages
    // (ge/core/staging.h), through the dynamic executor.
    Compiled c;
    std::shared_ptr<ge::core::DynamicPlan> dyn;
    std::unique_ptr<ge::core::DynamicExecutor> dex;
    try {
      c = compile_model(model, env, common);
    } catch (const ge::core::DataDependentShapeError&) {
      ge::core::CompileOptions co = common.compile_options(env);
      dyn = std::make_shared<ge::core::DynamicPlan>();
      dyn->spec = ge::core::dynamic_spec_from_file(model, co, env.manifest);
      auto cache = std::make_shared<ge::core::SpecializationCache>(dyn, env, co);
      dex = std::make_unique<ge::core::DynamicExecutor>(dyn, cache, env, ge::core::ExecOptions{co.backend, 1});
    }
    std::vector<fs::path> sets;
    for (auto& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) return "fail\tno test_data_set_* folder";
    ge::core::Tolerance tol;
    tol.max_rel_l2 = -1;
    tol.rtol = 1e-3;
    tol.atol = 1e-7;
    for (auto& s : sets) {
      std::vector<ge::Tensor> ins;
      std::vector<ge::Tensor> outs;
      if (dex) {
        for (size_t k = 0; k < dyn->spec.inputs.size(); ++k)
          ins.push_back(as_bfloat16_if_declared(
              ge::core::read_tensor_file((s / ("input_" + std::to_string(k) + ".pb")).string()), dyn->spec.inputs[k].dtype));
        outs = dex->run(ins);
      } else {
        ge::core::Executable& exe = *c.exe;
        ins = read_inputs(s.string(), exe.graph());
        for (size_t k = 0; k < ins.size(); ++k) ins[k] = as_bfloat16_if_declared(ins[k], exe.graph().inputs()[k]->dtype);
        outs = exe.run(ins);
      }
      for (size_t k = 0; k < outs.size(); ++k) {
        ge::Tensor ref = as_bfloat16_if_declared(
            ge::core::read_tensor_file((s / ("output_" + std::to_string(k) + ".pb")).string()), outs[k].dtype());
        ge::core::Comparison c = ge::core::compare_tensors(outs[k], ref, tol);
        if (!c.ok)
          return "fail\t" + s.filename().string() + " output " + std::to_string(k) + ": " + c.message;
      }
    }
    return "pass";
  } catch (const ge::UnsupportedError& e) {
    return std::string("unsupported\t") + e.what();
  } catch (const std::exception& e) {
    return std::string("fail\t") + e.what();
  }
}

CaseResult run_forked(const fs::path& dir, const ge::core::Environment& env, const CommonOptions& common, double timeout_s,
                      bool strip) {
  CaseResult r;
  r.name = dir.filename().string();
  int fds[2];
  if (pipe(fds) != 0) throw ge::Error("pipe() failed");
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) throw ge::Error("fork() failed");
  if (pid == 0) {
    close(fds[0]);
    std::string res = run_case(dir, env, common, strip);
    size_t off = 0;
    while (off < res.size()) {
      ssize_t w = write(fds[1], res.data() + off, res.size() - off);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  for (;;) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
    if (left <= 0) {
      timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, left) <= 0) continue;
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) {
    r.outcome = "crash";
    r.detail = "timed out after " + std::to_string(timeout_s) + " s";
  } else if (WIFSIGNALED(status)) {
    r.outcome = "crash";
    r.detail = std::string("killed by signal ") + strsignal(WTERMSIG(status));
  } else if (out.empty()) {
    r.outcome = "crash";
    r.detail = "exited without a result (status " + std::to_string(WEXITSTATUS(status)) + ")";
  } else {
    auto tab = out.find('\t');
    r.outcome = out.substr(0, tab);
    r.detail = tab == std::string::npos ? "" : out.substr(tab + 1);
  }
  return r;
}

}  // namespace

int cmd_conformance(const std::string& dir, const CommonOptions& common, const std::vector<std::string>& filters,
                    const std::string& json_path, double timeout_s, bool verbose, bool strip_output_shapes) {
  if (!fs::is_directory(dir)) throw ge::Error("conformance: '" + dir + "' is not a directory");
  auto env = common.load_environment();
  // GE claims an op when the backend runs it: a kernel, or the expansion of its ONNX function
  // body (the registry defines every ai.onnx op; a definition alone runs nothing).
  const std::string backend = ge::core::CompileOptions::from_manifest(env->manifest).backend;
  std::set<std::string> claimed;
  for (const ge::OpDef* d : env->ops.all()) {
    const ge::FunctionExpander* fx = env->ops.expander(d->domain, d->op_type);
    if (env->kernels.find(backend, d->domain, d->op_type) || (fx && fx->has_body(d->since_version)))
      claimed.insert((d->domain.empty() ? "" : d->domain + ".") + d->op_type);
  }

  std::vector<fs::path> cases;
  for (auto& e : fs::directory_iterator(dir)) {
    if (!e.is_directory() || !fs::exists(e.path() / "model.onnx")) continue;
    std::string n = e.path().filename().string();
    bool keep = filters.empty();
    for (auto& f : filters) keep |= n.find(f) != std::string::npos;
    if (keep) cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());

  std::vector<CaseResult> results;
  std::map<std::string, std::map<std::string, int>> per_op;
  std::map<std::string, int> totals;
  int claimed_failures = 0;
  for (auto& c : cases) {
    CaseResult r = run_forked(c, *env, common, timeout_s, strip_output_shapes);
    r.ops = ops_of((c / "model.onnx").string());
    r.claimed = !r.ops.empty() && std::all_of(r.ops.begin(), r.ops.end(), [&](auto& o) { return claimed.count(o) > 0; });
    if (r.claimed && (r.outcome == "fail" || r.outcome == "crash")) ++claimed_failures;
    if (r.outcome == "crash" && !r.claimed) ++claimed_failures;  // a crash is never acceptable
    ++totals[r.outcome];
    for (auto& o : r.ops) ++per_op[o][r.claimed ? r.outcome : "mixed"];
    if (verbose || (r.claimed && r.outcome != "pass"))
      std::printf("%-60s %-11s %s\n", r.name.c_str(), r.outcome.c_str(), r.detail.c_str());
    results.push_back(std::move(r));
  }

  // Per claimed op: outcomes of the cases made only of claimed ops; "with unclaimed" counts the
  // cases where the op appears beside ops no registry defines (expanded function bodies, ...).
  std::printf("\n%-24s %6s %6s %12s %6s %15s\n", "op", "pass", "fail", "unsupported", "crash", "with unclaimed");
  for (auto& [op, m] : per_op) {
    if (!claimed.count(op)) continue;
    std::printf("%-24s %6d %6d %12d %6d %15d\n", op.c_str(), m["pass"], m["fail"], m["unsupported"], m["crash"],
                m["mixed"]);
  }
  int unclaimed = 0;
  for (auto& r : results) unclaimed += !r.claimed;
  std::printf("\ncases: %zu  pass: %d  fail: %d  unsupported: %d  crash: %d  (cases using ops no registry claims: %d)\n",
              results.size(), totals["pass"], totals["fail"], totals["unsupported"], totals["crash"], unclaimed);
  std::printf("failures or crashes of claimed ops: %d\n", claimed_failures);

  if (!json_path.empty()) {
    nlohmann::json j;
    j["totals"] = totals;
    j["claimed_failures"] = claimed_failures;
    for (auto& r : results)
      j["cases"].push_back({{"name", r.name}, {"outcome", r.outcome}, {"detail", r.detail},
                            {"ops", r.ops}, {"claimed", r.claimed}});
    write_file_atomic(json_path, j.dump(1) + "\n");  // checked write and close, then rename
  }
  return claimed_failures == 0 ? 0 : 1;
}

}  // namespace gec
