"""Profile a model and print its top 5 operators by median time.

Uses squeezenet1_1 from the shared models (or --model PATH).
Run: PYTHONPATH=build/lib/python /usr/bin/python3 examples/python/profile_model.py
"""
import os
import tempfile

import ge
from _common import figure, gec_line, options, shared_model


def main():
    args = options(__doc__)
    model = shared_model("squeezenet1_1", args.model)
    print("model = %s" % model)
    p = ge.profile(ge.load_onnx(model), iterations=20)
    print("%d operators, median %.3f ms per run, %.2f MiB (arena + weights), %.1f%% of nominal peak"
          % (len(p.operators), p.latency_ms, p.memory_usage_mb, 100 * p.compute_efficiency))
    for i, op in enumerate(p.top_operators(5), 1):
        print("  %d. %-28s %-16s %.4f ms" % (i, op.name, op.op_type, op.execution_time_ms))
    trace = os.path.join(tempfile.mkdtemp(), "trace.json")
    p.save_trace(trace)
    print("trace:", trace)
    gec_line("O2", "profile", ge.OptimizeConfig().overrides())
    figure("O2", "len(profile.nodes)", len(p.operators))
    figure("O2", "profile.arena_bytes", p.arena_bytes)
    figure("O2", "profile.weight_bytes", p.weight_bytes)
    figure("O2", "profile.total_flops", p.total_flops)


if __name__ == "__main__":
    main()
