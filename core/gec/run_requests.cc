// gec run --requests M: M requests through the compiled graph — pipelined through its stages
// when the schedule has them (Graph::schedule.pipeline_stages > 1), else back to back — with
// throughput, per-request latency and every request's outputs checked (ge/core/request_pipeline.h).
#include <cstdio>
#include <filesystem>

#include "common.h"
#include "ge/core/onnx_frontend.h"
#include "ge/core/request_pipeline.h"
#include "ge/sdk/error.h"

namespace fs = std::filesystem;

namespace gec {

namespace {

nlohmann::json stats_json(const ge::core::RequestStats& s, int threads) {
  return {{"mode", s.mode},
          {"requests", s.requests},
          {"threads", threads},
          {"stages", s.stages},
          {"workers", s.workers},
          {"slots", s.slots},
          {"threads_per_worker", s.threads_per_worker},
          {"total_ms", s.total_ms},
          {"throughput_rps", s.throughput_rps},
          {"latency_ms", {{"mean", s.latency_mean_ms}, {"median", s.latency_median_ms}, {"min", s.latency_min_ms},
                          {"max", s.latency_max_ms}}}};
}

void print_stats(const ge::core::RequestStats& s, int threads) {
  std::printf("requests: %d %s (%d stage%s, %d worker%s × %d thread%s, %d thread%s in all): %.1f ms, %.2f requests/s, "
              "latency median %.3f ms (min %.3f, max %.3f)\n",
              s.requests, s.mode.c_str(), s.stages, s.stages == 1 ? "" : "s", s.workers, s.workers == 1 ? "" : "s",
              s.threads_per_worker, s.threads_per_worker == 1 ? "" : "s", threads, threads == 1 ? "" : "s", s.total_ms,
              s.throughput_rps, s.latency_median_ms, s.latency_min_ms, s.latency_max_ms);
}

}  // namespace

nlohmann::json run_requests(const Compiled& c, const ge::core::Environment& env, const std::vector<ge::Tensor>& inputs,
                            const RequestOptions& ro, const std::string& check_dir, const ge::core::Tolerance& tol,
                            bool& check_ok) {
  if (ro.requests < 1) throw ge::Error("--requests must be at least 1, not " + std::to_string(ro.requests));
  const std::vector<std::vector<ge::Tensor>> batch(static_cast<size_t>(ro.requests), inputs);
  ge::core::ExecOptions eo{c.options.backend, c.threads};
  ge::core::RequestPipeline pipe(c.graph, env, eo, ro.sequential);
  std::vector<std::vector<ge::Tensor>> outputs = pipe.run(batch);
  print_stats(pipe.stats(), c.threads);
  nlohmann::json j = stats_json(pipe.stats(), c.threads);
  j["latency_ms"]["per_request"] = pipe.stats().latency_ms;

  // Every request's outputs against the references.
  if (!check_dir.empty()) {
    std::vector<ge::Tensor> refs;
    for (size_t k = 0; k < c.graph->outputs().size(); ++k) {
      std::string p = (fs::path(check_dir) / ("output_" + std::to_string(k) + ".pb")).string();
      if (!fs::exists(p)) throw ge::Error("--check: '" + p + "' is missing");
      refs.push_back(ge::core::read_tensor_file(p));
    }
    int failed = 0;
    for (size_t r = 0; r < outputs.size(); ++r)
      for (size_t k = 0; k < refs.size(); ++k) {
        ge::core::Comparison cmp = ge::core::compare_tensors(outputs[r][k], refs[k], tol);
        if (!cmp.ok) {
          if (failed < 5) std::printf("check request %zu output %zu: FAIL %s\n", r, k, cmp.message.c_str());
          ++failed;
        }
      }
    check_ok &= failed == 0;
    std::printf("check: %d requests × %zu outputs: %s\n", ro.requests, refs.size(), failed ? "FAIL" : "PASS");
    j["check"] = {{"ok", failed == 0}, {"failed", failed}};
  }

  // The baselines pipelining is judged against: the same requests back to back on one stream
  // with all threads given to the kernels, and with one thread. The pipeline's graph with its
  // schedule reset to one stream in graph order: graph order is topological and every event
  // points forward in it, so the arena plan (made for the stages' concurrency) stays valid.
  if (ro.baseline && pipe.stats().mode == "pipeline") {
    std::shared_ptr<ge::Graph> one_stream = c.graph->clone();
    one_stream->schedule = ge::ScheduleInfo{};
    one_stream->schedule.scheduler = "sequential";
    for (ge::Node* n : one_stream->nodes()) n->stream = 0, n->pipeline_stage = 0;
    nlohmann::json base = nlohmann::json::object();
    for (int t : {c.threads, 1}) {
      ge::core::RequestPipeline seq(one_stream, env, {c.options.backend, t}, /*sequential=*/true);
      seq.run(batch);
      print_stats(seq.stats(), t);
      base["threads_" + std::to_string(t)] = stats_json(seq.stats(), t);
    }
    const double seq_t = base["threads_" + std::to_string(c.threads)]["throughput_rps"].get<double>();
    const double seq_1 = base["threads_1"]["throughput_rps"].get<double>();
    j["sequential"] = base;
    j["pipeline_over_sequential"] = seq_t > 0 ? pipe.stats().throughput_rps / seq_t : 0;
    j["sequential_threads_speedup"] = seq_1 > 0 ? seq_t / seq_1 : 0;
    std::printf("pipeline / sequential throughput: %.3f; sequential %d threads / 1 thread: %.3f\n",
                j["pipeline_over_sequential"].get<double>(), c.threads, j["sequential_threads_speedup"].get<double>());
  }
  return j;
}

}  // namespace gec
