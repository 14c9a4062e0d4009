// core/src/stages.h — what dynamic.cc and stages.cc share (ge/core/dynamic.h, ge/core/staging.h).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "ge/core/dynamic.h"
#include "ge/core/importer.h"

namespace ge::core {

/// A spec of the model `bytes` (kept alive by the spec) with the signature `sig`; no options set.
DynamicSpec spec_from_bytes(std::shared_ptr<const std::string> bytes, const std::string& name, const OnnxSignature& sig);

/// The stages of `spec` at binding `b`, cut where importing it stopped with `e` (`g`: the graph
/// as far as the import got, for the values and types it knows).
std::shared_ptr<Staging> make_staging(const DynamicSpec& spec, const Binding& b, const Environment& env,
                                      const CompileOptions& base, const Graph& g, const DataDependentShapeError& e);

/// The executors of one staged binding (DynamicExecutor's own, complete where its members die).
struct DynamicExecutor::StagedRun {
  std::shared_ptr<Staging> staging;
  std::unique_ptr<DynamicExecutor> prefix;
  std::map<std::string, std::unique_ptr<DynamicExecutor>> suffix;  // by rank_signature of its inputs
};

}  // namespace ge::core
