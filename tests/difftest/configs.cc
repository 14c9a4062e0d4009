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
