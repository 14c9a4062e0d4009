"""GE from Python: build or import graphs, optimize, schedule, compile to plans, run, profile.

The work is done by GE's C++ core (the extension ge._ge); this file adds the configuration
objects and keyword defaults. Errors raise ge.Error (a RuntimeError) carrying gec's message.
Tutorial and the config-to-manifest table: docs/python.md.
"""
import json
from ._ge import (Error, UnsupportedError, InvalidGraphError, Graph, TensorInfo, Operator,
                  MemoryEstimate, Schedule, Plan, Session, Executor, Profile, OperatorTime,
                  load_onnx, load_plan, plugins, default_manifest, set_log_level)
from . import _ge
from .config import OptimizeConfig, ScheduleConfig

__all__ = ["Error", "UnsupportedError", "InvalidGraphError", "Graph", "TensorInfo", "Operator",
           "MemoryEstimate", "Schedule", "Plan", "Session", "Executor", "Profile", "OperatorTime",
           "OptimizeConfig", "ScheduleConfig", "load_onnx", "load_plan", "plugins", "default_manifest",
           "set_log_level", "optimize", "fuse_operators", "schedule", "auto_schedule", "generate_plan",
           "profile"]


def optimize(graph, config=None, manifest=None):
    """Compiles a copy of `graph` through every stage (as `gec compile`) and returns it.

    config: OptimizeConfig (default OptimizeConfig()); manifest: TOML file (None = the graph's).
    The result's .fusions and .passes hold the compilation's figures. Raises ge.Error.
    """
    config = config or OptimizeConfig()
    return _ge._optimize(graph, config.overrides(), manifest or "")


def fuse_operators(graph, config=None, manifest=None):
    """The fusion stage alone (fusion rules and fusion-stage passes) on a copy of `graph`."""
    config = config or OptimizeConfig()
    return _ge._fuse_operators(graph, config.overrides(), manifest or "")


def schedule(graph, config=None, optimize_config=None, manifest=None):
    """Compiles a copy of `graph` with the scheduler options of `config`; returns a ge.Schedule.

    The schedule stage runs within the whole pipeline (after fusion and layout; the memory stage
    then follows the streams), as `gec compile --scheduler NAME`. .schedule_strategy names the
    scheduler, .estimate_latency() is the cost model's estimate in ms. Without the scheduler
    plugin, setting any option raises ge.Error ("unknown key ... no loaded plugin reads it").
    """
    config = config or ScheduleConfig()
    optimize_config = optimize_config or OptimizeConfig()
    return _ge._schedule(graph, optimize_config.overrides() + config.overrides(), manifest or "")


def auto_schedule(graph, optimize_config=None, manifest=None):
    """ge.schedule with the `auto` scheduler: it estimates every candidate and keeps the fastest."""
    return schedule(graph, ScheduleConfig(scheduler="auto"), optimize_config, manifest)


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError("option value %r: expected bool, number, str or a list of them" % (v,))


def generate_plan(graph, backend="cpu", manifest=None, config=None, options=None):
    """Compiles `graph` for `backend` ("cpu", "ascend") and returns the execution plan (ge.Plan).

    A graph ge.optimize already compiled for that backend is serialized as it is; otherwise it is
    compiled first with `config` (OptimizeConfig, default O2) and `options`, a dict of manifest
    keys {"SECTION.KEY": value} as `gec --set` takes them (e.g. {"ascend.precision_mode":
    "must_keep_origin_dtype", "ascend.soc_version": "Ascend310"}). Raises ge.Error naming an
    unknown backend (with the registered ones), an unknown key, or anything the compilation refuses.
    """
    overrides = config.overrides() if config is not None else []
    overrides += ["%s=%s" % (k, _toml_value(v)) for k, v in (options or {}).items()]
    return _ge._generate_plan(graph, backend, manifest or "", overrides)


def profile(graph_or_plan, iterations=100, threads=0, seed=0, manifest=None):
    """Runs a graph or plan once to warm up, then `iterations` times with per-operator timing.

    A Graph not yet compiled is compiled first (O2). Inputs are seeded random (as gec profile).
    Returns a ge.Profile: .top_operators(k), .operators, .memory_usage_mb (MiB),
    .compute_efficiency (achieved / nominal peak), .latency_ms, .save_trace(path).
    """
    if isinstance(graph_or_plan, Plan):
        return _ge._profile_plan(graph_or_plan, iterations, threads, seed, manifest or "")
    if isinstance(graph_or_plan, Graph):
        return _ge._profile_graph(graph_or_plan, iterations, threads, seed)
    raise TypeError("profile() takes a ge.Graph or a ge.Plan, not %s" % type(graph_or_plan).__name__)


def _estimate_memory(self, config=None):
    """Bytes the memory plugin plans for this graph's intermediate tensors (ge.MemoryEstimate):
    .with_reuse (the arena), .without_reuse (one buffer each), .lower_bound (most bytes live at
    once). Runs the memory stage alone on a copy, in the graph's current order; `config`
    (OptimizeConfig) supplies memory_optimization_level / enable_memory_reuse. Raises ge.Error.
    """
    return self._estimate_memory(config.overrides() if config is not None else [])


Graph.estimate_memory = _estimate_memory
