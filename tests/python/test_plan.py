"""Plans and sessions on a shared model: load_onnx -> optimize -> generate_plan -> save ->
load_plan -> Session.run against the reference output; profile covers every node."""
import os
import tempfile
import unittest

import numpy as np

import ge
from helpers import GEC, gec_report, read_pb, shared_model


def check_close(test, out, ref):
    # gec run --check's bounds (README): relative L2 <= 1e-5 and |out-ref| <= atol + rtol*|ref|
    # with rtol 1e-4, atol 1e-6 * max|ref|.
    rel_l2 = np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref)
    test.assertLessEqual(rel_l2, 1e-5)
    atol = 1e-6 * np.abs(ref).max()
    test.assertTrue(np.all(np.abs(out - ref) <= atol + 1e-4 * np.abs(ref)))


class PlanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model, cls.data = shared_model("squeezenet1_1")
        cls.x = read_pb(os.path.join(cls.data, "input_0.pb"))
        cls.ref = read_pb(os.path.join(cls.data, "output_0.pb"))

    def test_plan_round_trip_matches_reference(self):
        g = ge.load_onnx(self.model)
        opt = ge.optimize(g)
        plan = ge.generate_plan(opt, backend="cpu")
        self.assertEqual(plan.backend, "cpu")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.gep")
            plan.save(path)
            self.assertEqual(os.path.getsize(path), plan.nbytes)
            loaded = ge.load_plan(path)
            exe = ge.Session().load_plan(loaded)
            (name, shape, dtype), = exe.inputs
            self.assertEqual((shape, dtype), (tuple(self.x.shape), "float32"))
            (y,) = exe.run(self.x)
            check_close(self, y, self.ref)
            (y2,) = exe.run({name: self.x})
            np.testing.assert_array_equal(y, y2)
            # A plan file path works too, and gec runs the file Python wrote.
            (y3,) = ge.Session().load_plan(path).run([self.x])
            np.testing.assert_array_equal(y, y3)
            report = gec_report("run", path, "--inputs", self.data, "--check", self.data)
            self.assertTrue(all(c["ok"] for c in report["run"]["check"]))
        # The optimized graph matches gec's compilation of the same model.
        r = gec_report("compile", self.model)
        self.assertEqual(len(opt), r["nodes_after"])
        self.assertEqual(opt.fusions, r["fusions"])

    def test_generate_plan_compiles_unoptimized_graphs(self):
        plan = ge.generate_plan(ge.load_onnx(self.model))
        (y,) = ge.Session(threads=1).load_plan(plan).run(self.x)
        check_close(self, y, self.ref)

    def test_input_shapes_override(self):
        # As gec --input-shape: batch 2 flows to the output, [2, 1000].
        g = ge.load_onnx(self.model, input_shapes={"input": [2, 3, 224, 224]})
        self.assertEqual(g.get_tensor("output").shape, (2, 1000))
        x2 = np.concatenate([self.x, self.x])
        (y,) = ge.Session().load_plan(ge.generate_plan(g)).run(x2)
        check_close(self, y[1:], self.ref)

    def test_profile_covers_every_node(self):
        g = ge.optimize(ge.load_onnx(self.model))
        p = ge.profile(g, iterations=3)
        names = [o.name for o in p.operators]
        self.assertEqual(len(names), len(set(names)))
        r = gec_report("profile", self.model, "--iterations", "1")
        self.assertEqual(sorted(names), sorted(n["name"] for n in r["profile"]["nodes"]))
        self.assertEqual((p.arena_bytes, p.weight_bytes), (r["profile"]["arena_bytes"], r["profile"]["weight_bytes"]))
        self.assertAlmostEqual(p.memory_usage_mb, (p.arena_bytes + p.weight_bytes) / 2 ** 20)
        top = p.top_operators(5)
        self.assertEqual(len(top), 5)
        self.assertTrue(all(a.execution_time_ms >= b.execution_time_ms for a, b in zip(top, top[1:])))
        self.assertGreater(p.compute_efficiency, 0)
        self.assertGreater(p.total_flops, 0.5e9)  # squeezenet1_1: 0.70 GFLOP (models/README.md)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.json")
            p.save_trace(path)
            import json
            with open(path) as f:
                spans = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
            self.assertEqual(len(spans), 3 * len(names))
        # A plan profiles the same nodes.
        pp = ge.profile(ge.generate_plan(g), iterations=2)
        self.assertEqual(sorted(o.name for o in pp.operators), sorted(names))


if __name__ == "__main__":
    unittest.main()


class StagedPlanTest(unittest.TestCase):
    """staged_select (tests/cli/make_test_models.cc): NonZero and Unique with no declared output
    shape; the plan runs in stages cut at each (docs/plan.md, "Data-dependent shapes")."""

    def test_data_dependent_shapes_run_in_stages(self):
        models = os.environ.get("GE_TEST_MODELS")
        if not models:
            self.skipTest("GE_TEST_MODELS is not set")
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            plan = os.path.join(d, "staged.gep")
            subprocess.run([GEC, "compile", os.path.join(models, "staged_select", "model.onnx"), "-o", plan],
                           check=True, stdout=subprocess.DEVNULL)
            e = ge.Session().load_plan(plan)
            shapes = {name: shape for name, shape, _ in e.outputs}
            # every output is declared without a shape: None (a scalar's would be ())
            self.assertEqual(shapes, {"total": None, "values": None, "unique": None, "count": None})
            self.assertEqual([s for _, s, _ in e.inputs], [(-1, 4)])  # x[batch,4]
            # Relu(x) > 0 at (0,1) = 2, (0,3) = 3, (1,0) = 2, (1,2) = 2, (1,3) = 1
            x = np.array([[-1, 2, 0, 3], [2, -5, 2, 1]], np.float32)
            total, values, unique, count = e.run({"x": x})
            self.assertEqual(float(total), 10.0)
            np.testing.assert_array_equal(values, np.array([4, 6, 4, 4, 2], np.float32))
            np.testing.assert_array_equal(unique, np.array([1, 2, 3], np.float32))
            np.testing.assert_array_equal(count, np.array([3], np.int64))
            r = e.last_run
            self.assertEqual(r["kind"], "stages")
            self.assertEqual(r["cut_node"], "node 'nonzero' (NonZero)")
            self.assertEqual([s["kind"] for s in r["stages"]], ["specialization", "stages"])
            self.assertEqual(r["stages"][1]["cut_node"], "node 'unique' (Unique)")
            # nothing positive: every data-dependent output is empty
            total, values, unique, count = e.run({"x": -np.ones((3, 4), np.float32)})
            self.assertEqual(values.shape, (0,))
            self.assertEqual(unique.shape, (0,))
            np.testing.assert_array_equal(count, np.array([0], np.int64))
