#include "ge/core/pipeline.h"

#include "ge/sdk/verifier.h"

namespace ge::core {

const std::vector<std::string>& pipeline_stages() {
  static const std::vector<std::string> stages = {"import", "canonicalize", "simplify", "fusion",
                                                  "layout", "schedule",     "memory",   "codegen"};
  return stages;
}

PipelineReport run_pipeline(Graph& g, const Environment& env) {
  PipelineReport r;
  for (size_t i = 1; i < pipeline_stages().size(); ++i) r.stages.push_back(pipeline_stages()[i] + ": 0 passes");
  verify_graph_or_throw(g, &env.ops);
  return r;
}

}  // namespace ge::core
