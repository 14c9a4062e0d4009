// tests/difftest/configs.cc — configurations, one run of a graph in one of them, and the forked
// evaluation (configs.h).
#include "configs.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "ge/core/compare.h"
#include "ge/core/importer.h"
#include "ge/core/inputs.h"
#include "ge/core/runtime.h"
#include "ge/sdk/error.h"

namespace ge::difftest {

namespace {

ConfigSpec spec(std::string name, std::string level, Check check, double tol) {
  ConfigSpec s;
  s.name = std::move(name);
  s.request.opt_level = std::move(level);
  s.request.threads = 1;
  // Every pass verified after it runs, and a throwing pass an error instead of being undone.
  s.request.verify_each = true;
  s.request.fail_on_pass_error = true;
  s.check = check;
  s.tol = tol;
  return s;
}

}  // namespace

std::vector<ConfigSpec> default_configs() {
  std::vector<ConfigSpec> c;
  c.push_back(spec("O0", "O0", Check::Reference, 0));
  c.push_back(spec("O1", "O1", Check::RelL2, 1e-4));
  c.push_back(spec("O2", "O2", Check::RelL2, 1e-4));
  c.push_back(spec("O3", "O3", Check::RelL2, 1e-4));
  for (const char* lvl : {"O2", "O3"}) {
    ConfigSpec s = spec(std::string("strict-") + lvl, lvl, Check::Bitwise, 0);
    s.request.numerics = "strict";
    c.push_back(s);
  }
  for (const char* sched : {"parallel", "pipeline", "auto"}) {
    ConfigSpec s = spec(std::string("sched-") + sched, "O2", Check::RelL2, 1e-4);
    s.request.scheduler = sched;
    // Two streams run on two worker threads only with a budget of two.
    if (std::string(sched) != "pipeline") s.request.threads = 2;
    c.push_back(s);
  }
  for (const char* planner : {"naive", "greedy_by_breadth"}) {
    ConfigSpec s = spec(std::string("mem-") + planner, "O2", Check::RelL2, 1e-4);
    s.request.sets.push_back(std::string("memory.planner=\"") + planner + "\"");
    c.push_back(s);
  }
  {
    ConfigSpec s = spec("ascend-fp16", "O2", Check::RelL2, 2e-2);
    s.request.backend = "ascend";
    s.fp16 = true;
    c.push_back(s);
    ConfigSpec f = spec("ascend-fp32", "O2", Check::RelL2, 1e-4);
    f.request.backend = "ascend";
    f.request.sets.push_back("ascend.precision_mode=\"must_keep_origin_dtype\"");
    c.push_back(f);
  }
  return c;
}

std::vector<Config> load_configs(const std::vector<ConfigSpec>& specs) {
  std::vector<Config> out;
  for (const ConfigSpec& s : specs) {
    Config c;
    c.spec = s;
    c.env = s.request.load_environment();
    c.options = s.request.compile_options(*c.env);
    c.threads = s.request.thread_count(*c.env);
    out.push_back(std::move(c));
  }
  return out;
}

std::string_view kind_name(Outcome::Kind k) {
  switch (k) {
    case Outcome::Ok: return "ok";
    case Outcome::Skipped: return "skipped";
    case Outcome::Mismatch: return "mismatch";
    case Outcome::Error: return "error";
    case Outcome::Rejected: return "rejected";
  }
  return "?";
}

std::optional<std::string> skip_reason(const ConfigSpec& c, const Graph& g) {
  if (!c.fp16) return std::nullopt;
  // A rounding of the input to fp16 moves a value across the op's discontinuity (an integer for
  // Floor, 0 for Sign, the other operand for Greater, a tie for ArgMax): its result then differs
  // by a whole step, which no tolerance separates from a bug.
  static const std::set<std::string> discontinuous = {
      "Floor", "Ceil", "Round", "Sign", "ThresholdedRelu", "Shrink", "Hardmax", "ArgMax", "ArgMin",
      "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Equal"};
  for (const Node* n : g.nodes()) {
    if (discontinuous.count(n->op_type())) return "fp16: discontinuous op " + n->op_type();
    if (n->op_type() == "Cast" && n->input(0) && dtype_is_float(n->input(0)->dtype) && n->output(0) &&
        !dtype_is_float(n->output(0)->dtype))
      return "fp16: discontinuous op Cast to an integer";
    if (n->op_type() == "MaxPool" && n->num_outputs() > 1 && n->output(1)) return "fp16: MaxPool indices";
  }
  return std::nullopt;
}

namespace {

std::vector<Tensor> run_in(const Config& c, const Graph& g, const std::vector<Tensor>& inputs) {
  std::shared_ptr<Graph> gc = g.clone();
  core::ImportOptions io;
  io.backend = c.options.backend;
  core::propagate_shapes(*gc, *c.env, io);
  core::CompileResult r = core::compile_graph(*gc, *c.env, c.options);
  for (const core::PassRecord& p : r.passes)
    if (p.status.rfind("failed", 0) == 0) throw Error("pass '" + p.name + "' " + p.status);
  core::Executable exe(gc, *c.env, core::ExecOptions{c.options.backend, c.threads, false, Tensor{}});
  return exe.run(inputs);
}

Outcome compare(const ConfigSpec& c, const std::vector<Tensor>& out, const std::vector<Tensor>& ref, const Graph& g) {
  Outcome o;
  if (out.size() != ref.size()) {
    o.kind = Outcome::Mismatch;
    o.detail = std::to_string(out.size()) + " outputs, reference has " + std::to_string(ref.size());
    return o;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    core::Tolerance tol;
    tol.elementwise = c.check == Check::Bitwise;
    tol.rtol = 0;
    tol.atol = 0;
    tol.max_rel_l2 = c.check == Check::Bitwise ? 0 : c.tol;
    core::Comparison cmp = core::compare_tensors(out[i], ref[i], tol);
    o.rel_l2 = std::max(o.rel_l2, std::isfinite(cmp.rel_l2) ? cmp.rel_l2 : 1e30);
    if (!cmp.ok) {
      o.kind = Outcome::Mismatch;
      o.detail = "output #" + std::to_string(i) + " '" + g.outputs()[i]->name() + "': " + cmp.message;
      return o;
    }
  }
  return o;
}

/// How the reference moves when every float value the graph computes is perturbed by a relative
/// `delta` (each element times 1 + delta·u, u uniform in [-1, 1], seeded): a forward error
/// analysis by experiment (Higham, "Accuracy and Stability of Numerical Algorithms", ch. 1-2: a
/// computed result is as good as its data when the problem is well conditioned). `rel_l2` is the
/// largest relative L2 change of a float output (infinite when an integer output changes or a
/// reference output of all zeros moves); `max_abs` the largest |value| computed anywhere.
struct Sensitivity {
  double rel_l2 = 0, max_abs = 0;
};

Sensitivity sensitivity(const Config& ref_cfg, const Graph& g, const std::vector<Tensor>& inputs,
                        const std::vector<Tensor>& ref, double delta, uint32_t seed) {
  std::shared_ptr<Graph> p = g.clone();
  core::ImportOptions io;
  io.backend = ref_cfg.options.backend;
  core::propagate_shapes(*p, *ref_cfg.env, io);
  const size_t n_out = p->outputs().size();
  uint32_t state = seed * 2654435761u + 12345u;
  auto uniform = [&] {  // xorshift32 in [-1, 1)
    state ^= state << 13, state ^= state >> 17, state ^= state << 5;
    return static_cast<double>(state) / 2147483648.0 - 1.0;
  };
  // The graph's float inputs and constants (rounded to fp16 by an fp16 backend) and every float
  // value its nodes compute.
  std::vector<Value*> computed;
  auto jittered = [](const Value* v) {
    return v && v->dtype == DataType::Float32 && v->shape.numel() > 0 && (!v->uses().empty() || v->is_graph_output());
  };
  for (Value* v : p->values())
    if ((v->is_graph_input() || v->is_constant()) && !v->producer() && jittered(v)) computed.push_back(v);
  for (Node* n : p->topological_order())
    for (Value* v : n->outputs())
      if (jittered(v) && !v->data) computed.push_back(v);
  for (Value* v : computed) {
    Tensor c = Tensor::allocate(DataType::Float32, v->shape);
    float* f = c.data_as<float>();
    for (int64_t i = 0; i < c.numel(); ++i) f[i] = static_cast<float>(1.0 + delta * uniform());
    Value* k = p->add_constant(p->unique_value_name(v->name() + "_jitter"), std::move(c));
    Value* moved = p->add_value(p->unique_value_name(v->name() + "_moved"), v->dtype, v->shape);
    p->replace_all_uses(v, moved);
    p->add_node("Mul", "", {v, k}, {moved});
    if (v->producer()) p->mark_output(v);  // its unperturbed value, for the range
  }
  std::vector<Tensor> out = run_in(ref_cfg, *p, inputs);
  Sensitivity s;
  for (size_t i = 0; i < n_out && i < ref.size(); ++i) {
    if (!dtype_is_float(ref[i].dtype())) {
      core::Tolerance exact;
      exact.elementwise = true, exact.rtol = 0, exact.atol = 0, exact.max_rel_l2 = 0;
      if (!core::compare_tensors(out[i], ref[i], exact).ok) s.rel_l2 = INFINITY;
      continue;
    }
    core::Tolerance none;
    none.elementwise = false, none.max_rel_l2 = 1e300;
    const core::Comparison c = core::compare_tensors(out[i], ref[i], none);
    s.rel_l2 = std::max(s.rel_l2, std::isfinite(c.rel_l2) ? c.rel_l2 : INFINITY);
    if (c.max_abs > 0 && c.rel_l2 == 0) s.rel_l2 = INFINITY;  // a reference of zeros that moved
  }
  for (size_t i = n_out; i < out.size(); ++i) {
    const float* f = out[i].data_as<float>();
    for (int64_t k = 0; k < out[i].numel(); ++k)
      if (std::isfinite(f[k])) s.max_abs = std::max(s.max_abs, static_cast<double>(std::fabs(f[k])));
  }
  return s;
}

/// A mismatch (or an fp16 overflow refusal) the graph's own conditioning explains, or nullopt:
/// rounding every value by the configuration's precision (fp16: 2^-11; fp32 configurations,
/// whose fused kernels reassociate sums: 2^-20, a few ulps) moves the reference by more than a
/// tenth of the tolerance (a quarter for fp16), or an fp16 configuration meets a value past
/// fp16's largest finite 65504. Such a graph cannot tell rounding from a bug at that tolerance.
std::optional<std::string> ill_conditioned(const ConfigSpec& c, const Config& ref_cfg, const Graph& g,
                                           const std::vector<Tensor>& inputs, const std::vector<Tensor>& ref,
                                           uint32_t seed) {
  if (c.check != Check::RelL2) return std::nullopt;
  const double delta = c.fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -20);
  Sensitivity s;
  try {
    s = sensitivity(ref_cfg, g, inputs, ref, delta, seed);
  } catch (const std::exception&) {
    return std::nullopt;  // the perturbed graph does not run: nothing excuses the mismatch
  }
  std::ostringstream os;
  os.precision(3);
  if (c.fp16 && s.max_abs > 65504) {
    os << "ill-conditioned for fp16: the graph computes |x| = " << s.max_abs << ", past fp16's largest 65504";
    return os.str();
  }
  if (c.fp16)
    for (const Tensor& r : ref) {
      if (r.dtype() != DataType::Float32 || r.numel() == 0) continue;
      double m = 0;
      for (int64_t k = 0; k < r.numel(); ++k) m = std::max(m, static_cast<double>(std::fabs(r.data_as<float>()[k])));
      if (m < std::ldexp(1.0, -14)) {  // fp16's smallest normal: below it fp16 keeps fewer bits
        os << "ill-conditioned for fp16: an output's largest |value| is " << m << ", below fp16's normal range (2^-14)";
        return os.str();
      }
    }
  if (s.rel_l2 > c.tol / (c.fp16 ? 4 : 10)) {
    os << "ill-conditioned: the reference moves by rel L2 " << s.rel_l2 << " when every computed value moves by "
       << delta << " (tolerance " << c.tol << ")";
    return os.str();
  }
  return std::nullopt;
}

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

/// The child: every configuration of `which`, one line per start ("S i") and result ("R i kind
/// rel_l2 detail").
[[noreturn]] void child(int fd, const std::vector<Config>& cfgs, const Graph& g, uint32_t seed, const std::vector<size_t>& which) {
  std::vector<Tensor> inputs = core::random_inputs(g, seed), ref;
  auto report = [&](size_t i, const Outcome& o) {
    std::ostringstream os;
    os.precision(4);
    os << "R " << i << " " << static_cast<int>(o.kind) << " " << o.rel_l2 << " " << one_line(o.detail) << "\n";
    write_all(fd, os.str());
  };
  write_all(fd, "S 0\n");
  try {
    ref = run_in(cfgs[0], g, inputs);
  } catch (const UnsupportedError& e) {
    for (size_t i = 0; i < which.size(); ++i) report(i, {Outcome::Rejected, e.what(), 0});
    ::_exit(0);
  } catch (const std::exception& e) {
    for (size_t i = 0; i < which.size(); ++i)
      report(i, {which[i] == 0 ? Outcome::Error : Outcome::Skipped, which[i] == 0 ? e.what() : "reference failed", 0});
    ::_exit(0);
  }
  for (size_t i = 0; i < which.size(); ++i) {
    const Config& c = cfgs[which[i]];
    if (c.spec.check == Check::Reference) {
      report(i, {});
      continue;
    }
    if (auto why = skip_reason(c.spec, g)) {
      report(i, {Outcome::Skipped, *why, 0});
      continue;
    }
    write_all(fd, "S " + std::to_string(i) + "\n");
    Outcome o;
    try {
      o = compare(c.spec, run_in(c, g, inputs), ref, g);
    } catch (const std::exception& e) {
      o = {Outcome::Error, e.what(), 0};
    }
    // A mismatch, or the fp16 backend's documented overflow refusal, that the graph's
    // conditioning explains is not counted as a failure (reported as skipped, with the figures).
    const bool fp16_overflow = c.spec.fp16 && o.kind == Outcome::Error && o.detail.find("fp16 overflow") != std::string::npos;
    if (o.kind == Outcome::Mismatch || fp16_overflow)
      if (auto why = ill_conditioned(c.spec, cfgs[0], g, inputs, ref, seed)) o = {Outcome::Skipped, *why + "; " + o.detail, o.rel_l2};
    report(i, o);
  }
  ::_exit(0);
}

}  // namespace

std::vector<Outcome> evaluate(const std::vector<Config>& cfgs, const Graph& g, uint32_t input_seed,
                              const std::vector<size_t>& which, double timeout_s) {
  int fds[2];
  if (::pipe(fds) != 0) throw Error(std::string("difftest: pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("difftest: fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    child(fds[1], cfgs, g, input_seed, which);
  }
  ::close(fds[1]);
  std::string buf;
  const auto t0 = std::chrono::steady_clock::now();
  bool timed_out = false;
  for (;;) {
    const double left = timeout_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (left <= 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1) <= 0) continue;
    char tmp[4096];
    const ssize_t n = ::read(fds[0], tmp, sizeof tmp);
    if (n <= 0) break;
    buf.append(tmp, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);

  std::vector<Outcome> out(which.size(), Outcome{Outcome::Error, "no result (the child stopped before this configuration)", 0});
  std::istringstream is(buf);
  std::string line;
  long running = -1;
  while (std::getline(is, line)) {
    std::istringstream ls(line);
    char tag;
    size_t i;
    ls >> tag >> i;
    if (tag == 'S') running = static_cast<long>(i);
    if (tag != 'R' || i >= out.size()) continue;
    int kind;
    double rel;
    ls >> kind >> rel;
    std::string detail;
    std::getline(ls, detail);
    if (!detail.empty() && detail[0] == ' ') detail.erase(0, 1);
    out[i] = {static_cast<Outcome::Kind>(kind), detail, rel};
    if (static_cast<long>(i) == running) running = -1;
  }
  if (running >= 0) {
    std::string why = timed_out ? "timeout after " + std::to_string(static_cast<int>(timeout_s)) + " s"
                      : WIFSIGNALED(status) ? std::string("crash: signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                                  strsignal(WTERMSIG(status)) + ")"
                                            : "the child exited with status " + std::to_string(WEXITSTATUS(status));
    out[static_cast<size_t>(running)] = {Outcome::Error, why, 0};
    // The configurations after it did not run; the reference crashing leaves nothing to compare.
    for (size_t k = static_cast<size_t>(running) + 1; k < out.size(); ++k)
      if (out[k].detail.rfind("no result", 0) == 0) out[k] = {Outcome::Skipped, "not run: an earlier configuration crashed", 0};
  }
  return out;
}

}  // namespace ge::difftest
