"""The Ascend backend from Python: generate_plan(backend="ascend") loads the backend's own
manifest (as `gec compile --backend ascend`), the offline model is saved and loaded, and a
Session without a manifest runs it in the emulator: fp16 within relative L2 1e-2 of the fp32
reference (and not bit-equal to the CPU plan: it really ran in fp16)."""
import os
import tempfile
import unittest

import numpy as np

import ge
from helpers import read_pb, shared_model


class AscendTest(unittest.TestCase):
    def test_offline_model_round_trip_runs_in_the_emulator(self):
        model, data = shared_model("squeezenet1_1")
        x = read_pb(os.path.join(data, "input_0.pb"))
        ref = read_pb(os.path.join(data, "output_0.pb")).astype(np.float64)
        g = ge.load_onnx(model)
        plan = ge.generate_plan(g, backend="ascend")
        self.assertEqual(plan.backend, "ascend")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.om")
            plan.save(path)
            outs = []
            for p in (plan, ge.load_plan(path), path):
                outs.append(ge.Session().load_plan(p).run(x)[0])
        for out in outs:
            rel_l2 = np.linalg.norm(out - ref) / np.linalg.norm(ref)
            self.assertLessEqual(rel_l2, 1e-2)
            self.assertGreater(rel_l2, 1e-5)
            np.testing.assert_array_equal(out, outs[0])
        # ge.profile takes the Ascend plan too (with the plugins it was checked against): every node
        # of the plan is timed.
        prof = ge.profile(plan, iterations=1)
        self.assertGreater(len(prof.top_operators(1000)), 30)
        cpu = ge.Session().load_plan(ge.generate_plan(g, backend="cpu")).run(x)[0]
        self.assertFalse(np.array_equal(cpu, outs[0]))

    def test_precision_mode_through_options(self):
        model, data = shared_model("squeezenet1_1")
        x = read_pb(os.path.join(data, "input_0.pb"))
        ref = read_pb(os.path.join(data, "output_0.pb")).astype(np.float64)
        plan = ge.generate_plan(ge.load_onnx(model), backend="ascend",
                                options={"ascend.precision_mode": "must_keep_origin_dtype"})
        out = ge.Session().load_plan(plan).run(x)[0]
        self.assertLessEqual(np.linalg.norm(out - ref) / np.linalg.norm(ref), 1e-5)
        with self.assertRaisesRegex(ge.Error, "'ascend.precision_mode' must be one of .*not \"fp8\""):
            ge.generate_plan(ge.load_onnx(model), backend="ascend", options={"ascend.precision_mode": "fp8"})

    def test_unknown_backend_names_the_backend_manifests(self):
        g = ge.Graph("g")
        with self.assertRaisesRegex(ge.Error, "backend 'nosuch' is not registered"):
            ge.generate_plan(g, backend="nosuch")


if __name__ == "__main__":
    unittest.main()
