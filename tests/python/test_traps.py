"""The Python API refuses what would otherwise go wrong silently: misspelt options, graphs with
nothing to compute, unknown feed names, undeclared domains, impossible counts."""
import unittest

import numpy as np

import ge


def relu_graph(name="g", mark=True):
    g = ge.Graph(name)
    g.add_tensor("input", [1, 4])
    g.add_op("relu", "Relu", ["input"], ["y"])
    if mark:
        g.mark_output("y")
    return g


class ConfigTest(unittest.TestCase):
    def test_unknown_attribute_refused_with_the_closest_option(self):
        cfg = ge.OptimizeConfig()
        with self.assertRaisesRegex(AttributeError, r"OptimizeConfig has no option 'enable_memory_resue' "
                                                    r"\(did you mean 'enable_memory_reuse'\?\)"):
            cfg.enable_memory_resue = True
        with self.assertRaisesRegex(AttributeError, r"ScheduleConfig has no option 'paralelism' \(did you mean 'parallelism'\?\)"):
            ge.ScheduleConfig().paralelism = 2
        with self.assertRaisesRegex(TypeError, r"optimize\(\) got an unexpected keyword argument 'layuot'"):
            ge.optimize(relu_graph(), layuot="NHWC")

    def test_article_fusion_mode_names(self):
        o = ge.OptimizeConfig(fusion_modes=["conv_bn", "conv_bn_relu", "matmul_add"]).overrides()
        self.assertIn('fusion.enable=["conv_bn", "conv_bias_act", "matmul_add"]', o)
        o = ge.OptimizeConfig(fusion_modes=["attention", "ffn_fusion", "layer_norm_fusion"]).overrides()
        self.assertIn('fusion.enable=["attention", "matmul_add", "bias_gelu", "gemm_act", "layer_norm", "add_layernorm"]', o)
        with self.assertRaisesRegex(ge.Error, r"\[fusion\] enable names 'conv_bn_rleu', which is no loaded pass or fusion rule"):
            ge.optimize(relu_graph(), ge.OptimizeConfig(fusion_modes=["conv_bn_rleu"]))

    def test_schedule_options_imply_their_scheduler(self):
        self.assertIsNone(ge.ScheduleConfig().implied_scheduler())
        self.assertEqual(ge.ScheduleConfig(parallelism=4).implied_scheduler(), "parallel")
        self.assertEqual(ge.ScheduleConfig(enable_stream_fusion=True).implied_scheduler(), "parallel")
        self.assertEqual(ge.ScheduleConfig(pipeline_stages=2).implied_scheduler(), "pipeline")
        c = ge.ScheduleConfig(parallelism=4, pipeline_stages=2, enable_stream_fusion=True)
        self.assertEqual(c.implied_scheduler(), "auto")
        self.assertEqual(c.overrides(), ['scheduler.name="auto"', "scheduler.streams=4", "scheduler.pipeline_stages=2",
                                         "scheduler.stream_fusion=true", 'scheduler.objective="throughput"'])
        self.assertEqual(ge.ScheduleConfig(scheduler="sequential", parallelism=2).implied_scheduler(), "sequential")

    def test_graph_fusion_patterns_checks_names(self):
        try:
            ge.graph_fusion_patterns.disable = "layernorm_add_gelu"
            self.assertEqual(ge.graph_fusion_patterns.disable, ("add_layernorm", "bias_gelu"))
            with self.assertRaisesRegex(ValueError, r"'layernorm_add_gleu' is no loaded fusion rule or pass"):
                ge.graph_fusion_patterns.disable = "layernorm_add_gleu"
            self.assertEqual(ge.graph_fusion_patterns.disable, ("add_layernorm", "bias_gelu"))  # unchanged
        finally:
            ge.graph_fusion_patterns.disable = []
        self.assertEqual(ge.graph_fusion_patterns.disable, ())


class GraphTest(unittest.TestCase):
    def test_graph_without_outputs_returns_its_unread_tensors(self):
        opt = ge.optimize(relu_graph(mark=False))
        self.assertEqual(opt.outputs, ["y"])
        (y,) = ge.Session(threads=1).load_plan(ge.generate_plan(opt)).run(np.array([[-1, 2, -3, 4]], np.float32))
        np.testing.assert_array_equal(y, [[0, 2, 0, 4]])

    def test_graph_with_nothing_to_compute_is_an_error(self):
        g = ge.Graph("empty")
        g.add_tensor("x", [1, 4])
        for f in (ge.optimize, ge.fuse_operators, ge.generate_plan):
            with self.assertRaisesRegex(ge.Error, r"graph 'empty' has no outputs and no operator result to take as one"):
                f(g)

    def test_domains_need_an_opset(self):
        g = ge.Graph("vendor")
        g.add_tensor("x", [1, 4])
        with self.assertRaisesRegex(ge.Error, r"add_op 'v': domain 'myco' has no opset in graph 'vendor': declare its "
                                              r"version, ge.Graph\('vendor', opsets=\{'myco': 1\}\)"):
            g.add_op("v", "Frob", ["x"], ["y"], domain="myco")
        g2 = ge.Graph("vendor", opsets={"myco": 1})
        g2.add_tensor("x", [1, 4])
        with self.assertRaisesRegex(ge.Error, r"op type Frob \(myco\) is not in any loaded registry"):
            g2.add_op("v", "Frob", ["x"], ["y"], domain="myco")
        with self.assertRaisesRegex(ValueError, r"an opset version must be >= 1"):
            ge.Graph("v", opsets={"myco": 0})

    def test_reprs(self):
        g = relu_graph()
        self.assertEqual(repr(g), "<ge.Graph 'g': 1 operators, inputs [input], outputs [y]>")
        self.assertEqual(repr(ge.OptimizeConfig(layout="NHWC")),
                         "ge.OptimizeConfig(opt_level='O2', numerics='relaxed', enable_memory_reuse=True, layout='NHWC')")
        exe = ge.Session(threads=1).load_plan(ge.generate_plan(ge.optimize(g)))
        self.assertEqual(repr(exe), "<ge.Executor backend=cpu inputs=[input[1,4]] threads=1 contexts=1>")
        self.assertEqual(repr(ge.Session(threads=2)), "<ge.Session manifest=default threads=2>")


class RunTest(unittest.TestCase):
    def setUp(self):
        self.exe = ge.Session(threads=1).load_plan(ge.generate_plan(ge.optimize(relu_graph())))

    def test_unknown_and_missing_keys_named_together(self):
        x = np.zeros((1, 4), np.float32)
        with self.assertRaisesRegex(ge.Error, r"run\(\): unknown input 'inp'; missing input 'input'; the plan's inputs are 'input'"):
            self.exe.run({"inp": x})
        with self.assertRaisesRegex(ge.Error, r"run\(\): missing input 'input'"):
            self.exe.run({})
        np.testing.assert_array_equal(self.exe.run({"input:0": x})[0], x)  # TF-style name of 'input'
        with self.assertRaisesRegex(ge.Error, r"input 'input' is a list, not a numpy array"):
            self.exe.run({"input": [0, 0, 0, 0]})

    def test_counts_refused_in_pythons_words(self):
        with self.assertRaisesRegex(ValueError, r"Session\(threads=-1\): threads must be 0"):
            ge.Session(threads=-1)
        with self.assertRaisesRegex(ValueError, r"profile\(iterations=0\): iterations must be an int >= 1"):
            ge.profile(relu_graph(), iterations=0)
        with self.assertRaisesRegex(ValueError, r"profile\(threads=-2\)"):
            ge.profile(relu_graph(), iterations=1, threads=-2)


if __name__ == "__main__":
    unittest.main()
