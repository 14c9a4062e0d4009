"""Configurations of ge.optimize and ge.schedule.

Every field maps to exactly one manifest key (docs/python.md has the table). A field left at
None keeps the manifest's value. ``overrides()`` returns the settings as ``SECTION.KEY=VALUE``
strings: the same text gec takes with ``--set``, applied by the same code (core's
apply_override), so ``gec compile MODEL --set <each override>`` compiles exactly as Python does.
"""

_OPT_LEVELS = ("O0", "O1", "O2", "O3")


def _toml_string(s):
    if not isinstance(s, str):
        raise TypeError("expected a str, got %s" % type(s).__name__)
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_strings(values, field):
    if isinstance(values, str) or not all(isinstance(v, str) for v in values):
        raise TypeError("%s must be a list of str" % field)
    return "[" + ", ".join(_toml_string(v) for v in values) + "]"


class OptimizeConfig:
    """What ge.optimize runs.

    opt_level: "O0".."O3" (default "O2")            -> [compile] opt_level
    numerics: "relaxed" | "strict" (default relaxed) -> [compile] numerics
    fusion_modes: list of fusion rule names or None  -> [fusion] enable (only these rules)
    disabled_patterns: list of rule/pass names       -> [fusion] disable
    enable_memory_reuse: bool (default True)         -> [memory] planner ("naive" when False)
    memory_optimization_level: "none"|"basic"|"aggressive" or None -> [memory] level
    layout: "auto"|"NCHW"|"NC1HWC0" or None          -> [layout] format (needs the layout plugin)
    precision_mode: "must_keep_origin_dtype"|"allow_mix_precision_bf16" or None -> [cpu] precision_mode
        (the cpu backend's, docs/cpu.md; inputs and outputs stay float32 either way)

    Values are checked where gec checks them: ge.optimize raises ge.Error with gec's message
    for a bad value (e.g. "--set compile.opt_level: must be one of O0, O1, O2, O3").
    """

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

    def overrides(self):
        """The settings as gec --set assignments, e.g. ['compile.opt_level="O2"', ...]."""
        o = []
        if self.opt_level is not None:
            o.append("compile.opt_level=" + _toml_string(self.opt_level))
        if self.numerics is not None:
            o.append("compile.numerics=" + _toml_string(self.numerics))
        if self.fusion_modes is not None:
            o.append("fusion.enable=" + _toml_strings(self.fusion_modes, "fusion_modes"))
        if self.disabled_patterns:
            o.append("fusion.disable=" + _toml_strings(self.disabled_patterns, "disabled_patterns"))
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

    def __repr__(self):
        return "ge.OptimizeConfig(%s)" % ", ".join(self.overrides())


class ScheduleConfig:
    """What ge.schedule asks of the scheduler plugin.

    scheduler: "sequential"|"parallel"|"pipeline"|"auto" or None -> [scheduler] name
    parallelism: int streams or None                             -> [scheduler] streams
    pipeline_stages: int or None                                 -> [scheduler] pipeline_stages
    enable_stream_fusion: bool or None                           -> [scheduler] stream_fusion
    """

    def __init__(self, scheduler=None, parallelism=None, pipeline_stages=None, enable_stream_fusion=None):
        self.scheduler = scheduler
        self.parallelism = parallelism
        self.pipeline_stages = pipeline_stages
        self.enable_stream_fusion = enable_stream_fusion

    def overrides(self):
        """The settings as gec --set assignments, e.g. ['scheduler.name="parallel"', 'scheduler.streams=2']."""
        o = []
        if self.scheduler is not None:
            o.append("scheduler.name=" + _toml_string(self.scheduler))
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
        return o

    def __repr__(self):
        return "ge.ScheduleConfig(%s)" % ", ".join(self.overrides())
