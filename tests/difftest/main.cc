// ge_difftest — differential testing of GE on random valid graphs (README.md of this folder).
//
//   ge_difftest SEEDS... [--configs NAME,...] [--out DIR] [--no-reduce] [--max-nodes N] [-v]
//   ge_difftest --replay FILE.ir|DIR...
//   ge_difftest --list-configs
//
// SEEDS are numbers or ranges `A-B` (inclusive). Every seed's graph runs in every configuration
// (configs.h) and is compared with the O0 reference; a mismatch or an error (a pass failing or
// the verifier refusing its result, a kernel throwing, a crash, a timeout) is a failure: the
// graph is reduced (reduce.h) and written as text IR to DIR/seed-S-CONFIG.ir. --replay runs
// saved graphs (the regression tests) in every configuration. Prints per-configuration totals;
// exits 1 when any configuration failed on any graph, 2 on a usage error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "configs.h"
#include "ge/core/importer.h"
#include "ge/sdk/error.h"
#include "ge/sdk/log.h"
#include "ge/sdk/text_ir.h"
#include "graph_gen.h"
#include "reduce.h"

namespace fs = std::filesystem;
using namespace ge;
using namespace ge::difftest;

namespace {

struct Totals {
  int run = 0, ok = 0, mismatch = 0, error = 0, rejected = 0;
  std::map<std::string, int> skipped;
  double worst_rel_l2 = 0;
};

/// A message with the generated names (values, nodes) replaced, so that equal reasons count once.
std::string reason_key(const std::string& s) {
  static const std::regex quoted("'[^']*'"), num("\\b[0-9]+\\b");
  std::string r = std::regex_replace(s, quoted, "'…'");
  r = std::regex_replace(r, num, "N");
  return r.size() > 140 ? r.substr(0, 140) + "…" : r;
}

std::vector<uint64_t> parse_seeds(const std::string& a) {
  std::vector<uint64_t> out;
  const auto dash = a.find('-');
  try {
    size_t used = 0;
    if (dash == std::string::npos) {
      out.push_back(std::stoull(a, &used));
      if (used != a.size()) throw std::invalid_argument(a);
    } else {
      const uint64_t lo = std::stoull(a.substr(0, dash), &used), hi = std::stoull(a.substr(dash + 1));
      if (hi < lo) throw std::invalid_argument(a);
      for (uint64_t s = lo; s <= hi; ++s) out.push_back(s);
    }
  } catch (const std::exception&) {
    throw Error("seeds '" + a + "': expected a number or a range A-B with A <= B");
  }
  return out;
}

std::string text_of(const Graph& g) {
  TextIrOptions o;
  o.max_const_elements = 1 << 20;  // every constant with its values: the file reproduces the failure
  return print_graph(g, o);
}

struct Run {
  std::vector<Config> cfgs;
  std::vector<Totals> totals;
  std::map<std::string, int> ops_run;  ///< op type → nodes in graphs that ran
  int graphs = 0, failed_graphs = 0;
  std::vector<std::string> failures;
  std::string out_dir;
  bool reduce = true, verbose = false;

  std::vector<size_t> all() const {
    std::vector<size_t> w(cfgs.size());
    for (size_t i = 0; i < w.size(); ++i) w[i] = i;
    return w;
  }

  /// Runs one graph everywhere; tallies; reduces and saves each failure. Returns false on failure.
  bool check(const Graph& g, uint32_t input_seed, const std::string& label) {
    std::vector<Outcome> res = evaluate(cfgs, g, input_seed, all());
    ++graphs;
    bool ok = true;
    if (res[0].kind != Outcome::Rejected)
      for (auto& [op, n] : op_histogram(g)) ops_run[op] += n;
    for (size_t i = 0; i < res.size(); ++i) {
      Totals& t = totals[i];
      const Outcome& o = res[i];
      switch (o.kind) {
        case Outcome::Ok: ++t.run; ++t.ok; t.worst_rel_l2 = std::max(t.worst_rel_l2, o.rel_l2); break;
        case Outcome::Skipped: ++t.skipped[reason_key(o.detail)]; break;
        case Outcome::Rejected: ++t.rejected; if (i == 0) ++t.skipped["rejected: " + reason_key(o.detail)]; break;
        case Outcome::Mismatch: ++t.run; ++t.mismatch; break;
        case Outcome::Error: ++t.run; ++t.error; break;
      }
      if (o.kind != Outcome::Mismatch && o.kind != Outcome::Error) continue;
      ok = false;
      const std::string what = label + " " + cfgs[i].spec.name + ": " + std::string(kind_name(o.kind)) + ": " + o.detail;
      std::printf("FAIL %s\n", what.c_str());
      std::fflush(stdout);
      failures.push_back(what);
      if (reduce) save_reduced(g, input_seed, label, i, o);
    }
    if (!ok) ++failed_graphs;
    if (verbose) {
      std::printf("%s: %zu nodes:", label.c_str(), g.num_nodes());
      for (size_t i = 0; i < res.size(); ++i) std::printf(" %s=%s", cfgs[i].spec.name.c_str(), std::string(kind_name(res[i].kind)).c_str());
      std::printf("\n");
    }
    return ok;
  }

  void save_reduced(const Graph& g, uint32_t input_seed, const std::string& label, size_t cfg, const Outcome& o) {
    const Outcome::Kind kind = o.kind;
    auto fails = [&](const Graph& c) {
      std::vector<size_t> which = {0};
      if (cfg != 0) which.push_back(cfg);
      std::vector<Outcome> r = evaluate(cfgs, c, input_seed, which, 60);
      return r.back().kind == kind;
    };
    int steps = 0;
    std::unique_ptr<Graph> r = reduce_graph(g, *cfgs[0].env, fails, &steps);
    std::ostringstream os;
    os << "# difftest: " << label << ", configuration " << cfgs[cfg].spec.name << ": " << kind_name(kind) << "\n"
       << "# " << o.detail << "\n"
       << "# reduced from " << g.num_nodes() << " to " << r->num_nodes() << " nodes in " << steps << " steps\n"
       << "# inputs: seed " << input_seed << "\n"
       << text_of(*r);
    TextIrOptions brief;
    brief.max_const_elements = 8;
    std::printf("reduced (%zu -> %zu nodes, %d steps):\n%s", g.num_nodes(), r->num_nodes(), steps, print_graph(*r, brief).c_str());
    if (!out_dir.empty()) {
      fs::create_directories(out_dir);
      std::string name = label;
      std::replace(name.begin(), name.end(), ' ', '-');
      const fs::path p = fs::path(out_dir) / (name + "-" + cfgs[cfg].spec.name + ".ir");
      std::ofstream(p) << os.str();
      std::printf("saved %s\n", p.c_str());
    }
    std::fflush(stdout);
  }

  void print_totals(double seconds) const {
    std::printf("\n%-18s %7s %7s %9s %7s %8s  %-12s %s\n", "configuration", "run", "ok", "mismatch", "error", "skipped",
                "worst rel_l2", "tolerance");
    for (size_t i = 0; i < cfgs.size(); ++i) {
      const Totals& t = totals[i];
      int skipped = 0;
      for (auto& [r, n] : t.skipped) skipped += n;
      const ConfigSpec& s = cfgs[i].spec;
      const std::string tol = s.check == Check::Reference ? "reference" : s.check == Check::Bitwise ? "bitwise" : "rel_l2 <= " + [&] {
        char b[32];
        std::snprintf(b, sizeof b, "%.0e", s.tol);
        return std::string(b);
      }();
      std::printf("%-18s %7d %7d %9d %7d %8d  %-12.2e %s\n", s.name.c_str(), t.run, t.ok, t.mismatch, t.error, skipped,
                  t.worst_rel_l2, tol.c_str());
    }
    std::printf("\nskip reasons:\n");
    for (size_t i = 0; i < cfgs.size(); ++i)
      for (auto& [r, n] : totals[i].skipped) std::printf("  %-18s %6d  %s\n", cfgs[i].spec.name.c_str(), n, r.c_str());
    std::printf("\nops run (%zu types):", ops_run.size());
    for (auto& [op, n] : ops_run) std::printf(" %s:%d", op.c_str(), n);
    std::printf("\n\n%d graphs, %d failed, %.1f s\n", graphs, failed_graphs, seconds);
  }
};

std::vector<fs::path> replay_files(const std::string& arg) {
  std::vector<fs::path> out;
  if (fs::is_directory(arg)) {
    for (const auto& e : fs::directory_iterator(arg))
      if (e.path().extension() == ".ir") out.push_back(e.path());
    std::sort(out.begin(), out.end());
  } else if (fs::exists(arg)) {
    out.push_back(arg);
  } else {
    throw Error("--replay '" + arg + "': no such file or directory");
  }
  return out;
}

int usage(const std::string& msg) {
  std::fprintf(stderr, "ge_difftest: error: %s\nusage: ge_difftest SEEDS... [--configs A,B] [--out DIR] [--no-reduce] "
                       "[--max-nodes N] [-v] | --replay FILE.ir|DIR... | --list-configs\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> seeds;
  std::vector<std::string> replay, only;
  Run run;
  GenOptions gen;
  bool list = false;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw Error(a + ": needs a value");
        return argv[++i];
      };
      if (a == "--replay") replay.push_back(value());
      else if (a == "--configs") {
        std::stringstream ss(value());
        for (std::string c; std::getline(ss, c, ',');) only.push_back(c);
      } else if (a == "--out") run.out_dir = value();
      else if (a == "--no-reduce") run.reduce = false;
      else if (a == "--max-nodes") gen.max_nodes = std::max(gen.min_nodes, std::stoi(value()));
      else if (a == "-v" || a == "--verbose") run.verbose = true;
      else if (a == "--list-configs") list = true;
      else if (!a.empty() && a[0] == '-') throw Error("unknown option '" + a + "'");
      else for (uint64_t s : parse_seeds(a)) seeds.push_back(s);
    }
    if (!list && seeds.empty() && replay.empty()) throw Error("no seeds and no --replay given");
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  try {
    set_log_level("error");
    std::vector<ConfigSpec> specs = default_configs();
    if (!only.empty()) {
      std::vector<ConfigSpec> kept = {specs[0]};
      for (const std::string& n : only) {
        auto it = std::find_if(specs.begin(), specs.end(), [&](const ConfigSpec& s) { return s.name == n; });
        if (it == specs.end()) return usage("--configs: unknown configuration '" + n + "' (see --list-configs)");
        if (it != specs.begin()) kept.push_back(*it);
      }
      specs = kept;
    }
    if (list) {
      for (const ConfigSpec& s : specs)
        std::printf("%-14s %s\n", s.name.c_str(),
                    s.check == Check::Reference ? "reference" : s.check == Check::Bitwise ? "bitwise" : ("rel_l2 <= " + std::to_string(s.tol)).c_str());
      return 0;
    }
    run.cfgs = load_configs(specs);
    run.totals.resize(run.cfgs.size());
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string& r : replay)
      for (const fs::path& p : replay_files(r)) {
        std::ifstream in(p);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        uint32_t input_seed = 0;
        std::smatch m;
        if (std::regex_search(text, m, std::regex("# inputs: seed ([0-9]+)"))) input_seed = static_cast<uint32_t>(std::stoul(m[1]));
        std::unique_ptr<Graph> g = parse_graph(text, p.string());
        core::ImportOptions io;
        core::propagate_shapes(*g, *run.cfgs[0].env, io);
        const bool ok = run.check(*g, input_seed, p.filename().string());
        std::printf("%s %s\n", ok ? "PASS" : "FAIL", p.c_str());
      }
    if (!seeds.empty()) {
      GraphGenerator generator(*run.cfgs[0].env, gen);
      if (!generator.coverage().missing.empty()) {
        std::printf("ops the generator knows without a cpu kernel (not generated):");
        for (const std::string& op : generator.coverage().missing) std::printf(" %s", op.c_str());
        std::printf("\n");
      }
      for (uint64_t seed : seeds) {
        std::unique_ptr<Graph> g;
        try {
          g = generator.generate(seed);
        } catch (const std::exception& e) {  // a generator bug: said, counted, the run goes on
          std::printf("FAIL seed %llu: generator: %s\n", static_cast<unsigned long long>(seed), e.what());
          run.failures.push_back(e.what());
          ++run.failed_graphs;
          continue;
        }
        run.check(*g, static_cast<uint32_t>(seed), "seed " + std::to_string(seed));
      }
    }
    run.print_totals(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return run.failed_graphs ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ge_difftest: error: %s\n", e.what());
    return 2;
  }
}
