"""Parallel vs auto scheduling of an inception-like block (four independent branches joined by
Concat), with the cost model's estimated latency of each.

Needs the scheduler plugin (docs/scheduling.md) in the default manifest; exits 77 (skipped) without it.
Run: PYTHONPATH=build/lib/python /usr/bin/python3 examples/python/scheduling.py
"""
import numpy as np

import ge
from _common import figure, gec_line, options, require_plugin


def build_graph():
    rng = np.random.default_rng(0)
    g = ge.Graph("branches")
    g.add_tensor("x", [1, 32, 28, 28])
    outs = []
    for i, k in enumerate((1, 3, 3, 5)):
        w = rng.standard_normal((16, 32, k, k)).astype(np.float32)
        g.add_initializer("w%d" % i, w)
        p = k // 2
        g.add_op("conv%d" % i, "Conv", ["x", "w%d" % i], ["c%d" % i], {"kernel_shape": [k, k], "pads": [p, p, p, p]})
        g.add_op("relu%d" % i, "Relu", ["c%d" % i], ["r%d" % i])
        outs.append("r%d" % i)
    g.add_op("concat", "Concat", outs, ["y"], {"axis": 1})
    g.mark_output("y")
    return g


def main():
    args = options(__doc__)
    g = build_graph()
    if args.onnx:
        g.save_onnx(args.onnx)
    require_plugin(ge, "scheduler", "[scheduler] options come with the scheduler plugin (docs/scheduling.md)")
    runs = [("parallel", ge.ScheduleConfig(scheduler="parallel", parallelism=2, enable_stream_fusion=True)),
            ("auto", ge.ScheduleConfig(scheduler="auto"))]
    for label, cfg in runs:
        s = ge.schedule(g, cfg) if label != "auto" else ge.auto_schedule(g)
        print("%-8s: strategy %s, %d streams, %d events, estimated %.3f ms %s"
              % (label, s.schedule_strategy, s.streams, len(s.events), s.estimate_latency(),
                 ("(" + s.reason + ")") if s.reason else ""))
        gec_line(label, "compile", ge.OptimizeConfig().overrides() + cfg.overrides())
        figure(label, "schedule.scheduler", s.schedule_strategy)
        figure(label, "schedule.streams", s.streams)
        figure(label, "schedule.estimated_latency_ms", s.estimate_latency())


if __name__ == "__main__":
    main()
