// gec — GE's command line.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <new>
#include <cstdio>

#include "common.h"
#include "ge/core/importer.h"
#include "ge/sdk/error.h"

int main(int argc, char** argv) {
  CLI::App app{"gec — GE graph compiler and runtime"};
  app.require_subcommand(1);
  gec::CommonOptions common;

  std::string model;
  CLI::App* run = app.add_subcommand("run", "Import, compile and run a model; check and time it");
  run->add_option("model", model, "Model file (.onnx) or execution plan (.gep, .om; told apart by its magic bytes)")->required();
  run->add_option("--inputs", "Folder with input_K.pb (default: seeded random inputs); a model with symbolic dims takes several")
      ->default_str("")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run->add_option("--check", "Folder with output_K.pb references to compare against (inputs: its input_K.pb unless "
                             "--inputs is given); a model folder of test_data_set_K (symbolic dims): every set")
      ->default_str("");
  run->add_option("--outputs", "Folder to write output_K.pb into")->default_str("");
  run->add_option("--iterations", "Timed runs after one warm-up")->default_val(0);
  run->add_option("--json", "Write the report with the run figures as JSON (same as --report)")->default_str("");
  run->add_option("--seed", "Seed of random inputs")->default_val(0u);
  run->add_option("--max-rel-l2", "Bound on ||out-ref||/||ref|| per output; given without --rtol/--atol, the only criterion")->default_val(1e-5);
  run->add_option("--rtol", "Elementwise relative tolerance")->default_val(1e-4);
  run->add_option("--atol", "Elementwise absolute tolerance (default 1e-6 x max|ref| per output)");
  run->add_option("--requests", "Run M requests: through the schedule's pipeline stages when it has them, else back to "
                                "back; reports throughput and per-request latency, checks every request")
      ->default_val(0);
  bool run_sequential = false, run_baseline = false;  // read back through the options' counts in cmd_run
  run->add_flag("--sequential", run_sequential, "With --requests: back to back even when the schedule has pipeline stages");
  run->add_flag("--baseline", run_baseline,
                "With --requests on a pipelined schedule: also run back to back at --threads and 1 thread");
  common.add_to(*run);

  CLI::App* compile = app.add_subcommand("compile", "Import and compile a model; print the passes; --report");
  compile->add_option("model", model, "Model file (.onnx)")->required();
  std::string plan_out;
  compile->add_option("-o,--output", plan_out, "Write the execution plan to this file (.gep; .om for backend ascend: the offline model)");
  std::string gears;
  compile->add_option("--gears", gears,
                      "Symbolic input dims: the shapes to compile fully, 'batch=1,2,4;sequence=16,32' (every combination) or "
                      "'NAME:1x64,NAME2:1x64;NAME:2x32,...' (whole-shape profiles); default [compile] gears");
  common.add_to(*compile);

  std::string cmp_a = "0", cmp_b = "2", cmp_inputs;
  double cmp_threshold = 1e-5;
  CLI::App* compare = app.add_subcommand("compare", "Run a model at two levels; relative error of every common tensor");
  compare->add_option("model", model, "Model file (.onnx)")->required();
  compare->add_option("--from", cmp_a, "Reference level (default 0)")->check(CLI::IsMember({"0", "1", "2", "3"}));
  compare->add_option("--to", cmp_b, "Compared level (default 2)")->check(CLI::IsMember({"0", "1", "2", "3"}));
  compare->add_option("--inputs", cmp_inputs, "Folder with input_K.pb (default: seeded random inputs)");
  compare->add_option("--threshold", cmp_threshold, "Relative L2 error marked as drift (default 1e-5)");
  bool cmp_fail = false;
  compare->add_flag("--fail-on-drift", cmp_fail, "Exit 1 when any tensor drifts beyond the threshold");
  common.add_to(*compare);

  CLI::App* plugins = app.add_subcommand("plugins", "List the plugins the manifest loads and what they register");
  common.add_to(*plugins, false);
  bool plugin_options = false;
  plugins->add_flag("--options", plugin_options,
                    "List every declared manifest option: key, type, default, allowed values, phase, plugin, help");

  std::string ops_format = "text";
  CLI::App* ops = app.add_subcommand("ops", "List every op type and version the registries define, its metadata and what runs it");
  ops->add_option("--format", ops_format, "text (default), json, md (the table of docs/ops.md)")
      ->check(CLI::IsMember({"text", "json", "md"}));
  ops->add_option("--backend", common.backend, "Only this backend's column (default: every loaded backend)");
  common.add_to(*ops, false);

  std::string calib_out;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "Measure GEMM GFLOP/s, memory GB/s and per-op constants on microbenchmarks; cache them for the cost model");
  calibrate->add_option("-o,--output", calib_out,
                        "Where to write (default: $GE_CALIBRATION, $XDG_CACHE_HOME/ge/calibration.json, ~/.cache/ge/calibration.json)");
  calibrate->add_option("--threads", common.threads, "Threads of the multi-thread measurements (default: all cores)");
  bool calib_peaks = false;
  calibrate->add_flag("--peaks", calib_peaks,
                      "Measure the machine's peaks instead (MatMul sweep 128..2048, FMA loop, STREAM copy/triad) at 1 "
                      "and --threads threads; -o writes them as JSON (nothing is cached)");
  calibrate->add_option("--manifest", common.manifest, "Deployment manifest (TOML); default: the installed default.toml");

  std::string conf_dir;
  std::vector<std::string> filters;
  std::string conf_json;
  double conf_timeout = 60;
  bool conf_verbose = false;
  bool conf_strip = false;
  CLI::App* conf = app.add_subcommand("conformance", "Run ONNX node conformance tests (onnx/backend/test/data/node)");
  conf->add_option("dir", conf_dir, "Folder holding test_*/ cases")->required();
  conf->add_option("--filter", filters, "Only cases whose name contains this (repeatable)");
  conf->add_option("--json", conf_json, "Write results as JSON");
  conf->add_option("--timeout", conf_timeout, "Seconds per case");
  conf->add_flag("--verbose,-v", conf_verbose, "Print every case");
  conf->add_flag("--strip-output-shapes", conf_strip,
                 "Remove every declared output and intermediate shape (element types stay), so that output shapes "
                 "come from GE's inference or, where they depend on values, from the run");
  common.add_to(*conf);

  gec::ProfileOptions prof;
  CLI::App* profile = app.add_subcommand("profile", "Run a model with per-node timing: top-K nodes, FLOP/s, memory, trace");
  profile->add_option("model", model, "Model file (.onnx) or compiled plan (.gep, .om)")->required();
  profile->add_option("--iterations", prof.iterations, "Profiled runs (and as many unprofiled) after one warm-up (default 20)");
  profile->add_option("--top", prof.top, "Rows of the top table (default 10; 0 = all nodes)");
  profile->add_option("--trace", prof.trace, "Write a Chrome trace (Perfetto, chrome://tracing) to this file");
  profile->add_option("--json", prof.json, "Write the report with a 'profile' key to this file");
  profile->add_option("--peak-gflops", prof.peak_gflops, "Machine peak for efficiency (default: nominal from /proc/cpuinfo)");
  profile->add_option("--seed", prof.seed, "Seed of the random inputs");
  profile->add_flag("--simulate-only", prof.simulate_only,
                    "Backends with a device simulator (ascend): no run, only the simulated per-node time and utilization "
                    "(--trace writes the simulated trace)");
  common.add_to(*profile);

  std::string insp_format = "text", insp_out;
  CLI::App* inspect = app.add_subcommand("inspect", "Print the optimized graph: text IR, GraphViz DOT, SVG or ONNX; or its memory plan as SVG");
  inspect->add_option("model", model, "Model file (.onnx) or execution plan (.gep, .om)")->required();
  inspect->add_option("--format", insp_format,
                      "text (default), dot, svg (needs graphviz), memory-svg (arena offset x schedule step, the lower "
                      "bound marked), onnx (fused ops in domain ge); for plans also "
                      "sections (each backend section summarized, e.g. an .om's tasks) and sections-full (listed); for "
                      "ONNX models also symbolic (the imported graph with its symbolic dims kept: batch, 2*sequence, (H+1)/2)")
      ->check(CLI::IsMember({"text", "dot", "svg", "memory-svg", "onnx", "sections", "sections-full", "symbolic"}));
  inspect->add_option("-o,--output", insp_out, "Write to this file instead of stdout (required for onnx)");
  common.add_to(*inspect);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A number CLI11 could not convert: said in the words of the range checks when one applies.
    if (dynamic_cast<const CLI::ConversionError*>(&e)) {
      try {
        for (const CLI::App* sub : app.get_subcommands()) gec::check_numeric_options(*sub);
      } catch (const ge::Error& u) {
        std::fprintf(stderr, "gec: error: %s\n", u.what());
        return 2;
      }
    }
    // One line, exit 2, as every other gec error (README).
    std::string msg = e.what();
    for (char& ch : msg)
      if (ch == '\n') ch = ' ';
    std::fprintf(stderr, "gec: error: %s (gec --help)\n", msg.c_str());
    return 2;
  }
  try {
    // Numbers CLI11 took as text (or as any int) are checked here, with the value as typed.
    for (const CLI::App* sub : app.get_subcommands()) gec::check_numeric_options(*sub), gec::check_path_options(*sub);
    if (run->parsed()) return gec::cmd_run(model, common, *run);
    if (compile->parsed()) return gec::cmd_compile(model, common, plan_out, gears);
    if (compare->parsed()) return gec::cmd_compare(model, common, cmp_a, cmp_b, cmp_inputs, cmp_threshold, cmp_fail);
    if (plugins->parsed()) return plugin_options ? gec::cmd_plugin_options(common) : gec::cmd_plugins(common);
    if (ops->parsed()) return gec::cmd_ops(common, ops_format);
    if (calibrate->parsed()) return gec::cmd_calibrate(common, calib_out, calib_peaks);
    if (profile->parsed()) return gec::cmd_profile(model, common, prof);
    if (inspect->parsed()) return gec::cmd_inspect(model, common, insp_format, insp_out);
    if (conf->parsed()) return gec::cmd_conformance(conf_dir, common, filters, conf_json, conf_timeout, conf_verbose, conf_strip);
  } catch (const ge::core::DataDependentShapeError& e) {
    // compile, run and conformance run such a model in stages; the other commands need one graph.
    std::fprintf(stderr,
                 "gec: error: %s (no static shape declared for it; `gec compile` and `gec run` run such a model in "
                 "stages cut at that node, docs/plan.md \"Data-dependent shapes\")\n",
                 e.what());
    return 2;
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "gec: error: %s\n", e.what());
    return 2;
  } catch (const CLI::ParseError& e) {
    // An option read after parsing (get_option()->as<T>()) that does not convert: a usage error.
    std::fprintf(stderr, "gec: error: %s (gec --help)\n", e.what());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the system cannot resolve (name too long, symlink loop, no
    // permission): what() names the operation, the reason and the path.
    std::fprintf(stderr, "gec: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "gec: error: out of memory (a tensor or buffer the input asks for does not fit)\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gec: internal error: %s\n", e.what());
    return 3;
  }
  return 0;
}
