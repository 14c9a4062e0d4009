"""ge.optimize / ge.fuse_operators / estimate_memory: fusion counts, configs, exact arena bytes."""
import unittest

import numpy as np

import ge
from helpers import config, conv2d, conv_bn_relu_graph, conv_bn_relu_reference, run_graph


def op_types(g):
    return sorted((o.domain + "." if o.domain else "") + o.op_type for o in g.get_operators())


def three_conv_chain():
    """x[1,3,8,8] -> Conv(4) -> Relu -> Conv(8) -> Relu -> Conv(2) -> y (3x3, pad 1, no bias)."""
    rng = np.random.default_rng(0)
    g = ge.Graph("chain")
    g.add_tensor("x", [1, 3, 8, 8])
    prev, cin = "x", 3
    for i, cout in enumerate((4, 8, 2)):
        g.add_initializer("w%d" % i, rng.standard_normal((cout, cin, 3, 3)).astype(np.float32))
        g.add_op("conv%d" % i, "Conv", [prev, "w%d" % i], ["c%d" % i], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
        prev, cin = "c%d" % i, cout
        if i < 2:
            g.add_op("relu%d" % i, "Relu", [prev], ["r%d" % i])
            prev = "r%d" % i
    g.mark_output(prev)
    return g


class OptimizeTest(unittest.TestCase):
    def test_conv_bn_relu_fuses_to_one_op(self):
        rng = np.random.default_rng(1)
        g, p = conv_bn_relu_graph(rng)
        self.assertEqual(op_types(g), ["BatchNormalization", "Conv", "Relu"])
        opt = ge.optimize(g, config())
        self.assertEqual(op_types(opt), ["ge.FusedConv"])
        self.assertEqual(opt.fusions.get("conv_bn"), 1)
        self.assertEqual(len(g), 3)  # the input graph is untouched
        x = rng.standard_normal((1, 3, 10, 10)).astype(np.float32)
        np.testing.assert_allclose(run_graph(opt, x)[0], conv_bn_relu_reference(x, p), rtol=1e-4, atol=1e-4)

    def test_levels_and_disabled_patterns(self):
        g, _ = conv_bn_relu_graph(np.random.default_rng(1))
        self.assertEqual(op_types(ge.optimize(g, config(opt_level="O1"))),
                         ["BatchNormalization", "Conv", "Relu"])
        # Without conv_bn, BatchNormalization + Relu still become one depthwise 1x1 conv.
        no_fold = ge.optimize(g, config(disabled_patterns=["conv_bn"]))
        self.assertNotIn("conv_bn", no_fold.fusions)
        self.assertEqual(no_fold.fusions.get("batchnorm_relu"), 1)
        no_bn = ge.optimize(g, config(disabled_patterns=["conv_bn", "batchnorm_relu"]))
        self.assertNotIn("conv_bn", no_bn.fusions)
        self.assertIn("BatchNormalization", op_types(no_bn))
        only_bn = ge.optimize(g, config(fusion_modes=["conv_bn"]))
        self.assertEqual(only_bn.fusions, {"conv_bn": 1})
        self.assertEqual(op_types(only_bn), ["Conv", "Relu"])  # conv_bn folds BN into the Conv's weights

    def test_fuse_operators_counts(self):
        # Two Conv -> Add(bias) -> Relu blocks: 6 ops before, 2 FusedConv after.
        rng = np.random.default_rng(0)
        g = ge.Graph("cbr")
        g.add_tensor("x", [1, 4, 12, 12])
        prev, cin = "x", 4
        for i in range(2):
            g.add_initializer("w%d" % i, rng.standard_normal((8, cin, 3, 3)).astype(np.float32))
            g.add_initializer("b%d" % i, rng.standard_normal((1, 8, 1, 1)).astype(np.float32))
            g.add_op("conv%d" % i, "Conv", [prev, "w%d" % i], ["c%d" % i], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
            g.add_op("add%d" % i, "Add", ["c%d" % i, "b%d" % i], ["a%d" % i])
            g.add_op("relu%d" % i, "Relu", ["a%d" % i], ["r%d" % i])
            prev, cin = "r%d" % i, 8
        g.mark_output(prev)
        fused = ge.fuse_operators(g)
        self.assertEqual(len(g), 6)
        self.assertEqual(op_types(fused), ["ge.FusedConv", "ge.FusedConv"])
        self.assertEqual(fused.fusions, {"conv_bias_act": 4})  # per block: absorb the bias, then the Relu
        stages = {p["stage"] for p in fused.passes if p["status"] == "ran"}
        self.assertEqual(stages, {"fusion"})
        x = rng.standard_normal((1, 4, 12, 12)).astype(np.float32)
        np.testing.assert_allclose(run_graph(fused, x)[0], run_graph(g, x)[0], rtol=1e-4, atol=1e-4)

    def test_estimate_memory_exact_bytes(self):
        # Intermediates a=c0 1024 B, r0 1024 B, b=c1 2048 B, r1 2048 B (graph input/output outside the
        # arena). Level basic (no in-place): no reuse = 6144; with reuse the most bytes live at once
        # are c1 + r1 at relu1 = 4096. The lower bound applies every legal alias whatever the level
        # (Relu in place: c0/r0 and c1/r1 share), so it is 1024 + 2048 = 3072 at conv1.
        g = three_conv_chain()
        basic = g.estimate_memory(ge.OptimizeConfig(memory_optimization_level="basic"))
        self.assertEqual((basic.with_reuse, basic.without_reuse, basic.lower_bound), (4096, 6144, 3072))
        self.assertEqual(basic.level, "basic")
        # No reuse at all: every tensor its own buffer.
        none = g.estimate_memory(ge.OptimizeConfig(memory_optimization_level="none"))
        self.assertEqual((none.with_reuse, none.without_reuse), (6144, 6144))
        naive = g.estimate_memory(ge.OptimizeConfig(enable_memory_reuse=False, memory_optimization_level="basic"))
        self.assertEqual((naive.with_reuse, naive.planner), (6144, "naive"))
        # After O2, Conv+Relu -> FusedConv: two intermediates [1,4,8,8] + [1,8,8,8], live together.
        opt = ge.optimize(g, config()).estimate_memory()
        self.assertEqual((opt.with_reuse, opt.without_reuse), (3072, 3072))

    def test_pictures(self):
        # The memory plan picture (Jupyter's _repr_svg_ of an estimate) states the estimate's arena
        # and lower bound; at level basic (no in-place) the peak of the plan's live bytes is 4096,
        # above the planner's bound of 3072 (test above), and both are drawn.
        import xml.etree.ElementTree as ET
        g = three_conv_chain()
        basic = g.estimate_memory(ge.OptimizeConfig(memory_optimization_level="basic"))
        root = ET.fromstring(basic._repr_svg_())
        self.assertEqual(int(root.get("data-arena-bytes")), basic.with_reuse)
        self.assertEqual(int(root.get("data-lower-bound-bytes")), 3072)
        self.assertEqual(int(root.get("data-peak-live-bytes")), 4096)
        # The graph picture: fused nodes list what they absorbed.
        opt = ge.optimize(g, config())
        self.assertEqual(opt.to_dot().count("activation: Relu"), 2)
        svg = opt._repr_svg_()
        import shutil
        if shutil.which("dot"):
            self.assertTrue(svg.lstrip().startswith("<?xml") or "<svg" in svg)
        else:
            self.assertIsNone(svg)

    def test_precision_mode_bf16(self):
        # One 3x3 Conv in bf16 (docs/cpu.md): the result is the convolution of the bf16-rounded
        # input and weights in float64 (fp32 accumulation is far finer than bf16's rounding), and
        # it differs from fp32; input and output stay float32 arrays.
        rng = np.random.default_rng(5)
        g = ge.Graph("bf16")
        g.add_tensor("x", [1, 8, 6, 6])
        w = rng.standard_normal((4, 8, 3, 3)).astype(np.float32)
        g.add_initializer("w", w)
        g.add_op("conv", "Conv", ["x", "w"], ["y"], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
        g.mark_output("y")
        x = rng.standard_normal((1, 8, 6, 6)).astype(np.float32)

        def rb(a):  # round to nearest even to bf16, kept in float32
            u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
            u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
            return u.astype(np.uint32).view(np.float32)

        self.assertEqual(ge.OptimizeConfig(precision_mode="allow_mix_precision_bf16").overrides()[-1],
                         'cpu.precision_mode="allow_mix_precision_bf16"')
        # The fallback lets a CPU without AVX512_BF16 run the same numerics; one with it ignores it.
        plan = ge.generate_plan(g, config=config(precision_mode="allow_mix_precision_bf16"),
                                options={"cpu.bf16_fallback": "emulate"})
        (y,) = ge.Session(threads=1).load_plan(plan).run([x])
        self.assertEqual(y.dtype, np.float32)
        ref = conv2d(rb(x), rb(w), 1)
        rel = lambda a, b: np.linalg.norm(a - b) / np.linalg.norm(b)
        self.assertLess(rel(y, ref), 1e-5)
        self.assertGreater(rel(conv2d(x, w, 1), ref), 1e-4)  # bf16 rounding is visible at this size



if __name__ == "__main__":
    unittest.main()
