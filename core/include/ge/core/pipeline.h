// ge/core/pipeline.h — the compilation stages, in DESIGN.md's order.
//
// import → canonicalize → simplify → fusion → layout → schedule → memory → codegen.
// Passes arrive from plugins (pass manager: a later step); today every stage after import is
// empty and the pipeline records that it ran them.
#pragma once
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/sdk/ir.h"

namespace ge::core {

/// Stage names in execution order.
const std::vector<std::string>& pipeline_stages();

struct PipelineReport {
  std::vector<std::string> stages;  ///< "name: N passes, T ms" per stage that ran
};

/// Runs every stage after import on `g` in place and verifies the graph at the end.
PipelineReport run_pipeline(Graph& g, const Environment& env);

}  // namespace ge::core
