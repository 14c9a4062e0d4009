"""Scheduling and layout through the Python API (the default manifest loads the scheduler and
layout plugins: a test asserts it, so none of these can skip for want of them); the configs
must fail with gec's message."""
import os
import tempfile
import unittest

import numpy as np

import ge
from helpers import gec_error, gec_report, run_graph

# oneDNN 2.6 has optimized nChw16c convolutions only with AVX-512; elsewhere the CPU backend
# keeps NCHW (plugins/cpu_backend/layout_preferences.cc) and there is no blocked layout to see.
with open("/proc/cpuinfo") as f:
    HAVE_AVX512 = " avx512f" in f.read()


def branches_graph():
    """x[1,16,16,16] -> four independent Conv+Relu branches -> Concat -> y."""
    rng = np.random.default_rng(0)
    g = ge.Graph("branches")
    g.add_tensor("x", [1, 16, 16, 16])
    outs = []
    for i in range(4):
        g.add_initializer("w%d" % i, rng.standard_normal((8, 16, 3, 3)).astype(np.float32))
        g.add_op("conv%d" % i, "Conv", ["x", "w%d" % i], ["c%d" % i], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
        g.add_op("relu%d" % i, "Relu", ["c%d" % i], ["r%d" % i])
        outs.append("r%d" % i)
    g.add_op("concat", "Concat", outs, ["y"], {"axis": 1})
    g.mark_output("y")
    return g


def gec_args(*configs):
    return [a for c in configs for o in c.overrides() for a in ("--set", o)]


class ScheduleTest(unittest.TestCase):
    def test_parallel_and_auto_match_gec(self):
        g = branches_graph()
        with tempfile.TemporaryDirectory() as d:
            model = os.path.join(d, "b.onnx")
            g.save_onnx(model)
            for cfg in (ge.ScheduleConfig(scheduler="parallel", parallelism=2),
                        ge.ScheduleConfig(scheduler="sequential"), ge.ScheduleConfig(scheduler="auto")):
                with self.subTest(cfg=cfg):
                    s = ge.schedule(g, cfg) if cfg.scheduler != "auto" else ge.auto_schedule(g)
                    r = gec_report("compile", model, *gec_args(ge.OptimizeConfig(), cfg))["schedule"]
                    self.assertEqual(s.schedule_strategy, r["scheduler"])
                    self.assertEqual(s.streams, r["streams"])
                    self.assertGreater(s.estimate_latency(), 0)
                    self.assertAlmostEqual(s.estimate_latency(), r["estimated_latency_ms"], places=9)
        par = ge.schedule(g, ge.ScheduleConfig(scheduler="parallel", parallelism=2, enable_stream_fusion=False))
        self.assertEqual(par.schedule_strategy, "parallel")
        self.assertEqual(par.streams, 2)
        self.assertEqual({o.stream for o in par.graph.get_operators()}, {0, 1})
        x = np.random.default_rng(1).standard_normal((1, 16, 16, 16)).astype(np.float32)
        np.testing.assert_allclose(run_graph(par.graph, x)[0], run_graph(g, x)[0], rtol=1e-4, atol=1e-4)

class LayoutTest(unittest.TestCase):
    def test_default_manifest_loads_scheduler_and_layout(self):
        self.assertIn("scheduler", ge.plugins())
        self.assertIn("layout", ge.plugins())

    @unittest.skipUnless(HAVE_AVX512, "oneDNN has no optimized nChw16c convolution on this CPU (no AVX-512)")
    def test_nc1hwc0_conversion(self):
        g = branches_graph()
        nchw = ge.optimize(g, ge.OptimizeConfig(layout="NCHW"))
        blocked = ge.optimize(g, ge.OptimizeConfig(layout="NC1HWC0"))
        formats = {blocked.get_tensor(t).format for o in blocked.get_operators() for t in o.outputs if t}
        self.assertIn("NC1HWC0", formats)
        self.assertNotIn("NC1HWC0", {nchw.get_tensor(t).format for o in nchw.get_operators() for t in o.outputs if t})
        self.assertNotEqual(blocked.get_tensor("y").format, "NC1HWC0")  # graph outputs are never blocked
        x = np.random.default_rng(1).standard_normal((1, 16, 16, 16)).astype(np.float32)
        np.testing.assert_allclose(run_graph(blocked, x)[0], run_graph(nchw, x)[0], rtol=1e-4, atol=1e-4)
        with tempfile.TemporaryDirectory() as d:
            model = os.path.join(d, "b.onnx")
            g.save_onnx(model)
            r = gec_report("compile", model, *gec_args(ge.OptimizeConfig(layout="NC1HWC0")))
        self.assertEqual(len(blocked), r["nodes_after"])

