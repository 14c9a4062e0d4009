"""Throughput of one ge.Executor called from 1, 2 and 4 Python threads at once (docs/python.md,
"No silent traps"): each thread runs the same plan on its own input, one intra-op thread per run
(`Session(threads=1)`), so calls run side by side on the cores; every output is compared with a
single-threaded run of the same input, so a wrong number under concurrency shows here too.

Run: PYTHONPATH=build/lib/python /usr/bin/python3 bench/python_executor.py [--model M.onnx]
     [--runs N] [--threads "1 2 4"]
Prints runs/s per thread count, the speed-up over one thread and the number of wrong outputs.
A benchmark, not a test: the figures depend on the machine and on what else runs on it.
"""
import argparse
import os
import threading
import time

import numpy as np

import ge

SHARED = os.environ.get("GE_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "shared"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=os.path.join(SHARED, "models", "squeezenet1_1", "squeezenet1_1.onnx"))
    ap.add_argument("--runs", type=int, default=60, help="runs per thread (default 60)")
    ap.add_argument("--threads", default="1 2 4", help='Python thread counts (default "1 2 4")')
    a = ap.parse_args()

    exe = ge.Session(threads=1).load_plan(ge.generate_plan(ge.optimize(ge.load_onnx(a.model))))
    shape = exe.inputs[0][1]
    rng = np.random.default_rng(0)
    counts = [int(t) for t in a.threads.split()]
    inputs = {}
    for t in range(max(counts)):
        inputs[t] = rng.standard_normal(shape).astype(np.float32)
    # The reference of each input: one run at a time.
    refs = {t: exe.run(x)[0].copy() for t, x in inputs.items()}
    for x in inputs.values():  # warm-up: one run context per thread below exists before timing
        exe.run(x)

    print("model %s, %d runs per thread, Session(threads=1)" % (os.path.basename(a.model), a.runs))
    base = None
    for n in counts:
        wrong = []
        start = threading.Barrier(n + 1)

        def worker(t):
            start.wait()
            for _ in range(a.runs):
                (y,) = exe.run(inputs[t])
                if not np.array_equal(y, refs[t]):
                    wrong.append(t)

        ts = [threading.Thread(target=worker, args=(t,)) for t in range(n)]
        for th in ts:
            th.start()
        start.wait()
        t0 = time.perf_counter()
        for th in ts:
            th.join()
        dt = time.perf_counter() - t0
        rate = n * a.runs / dt
        base = base or rate
        print("%d thread(s): %7.1f runs/s  (%.2fx of 1 thread)  wrong outputs: %d of %d  run contexts: %d"
              % (n, rate, rate / base, len(wrong), n * a.runs, exe.contexts))


if __name__ == "__main__":
    main()
