"""Configurations of ge.optimize and ge.schedule.

Every field maps to manifest keys (docs/python.md has the table). A field left at None keeps the
manifest's value. ``overrides()`` returns the settings as ``SECTION.KEY=VALUE`` strings: the same
text gec takes with ``--set``, applied by the same code (core's apply_override), so
``gec compile MODEL --set <each override>`` compiles exactly as Python does.

A configuration refuses attributes it does not have (``cfg.enable_memory_resue = True`` raises
AttributeError naming the closest option), so a misspelt option never goes unnoticed.
"""
import difflib

_OPT_LEVELS = ("O0", "O1", "O2", "O3")

# The article's fusion-mode and pattern names (an introduction to CANN's graph engine) and the GE
# fusion rules each stands for. Any other name is taken as a GE rule or pass name and checked
# against the loaded plugins when compiling.
FUSION_MODE_ALIASES = {
    "conv_bn_relu": ("conv_bn", "conv_bias_act"),
    "conv_bias_relu": ("conv_bias_act",),
    "ffn_fusion": ("matmul_add", "bias_gelu", "gemm_act"),
    "layer_norm_fusion": ("layer_norm", "add_layernorm"),
    "layernorm_add_gelu": ("add_layernorm", "bias_gelu"),
}


def expand_fusion_names(names, field):
    """The GE rule names of a list of GE and article names (aliases expanded, order kept)."""
    if isinstance(names, str):
        names = [names]
    out = []
    for n in names:
        if not isinstance(n, str):
            raise TypeError("%s must be a list of str, got an element of type %s" % (field, type(n).__name__))
        for r in FUSION_MODE_ALIASES.get(n, (n,)):
            if r not in out:
                out.append(r)
    return out


def _toml_string(s):
    if not isinstance(s, str):
        raise TypeError("expected a str, got %s" % type(s).__name__)
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_strings(values, field):
    if isinstance(values, str):
        raise TypeError("%s must be a list of str, not a str (%r -> [%r])" % (field, values, values))
    return "[" + ", ".join(_toml_string(v) for v in expand_fusion_names(values, field)) + "]"


class _Config:
    _FIELDS = ()

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            close = difflib.get_close_matches(name, self._FIELDS, n=1)
            raise AttributeError("%s has no option '%s'%s; its options: %s" % (
                type(self).__name__, name, " (did you mean '%s'?)" % close[0] if close else "",
                ", ".join(self._FIELDS)))
        object.__setattr__(self, name, value)

    def __repr__(self):
        set_fields = ["%s=%r" % (f, getattr(self, f)) for f in self._FIELDS if getattr(self, f) is not None]
        return "ge.%s(%s)" % (type(self).__name__, ", ".join(set_fields))

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, f) == getattr(other, f) for f in self._FIELDS)


class OptimizeConfig(_Config):
    """What ge.optimize runs.

    opt_level: "O0".."O3" (default "O2")            -> [compile] opt_level
    numerics: "relaxed" | "strict" (default relaxed) -> [compile] numerics
    fusion_modes: list of fusion rule names or None  -> [fusion] enable (only these rules); the
        article's names are accepted: conv_bn_relu = conv_bn + conv_bias_act, ffn_fusion =
        matmul_add + bias_gelu + gemm_act, layer_norm_fusion = layer_norm + add_layernorm
    disabled_patterns: list of rule/pass names       -> [fusion] disable (article names too)
    enable_memory_reuse: bool (default True)         -> [memory] planner ("naive" when False)
    memory_optimization_level: "none"|"basic"|"aggressive" or None -> [memory] level
    layout: "auto"|"NCHW"|"NHWC"|"NC1HWC0" or None   -> [layout] format (needs the layout plugin)
    precision_mode: "must_keep_origin_dtype"|"allow_mix_precision_bf16" or None -> [cpu] precision_mode
        (the cpu backend's, docs/cpu.md; inputs and outputs stay float32 either way)

    Values are checked where gec checks them: ge.optimize raises ge.Error with gec's message
    for a bad value (e.g. "--set compile.opt_level: must be one of O0, O1, O2, O3").
    """
    _FIELDS = ("opt_level", "numerics", "fusion_modes", "disabled_patterns", "enable_memory_reuse",
               "memory_optimization_level", "layout", "precision_mode")

    def __init__(self, opt_level="O2", numerics="relaxed", fusion_modes=None, disabled_patterns=None,
                 enable_memory_reuse=True, memory_optimization_level=None, layout=None, precision_mode=None):
        self.opt_level = opt_level
        self.numerics = numerics
        self.fusion_modes = fusion_modes
        self.disabled_patterns = disabled_patterns
        self.enable_memory_reuse = enable_memory_reuse
        self.memory_optimization_level = memory_optimization_level
        self.layout = layout
        self.precision_mode = precision_mode

    def overrides(self, extra_disabled=()):
        """The settings as gec --set assignments, e.g. ['compile.opt_level="O2"', ...].

        extra_disabled: rule names disabled besides disabled_patterns (ge.graph_fusion_patterns)."""
        o = []
        if self.opt_level is not None:
            o.append("compile.opt_level=" + _toml_string(self.opt_level))
        if self.numerics is not None:
            o.append("compile.numerics=" + _toml_string(self.numerics))
        if self.fusion_modes is not None:
            o.append("fusion.enable=" + _toml_strings(self.fusion_modes, "fusion_modes"))
        disabled = list(self.disabled_patterns or []) if not isinstance(self.disabled_patterns, str) else [self.disabled_patterns]
        disabled += [d for d in extra_disabled if d not in disabled]
        if disabled:
            o.append("fusion.disable=" + _toml_strings(disabled, "disabled_patterns"))
        if not isinstance(self.enable_memory_reuse, bool):
            raise TypeError("enable_memory_reuse must be a bool")
        if not self.enable_memory_reuse:
            o.append('memory.planner="naive"')
        if self.memory_optimization_level is not None:
            o.append("memory.level=" + _toml_string(self.memory_optimization_level))
        if self.layout is not None:
            o.append("layout.format=" + _toml_string(self.layout))
        if self.precision_mode is not None:
            o.append("cpu.precision_mode=" + _toml_string(self.precision_mode))
        return o


class ScheduleConfig(_Config):
    """What ge.schedule asks of the scheduler plugin.

    scheduler: "sequential"|"parallel"|"pipeline"|"auto" or None -> [scheduler] name
    parallelism: int streams or None                             -> [scheduler] streams
    pipeline_stages: int or None                                 -> [scheduler] pipeline_stages
    enable_stream_fusion: bool or None                           -> [scheduler] stream_fusion

    With scheduler None, the options choose the scheduler they imply (implied_scheduler()):
    pipeline_stages > 1 and parallelism > 1 -> "auto" comparing the parallel and pipeline
    schedules at those options by throughput ([scheduler] objective = "throughput");
    pipeline_stages > 1 -> "pipeline"; parallelism > 1 or enable_stream_fusion -> "parallel";
    nothing set -> the manifest's scheduler.
    """
    _FIELDS = ("scheduler", "parallelism", "pipeline_stages", "enable_stream_fusion")

    def __init__(self, scheduler=None, parallelism=None, pipeline_stages=None, enable_stream_fusion=None):
        self.scheduler = scheduler
        self.parallelism = parallelism
        self.pipeline_stages = pipeline_stages
        self.enable_stream_fusion = enable_stream_fusion

    def implied_scheduler(self):
        """The scheduler these settings run (None: the manifest's)."""
        if self.scheduler is not None:
            return self.scheduler
        stages, streams = self.pipeline_stages or 1, self.parallelism or 1
        if stages > 1 and streams > 1:
            return "auto"
        if stages > 1:
            return "pipeline"
        if streams > 1 or self.enable_stream_fusion:
            return "parallel"
        return None

    def overrides(self):
        """The settings as gec --set assignments, e.g. ['scheduler.name="parallel"', 'scheduler.streams=2']."""
        o = []
        for key, value in (("streams", self.parallelism), ("pipeline_stages", self.pipeline_stages)):
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError("%s must be an int" % ("parallelism" if key == "streams" else key))
            o.append("scheduler.%s=%d" % (key, value))
        if self.enable_stream_fusion is not None:
            if not isinstance(self.enable_stream_fusion, bool):
                raise TypeError("enable_stream_fusion must be a bool")
            o.append("scheduler.stream_fusion=" + ("true" if self.enable_stream_fusion else "false"))
        name = self.implied_scheduler()
        if name is not None:
            o.insert(0, "scheduler.name=" + _toml_string(name))
            if name == "auto" and self.scheduler is None:
                o.append('scheduler.objective="throughput"')
        return o
