"""GE from Python: build or import graphs, optimize, schedule, compile to plans, run, profile.

The work is done by GE's C++ core (the extension ge._ge); this file adds the configuration
objects and keyword defaults. Errors raise ge.Error (a RuntimeError) carrying gec's message.
Tutorial and the config-to-manifest table: docs/python.md.
"""
import json
from ._ge import (Error, UnsupportedError, InvalidGraphError, Graph, TensorInfo, Operator,
                  MemoryEstimate, Schedule, Plan, Session, Executor, Profile, OperatorTime,
                  load_onnx, load_plan, plugins, fusion_rules, passes, default_manifest, set_log_level)
from . import _ge
from .config import OptimizeConfig, ScheduleConfig, FUSION_MODE_ALIASES, expand_fusion_names

__all__ = ["Error", "UnsupportedError", "InvalidGraphError", "Graph", "TensorInfo", "Operator",
           "MemoryEstimate", "Schedule", "Plan", "Session", "Executor", "Profile", "OperatorTime",
           "OptimizeConfig", "ScheduleConfig", "load_onnx", "load_plan", "plugins", "default_manifest",
           "set_log_level", "fusion_rules", "passes", "graph_fusion_patterns", "optimize", "fuse_operators", "schedule", "auto_schedule", "generate_plan",
           "profile"]


class _FusionPatterns:
    """Process-wide defaults of every compilation from Python (ge.graph_fusion_patterns).

    disable: fusion rules or passes that no ge.optimize / fuse_operators / schedule / generate_plan
    / profile of this process runs, on top of each OptimizeConfig's disabled_patterns. Set it to a
    name or a list of names (GE's, or the article's: layernorm_add_gelu = add_layernorm +
    bias_gelu); names are checked against the loaded plugins when set (ValueError naming an
    unknown one). Reading it gives the GE names; `ge.graph_fusion_patterns.disable = []` clears it.
    """
    __slots__ = ("_disable",)

    def __init__(self):
        self._disable = ()

    @property
    def disable(self):
        return self._disable

    @disable.setter
    def disable(self, names):
        if names is None:
            names = []
        if isinstance(names, str):
            names = [names]
        rules = expand_fusion_names(names, "graph_fusion_patterns.disable")
        known = set(fusion_rules()) | set(passes())
        unknown = [n for n in rules if n not in known]
        if unknown:
            raise ValueError("graph_fusion_patterns.disable: %s is no loaded fusion rule or pass (rules: %s; article "
                             "names: %s)" % (", ".join("'%s'" % n for n in unknown), ", ".join(sorted(fusion_rules())),
                                             ", ".join(sorted(FUSION_MODE_ALIASES))))
        self._disable = tuple(rules)

    def __repr__(self):
        return "ge.graph_fusion_patterns(disable=%r)" % (list(self._disable),)


graph_fusion_patterns = _FusionPatterns()


def _overrides(config):
    return (config or OptimizeConfig()).overrides(graph_fusion_patterns.disable)


def _config_with(config, options, what):
    """`config` (or OptimizeConfig()) with OptimizeConfig fields given as keywords replaced."""
    if not options:
        return config
    c = OptimizeConfig()
    if config is not None:
        for f in OptimizeConfig._FIELDS:
            setattr(c, f, getattr(config, f))
    for k, v in options.items():
        if k not in OptimizeConfig._FIELDS:
            raise TypeError("%s() got an unexpected keyword argument '%s' (OptimizeConfig options: %s)"
                            % (what, k, ", ".join(OptimizeConfig._FIELDS)))
        setattr(c, k, v)
    return c


def _check_graph(graph, what):
    if not isinstance(graph, Graph):
        raise TypeError("%s() takes a ge.Graph, not %s" % (what, type(graph).__name__))


def optimize(graph, config=None, manifest=None, **options):
    """Compiles a copy of `graph` through every stage (as `gec compile`) and returns it.

    config: OptimizeConfig (default OptimizeConfig()); manifest: TOML file (None = the graph's);
    options: OptimizeConfig fields as keywords, replacing config's (ge.optimize(g, layout="NHWC")).
    The result's .fusions and .passes hold the compilation's figures. Raises ge.Error.
    """
    _check_graph(graph, "optimize")
    config = _config_with(config, options, "optimize")
    return _ge._optimize(graph, _overrides(config), manifest or "")


def fuse_operators(graph, config=None, manifest=None, **options):
    """The fusion stage alone (fusion rules and fusion-stage passes) on a copy of `graph`."""
    _check_graph(graph, "fuse_operators")
    config = _config_with(config, options, "fuse_operators")
    return _ge._fuse_operators(graph, _overrides(config), manifest or "")


def schedule(graph, config=None, optimize_config=None, manifest=None):
    """Compiles a copy of `graph` with the scheduler options of `config`; returns a ge.Schedule.

    The schedule stage runs within the whole pipeline (after fusion and layout; the memory stage
    then follows the streams), as `gec compile --scheduler NAME`. The options choose the scheduler
    they imply (ScheduleConfig.implied_scheduler). .schedule_strategy names the scheduler,
    .estimate_latency() is the cost model's estimate in ms.
    """
    _check_graph(graph, "schedule")
    if config is not None and not isinstance(config, ScheduleConfig):
        raise TypeError("schedule() takes a ge.ScheduleConfig, not %s" % type(config).__name__)
    config = config or ScheduleConfig()
    return _ge._schedule(graph, _overrides(optimize_config) + config.overrides(), manifest or "")


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
    _check_graph(graph, "generate_plan")
    overrides = config.overrides(graph_fusion_patterns.disable) if config is not None else []
    if config is None and not graph.compiled_for and graph_fusion_patterns.disable:
        overrides = OptimizeConfig(opt_level=None, numerics=None).overrides(graph_fusion_patterns.disable)
    overrides += ["%s=%s" % (k, _toml_value(v)) for k, v in (options or {}).items()]
    return _ge._generate_plan(graph, backend, manifest or "", overrides)


def profile(graph_or_plan, iterations=100, threads=0, seed=0, manifest=None):
    """Runs a graph or plan once to warm up, then `iterations` times with per-operator timing.

    A Graph not yet compiled is compiled first (O2). Inputs are seeded random (as gec profile).
    Returns a ge.Profile: .top_operators(k), .operators, .memory_usage_mb (MiB),
    .compute_efficiency (achieved / nominal peak), .latency_ms, .save_trace(path).
    """
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ValueError("profile(iterations=%r): iterations must be an int >= 1" % (iterations,))
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise ValueError("profile(threads=%r): threads must be 0 (the manifest's, else all cores) or a positive int"
                         % (threads,))
    if isinstance(graph_or_plan, Plan):
        return _ge._profile_plan(graph_or_plan, iterations, threads, seed, manifest or "")
    if isinstance(graph_or_plan, Graph):
        extra = OptimizeConfig(opt_level=None, numerics=None).overrides(graph_fusion_patterns.disable)
        return _ge._profile_graph(graph_or_plan, iterations, threads, seed, extra)
    raise TypeError("profile() takes a ge.Graph or a ge.Plan, not %s" % type(graph_or_plan).__name__)


def _estimate_memory(self, config=None):
    """Bytes the memory plugin plans for this graph's intermediate tensors (ge.MemoryEstimate):
    .with_reuse (the arena), .without_reuse (one buffer each), .lower_bound (most bytes live at
    once); the estimate itself (int(), str(), f-strings) is .bytes: the planned arena of a graph
    ge.optimize compiled, one buffer per intermediate for a graph not compiled yet. Runs the
    memory stage alone on a copy, in the graph's current order; `config` (OptimizeConfig)
    supplies memory_optimization_level / enable_memory_reuse (default: those of the compilation
    that made the graph). Raises ge.Error.
    """
    return self._estimate_memory(config.overrides() if config is not None else None)


Graph.estimate_memory = _estimate_memory


def _graph_repr_svg_(self):
    """The graph as SVG for Jupyter (graphviz's `dot` renders to_dot()); None, so that Jupyter
    shows the repr instead, when graphviz is not installed or the graph has over 2000 nodes."""
    import shutil
    import subprocess
    if len(self) > 2000 or not shutil.which("dot"):
        return None
    r = subprocess.run(["dot", "-Tsvg"], input=self.to_dot(), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


Graph._repr_svg_ = _graph_repr_svg_
