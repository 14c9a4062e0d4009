"""Scheduling and layout through the Python API. They need the scheduler (issue 6) and layout
(issue 5) plugins; without them the tests say so and skip, and the configs must fail with gec's
message."""
import os
import tempfile
import unittest

import numpy as np

import ge
from helpers import gec_error, gec_report, run_graph

HAVE_SCHEDULER = "scheduler" in ge.plugins()
HAVE_LAYOUT = "layout" in ge.plugins()


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
    @unittest.skipUnless(HAVE_SCHEDULER, "needs the scheduler plugin (issue 6) in the default manifest")
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

    @unittest.skipIf(HAVE_SCHEDULER, "the scheduler plugin is loaded")
    def test_without_scheduler_plugin_gec_message(self):
        g = branches_graph()
        cfg = ge.ScheduleConfig(scheduler="parallel")
        with tempfile.TemporaryDirectory() as d:
            model = os.path.join(d, "b.onnx")
            g.save_onnx(model)
            expected = gec_error("compile", model, *gec_args(ge.OptimizeConfig(), cfg))
        with self.assertRaises(ge.Error) as e:
            ge.schedule(g, cfg)
        self.assertEqual(str(e.exception), expected)
        # With no option set the pipeline runs and reports that nothing scheduled it.
        s = ge.schedule(g)
        self.assertEqual((s.schedule_strategy, s.estimate_latency()), ("", 0.0))


class LayoutTest(unittest.TestCase):
    @unittest.skipUnless(HAVE_LAYOUT, "needs the layout plugin (issue 5) in the default manifest")
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

    @unittest.skipIf(HAVE_LAYOUT, "the layout plugin is loaded")
    def test_without_layout_plugin_gec_message(self):
        g = branches_graph()
        cfg = ge.OptimizeConfig(layout="NC1HWC0")
        with tempfile.TemporaryDirectory() as d:
            model = os.path.join(d, "b.onnx")
            g.save_onnx(model)
            expected = gec_error("compile", model, *gec_args(cfg))
        with self.assertRaises(ge.Error) as e:
            ge.optimize(g, cfg)
        self.assertEqual(str(e.exception), expected)


if __name__ == "__main__":
    unittest.main()
