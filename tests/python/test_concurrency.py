"""One ge.Executor called from several Python threads at once: every run must return the numbers
a numpy reference gives for its own input (each run takes its own run context from the
Executor's pool). Throughput is measured by hand (docs/python.md), never asserted here."""
import threading
import unittest

import numpy as np

import ge


def mlp_graph(rng):
    """y = Relu(x @ W1 + b1) @ W2 + b2 with x [8, 64]: the numpy reference is exact to float32
    rounding. Returns (graph, reference function)."""
    w1 = (rng.standard_normal((64, 128)) * 0.1).astype(np.float32)
    b1 = rng.standard_normal(128).astype(np.float32)
    w2 = (rng.standard_normal((128, 32)) * 0.1).astype(np.float32)
    b2 = rng.standard_normal(32).astype(np.float32)
    g = ge.Graph("mlp")
    g.add_tensor("x", [8, 64])
    for name, v in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2)):
        g.add_initializer(name, v)
    g.add_op("mm1", "MatMul", ["x", "w1"], ["h0"])
    g.add_op("add1", "Add", ["h0", "b1"], ["h1"])
    g.add_op("relu", "Relu", ["h1"], ["h2"])
    g.add_op("mm2", "MatMul", ["h2", "w2"], ["h3"])
    g.add_op("add2", "Add", ["h3", "b2"], ["y"])
    g.mark_output("y")

    def reference(x):
        return np.maximum(x @ w1 + b1, 0) @ w2 + b2
    return g, reference


class ConcurrentRunTest(unittest.TestCase):
    def test_four_threads_share_one_executor(self):
        rng = np.random.default_rng(0)
        g, reference = mlp_graph(rng)
        exe = ge.Session(threads=1).load_plan(ge.generate_plan(ge.optimize(g)))
        threads, runs = 4, 100
        inputs = [[np.random.default_rng(1000 * t + i).standard_normal((8, 64)).astype(np.float32)
                   for i in range(runs)] for t in range(threads)]
        wrong, errors = [], []
        start = threading.Barrier(threads)

        def worker(t):
            try:
                start.wait()
                for i, x in enumerate(inputs[t]):
                    (y,) = exe.run({"x": x})
                    if y.shape != (8, 32) or not np.allclose(y, reference(x), rtol=1e-4, atol=1e-4):
                        wrong.append((t, i, float(np.abs(y - reference(x)).max())))
            except Exception as e:  # reported below: a thread's exception must fail the test
                errors.append(repr(e))

        ts = [threading.Thread(target=worker, args=(t,)) for t in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(wrong, [], "runs with wrong outputs (thread, run, max abs error)")
        # The pool made at most one run context per concurrent call, and at least one.
        self.assertGreaterEqual(exe.contexts, 1)
        self.assertLessEqual(exe.contexts, threads)

    def test_a_failing_run_returns_its_context(self):
        rng = np.random.default_rng(0)
        g, reference = mlp_graph(rng)
        exe = ge.Session(threads=1).load_plan(ge.generate_plan(ge.optimize(g)))
        for _ in range(5):
            with self.assertRaises(ge.Error):
                exe.run({"x": np.zeros((8, 63), np.float32)})  # wrong shape: refused by the run
        x = np.ones((8, 64), np.float32)
        np.testing.assert_allclose(exe.run(x)[0], reference(x), rtol=1e-4, atol=1e-4)
        self.assertEqual(exe.contexts, 1)


if __name__ == "__main__":
    unittest.main()
