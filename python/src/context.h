// python/src/context.h — what the bindings share: environments per (manifest, overrides), the
// Python-side Graph object, numpy <-> ge::Tensor conversion and the one compile path.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ge/core/environment.h"
#include "ge/core/pipeline.h"
#include "ge/sdk/ir.h"
#include "ge/sdk/pass.h"

namespace gepy {

namespace py = pybind11;

/// The environment of a manifest ("" = the default manifest beside libge_core.so, or GE_MANIFEST)
/// with `--set`-style overrides applied (core::apply_override: same checks and messages as gec).
/// Cached per (manifest, overrides): plugins load once per process.
std::shared_ptr<const ge::core::Environment> environment(const std::string& manifest,
                                                         const std::vector<std::string>& overrides = {});

/// Threads for runs: the manifest's [backend] threads, else all cores (as gec without --threads).
int thread_count(const ge::core::Environment& env, int requested);

/// A graph as Python holds it: the IR, the environment that typed it, and the last compilation.
struct PyGraph {
  std::shared_ptr<ge::Graph> graph;
  std::shared_ptr<const ge::core::Environment> env;
  std::string manifest;                ///< manifest `env` came from ("" = default)
  std::vector<std::string> overrides;  ///< overrides `env` came from
  std::string compiled_for;            ///< backend of a full compilation; "" = not compiled
  ge::core::CompileResult result;      ///< of the last pipeline run that produced this graph
  /// A tensor by name; a TensorFlow-style name and its bare form are the same tensor ("x:0" finds
  /// "x" and "x" finds "x:0" when the exact name is not there). Null when absent.
  ge::Value* find(const std::string& name) const;
  /// find(), throwing ge::Error naming the tensor and the graph when absent.
  ge::Value* value(const std::string& name) const;
};

/// Runs the pipeline (core::compile_graph) on a copy of `in` with the environment of
/// (manifest, overrides). `stages`: only the passes and fusion rules of these stages; nullopt =
/// every stage (a full compilation, as `gec compile`). A failing pass raises (fail_on_pass_error:
/// the message is gec's with --fail-on-pass-error). Releases the GIL while compiling.
PyGraph run_pipeline(const PyGraph& in, const std::string& manifest, const std::vector<std::string>& overrides,
                     const std::optional<std::set<ge::Stage>>& stages);

/// numpy dtype name ("float32", "int64", "bool", …) of a GE dtype; throws ge::Error for dtypes
/// numpy lacks (bfloat16, string).
std::string numpy_dtype_name(ge::DataType t);
/// GE dtype of a numpy dtype name; throws ge::Error listing the accepted names.
ge::DataType dtype_from_numpy(const std::string& name);
/// A C-contiguous copy of an ndarray as a GE tensor (owning).
ge::Tensor tensor_from_array(const py::array& a);
/// A view of an ndarray; `a` must outlive the tensor. Copies only when `a` is not C-contiguous
/// (the copy is kept in `keep`).
ge::Tensor tensor_view(const py::array& a, py::object& keep);
/// An ndarray owning (sharing) the tensor's buffer.
py::array array_from_tensor(const ge::Tensor& t);

/// Runs `graph` once to warm up, then `iterations` times with per-node timing (as gec profile);
/// returns a ge.Profile. Defined in profile.cc.
py::object profile_graph(std::shared_ptr<const ge::Graph> graph, const ge::core::Environment& env,
                         const std::string& backend, int iterations, int threads, uint32_t seed,
                         const std::string& name);

void bind_graph(py::module_& m);
void bind_compile(py::module_& m);
void bind_plan(py::module_& m);
void bind_profile(py::module_& m);

}  // namespace gepy
