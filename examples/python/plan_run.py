"""Generate an execution plan, save it, load it back and run it on numpy input.

Uses squeezenet1_1 from the shared models (or --model PATH) and checks the output against the
model's reference (test_data_set_0/output_0.pb) by relative L2 error.
Run: PYTHONPATH=build/lib/python /usr/bin/python3 examples/python/plan_run.py
"""
import os
import tempfile
import time

import numpy as np
from onnx import TensorProto, numpy_helper

import ge
from _common import figure, gec_line, options, shared_model


def read_pb(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main():
    args = options(__doc__)
    model = shared_model("squeezenet1_1", args.model)
    print("model = %s" % model)
    graph = ge.load_onnx(model)
    optimized = ge.optimize(graph)
    plan = ge.generate_plan(optimized, backend="cpu")
    path = os.path.join(tempfile.mkdtemp(), "squeezenet1_1.gep")
    plan.save(path)
    print("plan: %s, %d bytes, inputs %s, outputs %s" % (path, plan.nbytes, plan.inputs, plan.outputs))
    executor = ge.Session().load_plan(ge.load_plan(path))
    data = os.path.join(os.path.dirname(model), "test_data_set_0")
    x = read_pb(os.path.join(data, "input_0.pb"))
    t0 = time.perf_counter()
    (y,) = executor.run(x)
    print("run: %.2f ms, output %s %s" % (1e3 * (time.perf_counter() - t0), y.shape, y.dtype))
    ref = read_pb(os.path.join(data, "output_0.pb"))
    print("relative L2 error vs reference: %.3g (gec run --check bound: 1e-5)"
          % (np.linalg.norm(y - ref) / np.linalg.norm(ref)))
    print("top-5 classes:", list(np.argsort(-y.ravel())[:5]))
    gec_line("O2", "compile", ge.OptimizeConfig().overrides())
    figure("O2", "nodes_after", len(optimized))
    for rule, n in sorted(optimized.fusions.items()):
        figure("O2", "fusions." + rule, n)
    figure("O2", "memory.arena_bytes", optimized.estimate_memory().with_reuse)


if __name__ == "__main__":
    main()
