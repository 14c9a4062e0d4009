"""Framework-style op types (plugins/framework_ops): each maps onto the ONNX ops it means at
add_op, computes what its framework computes (numpy references below), creates the parameters a
layer creates when none are given, and refuses bad attributes naming the node."""
import unittest

import numpy as np

import ge
from helpers import gec


def run(g, feeds):
    return ge.Session(threads=1).load_plan(ge.generate_plan(ge.optimize(g))).run(feeds)


def conv2d_ref(x, w, b=None, stride=1, pad=0):
    """Direct NCHW convolution (cross-correlation, as PyTorch and ONNX define it)."""
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            y[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    if b is not None:
        y += b[None, :, None, None]
    return y.astype(np.float32)


class Conv2dTest(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
        self.w = (rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32)
        self.b = rng.standard_normal(4).astype(np.float32)

    def test_maps_onto_onnx_conv_with_pytorch_attributes(self):
        for op_type in ("Conv2d", "Conv2D"):
            g = ge.Graph("c")
            g.add_tensor("x", [1, 3, 8, 8])
            g.add_initializer("w", self.w)
            g.add_initializer("b", self.b)
            g.add_op("conv", op_type, ["x", "w", "b"], ["y"], {"kernel_size": 3, "stride": 2, "padding": 1})
            g.mark_output("y")
            (op,) = g.get_operators()
            self.assertEqual((op.op_type, op.name), ("Conv", "conv"))
            self.assertEqual(op.attrs["kernel_shape"], [3, 3])
            self.assertEqual(op.attrs["strides"], [2, 2])
            self.assertEqual(op.attrs["pads"], [1, 1, 1, 1])
            self.assertEqual(g.get_tensor("y").shape, (1, 4, 4, 4))
            (y,) = run(g, self.x)
            np.testing.assert_allclose(y, conv2d_ref(self.x, self.w, self.b, stride=2, pad=1), rtol=1e-4, atol=1e-4)

    def test_creates_pytorch_initialised_parameters(self):
        def build():
            g = ge.Graph("gen")
            g.add_tensor("input:0", [1, 3, 8, 8])
            g.add_op("conv1", "Conv2d", ["input:0"], ["out:0"], {"kernel_size": [3, 3], "out_channels": 6})
            return g
        g = build()
        w, b = g.get_tensor("conv1.weight"), g.get_tensor("conv1.bias")
        self.assertEqual((w.shape, b.shape), ((6, 3, 3, 3), (6,)))
        bound = 1 / np.sqrt(3 * 3 * 3)  # PyTorch's Conv2d init: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
        for v in (w.value, b.value):
            self.assertLessEqual(np.abs(v).max(), bound)
            self.assertGreater(np.abs(v).max(), bound * 0.5)
        np.testing.assert_array_equal(build().get_tensor("conv1.weight").value, w.value)  # seeded
        self.assertEqual(g.get_tensor("out").shape, (1, 6, 6, 6))  # TF-style name, bare form
        (y,) = run(g, {"input": self.x})
        np.testing.assert_allclose(y, conv2d_ref(self.x, w.value, b.value), rtol=1e-4, atol=1e-4)

    def test_nhwc_data_format_transposes_around_the_conv(self):
        g = ge.Graph("nhwc")
        g.add_tensor("x", [1, 8, 8, 3], format="ND")
        g.add_initializer("w", self.w)
        g.add_op("conv", "Conv2d", ["x", "w"], ["y"], {"padding": 1, "data_format": "NHWC"})
        g.mark_output("y")
        self.assertEqual([o.op_type for o in g.get_operators()], ["Transpose", "Conv", "Transpose"])
        x = self.x.transpose(0, 2, 3, 1).copy()
        (y,) = run(g, x)
        np.testing.assert_allclose(y, conv2d_ref(self.x, self.w, pad=1).transpose(0, 2, 3, 1), rtol=1e-4, atol=1e-4)

    def test_conv2d_bias_relu(self):
        g = ge.Graph("cbr")
        g.add_tensor("x", [1, 3, 8, 8])
        g.add_initializer("w", self.w)
        g.add_initializer("b", self.b)
        g.add_op("f", "Conv2dBiasRelu", ["x", "w", "b"], ["y"], {"fuse_mode": "conv_bias_relu", "padding": [1, 1]})
        g.mark_output("y")
        opt = ge.optimize(g)
        self.assertEqual([o.op_type for o in opt.get_operators() if o.op_type != "TransData"], ["FusedConv"])
        (y,) = run(g, self.x)
        np.testing.assert_allclose(y, np.maximum(conv2d_ref(self.x, self.w, self.b, pad=1), 0), rtol=1e-4, atol=1e-4)

    def test_refusals_name_the_node(self):
        g = ge.Graph("bad")
        g.add_tensor("x", [1, 3, 8, 8])
        with self.assertRaisesRegex(ge.Error, r"node 'c' \(Conv2d\): no weight input and no out_channels"):
            g.add_op("c", "Conv2d", ["x"], ["y"], {"kernel_size": 3})
        with self.assertRaisesRegex(ge.Error, r"node 'c' \(Conv2d\): attribute 'stride' has 3 values; expected 1 or 2"):
            g.add_op("c", "Conv2d", ["x"], ["y"], {"kernel_size": 3, "out_channels": 2, "stride": [1, 1, 1]})
        with self.assertRaisesRegex(ge.Error, r"unknown attribute 'kernel' for Conv2d"):
            g.add_op("c", "Conv2d", ["x"], ["y"], {"kernel": 3, "out_channels": 2})
        with self.assertRaisesRegex(ge.Error, r"fuse_mode 'conv_bn' is not one Conv2dBiasRelu computes"):
            g.add_op("c", "Conv2dBiasRelu", ["x"], ["y"], {"kernel_size": 3, "out_channels": 2, "fuse_mode": "conv_bn"})
        self.assertEqual(len(g), 0)  # every refusal left the graph unchanged
        self.assertEqual(sorted(t for t in ["y", "c.weight"] if _has(g, t)), [])


def _has(g, name):
    try:
        g.get_tensor(name)
        return True
    except ge.Error:
        return False


class OtherAliasesTest(unittest.TestCase):
    def test_batchnorm_without_parameters_is_pytorch_init(self):
        x = np.random.default_rng(1).standard_normal((1, 4, 3, 3)).astype(np.float32)
        for op_type, attrs, eps in (("BatchNorm", {}, 1e-5), ("BatchNorm2d", {"eps": 1e-3}, 1e-3),
                                    ("FusedBatchNorm", {"epsilon": 0.5}, 0.5)):
            g = ge.Graph("bn")
            g.add_tensor("x", [1, 4, 3, 3])
            g.add_op("bn", op_type, ["x"], ["y"], attrs)
            g.mark_output("y")
            self.assertEqual([o.op_type for o in g.get_operators()], ["BatchNormalization"])
            (y,) = run(g, x)
            np.testing.assert_allclose(y, x / np.sqrt(1 + eps), rtol=1e-5, atol=1e-6)  # (x - 0) / sqrt(1 + eps) * 1 + 0

    def test_batchnorm_partial_parameters_refused(self):
        g = ge.Graph("bn")
        g.add_tensor("x", [1, 4, 3, 3])
        g.add_initializer("s", np.ones(4, np.float32))
        with self.assertRaisesRegex(ge.Error, r"1 of the 4 parameters \(scale, B, mean, var\) given"):
            g.add_op("bn", "BatchNorm", ["x", "s"], ["y"])

    def test_bias_add_on_the_channel_axis(self):
        x = np.random.default_rng(2).standard_normal((1, 3, 2, 2)).astype(np.float32)
        b = np.array([1, 2, 3], np.float32)
        g = ge.Graph("ba")
        g.add_tensor("x", [1, 3, 2, 2])
        g.add_initializer("b", b)
        g.add_op("ba", "BiasAdd", ["x", "b"], ["y"])
        g.mark_output("y")
        (y,) = run(g, x)
        np.testing.assert_allclose(y, x + b[None, :, None, None], rtol=1e-6)
        g2 = ge.Graph("ba_nhwc")
        g2.add_tensor("x", [1, 2, 2, 3], format="ND")
        g2.add_initializer("b", b)
        g2.add_op("ba", "BiasAdd", ["x", "b"], ["y"], {"data_format": "NHWC"})
        g2.mark_output("y")
        xt = x.transpose(0, 2, 3, 1).copy()
        np.testing.assert_allclose(run(g2, xt)[0], xt + b, rtol=1e-6)

    def test_linear_and_matmul_v2(self):
        rng = np.random.default_rng(3)
        x = rng.standard_normal((2, 5)).astype(np.float32)
        w = rng.standard_normal((3, 5)).astype(np.float32)
        bias = rng.standard_normal(3).astype(np.float32)
        g = ge.Graph("lin")
        g.add_tensor("x", [2, 5])
        g.add_initializer("w", w)
        g.add_initializer("bias", bias)
        g.add_op("fc", "Linear", ["x", "w", "bias"], ["y"])
        g.mark_output("y")
        np.testing.assert_allclose(run(g, x)[0], x @ w.T + bias, rtol=1e-5, atol=1e-5)
        g2 = ge.Graph("mm")
        g2.add_tensor("a", [2, 5])
        g2.add_tensor("b", [3, 5])
        g2.add_op("mm", "MatMulV2", ["a", "b"], ["y"], {"transpose_x2": 1})
        g2.mark_output("y")
        np.testing.assert_allclose(run(g2, {"a": x, "b": w})[0], x @ w.T, rtol=1e-5, atol=1e-5)
        g3 = ge.Graph("gen_linear")
        g3.add_tensor("x", [2, 5])
        g3.add_op("fc", "Linear", ["x"], ["y"], {"out_features": 4})
        self.assertEqual(g3.get_tensor("fc.weight_T").shape, (5, 4))
        self.assertLessEqual(np.abs(g3.get_tensor("fc.bias").value).max(), 1 / np.sqrt(5))

    def test_relu6(self):
        x = np.array([[-3, 0.5, 5, 9]], np.float32)
        g = ge.Graph("r6")
        g.add_tensor("x", [1, 4])
        g.add_op("r", "Relu6", ["x"], ["y"])
        g.mark_output("y")
        np.testing.assert_array_equal(run(g, x)[0], np.array([[0, 0.5, 5, 6]], np.float32))

    def test_gec_ops_lists_the_aliases(self):
        rc, out, err = gec("ops")
        self.assertEqual(rc, 0, err)
        for op in ("Conv2d", "Conv2D", "BatchNorm", "BatchNorm2d", "FusedBatchNorm", "BiasAdd", "Linear", "MatMulV2",
                   "Relu6", "Conv2dBiasRelu"):
            self.assertRegex(out, r"(?m)^ai\.onnx\s+%s\s" % op)


if __name__ == "__main__":
    unittest.main()


class NhwcLayoutTest(unittest.TestCase):
    def test_nhwc_convolutions_compute_what_nchw_ones_do(self):
        rng = np.random.default_rng(5)
        g = ge.Graph("nhwc_layout")
        g.add_tensor("x", [1, 8, 12, 12])
        g.add_initializer("w1", (rng.standard_normal((16, 8, 3, 3)) * 0.2).astype(np.float32))
        g.add_initializer("w2", (rng.standard_normal((16, 16, 1, 1)) * 0.2).astype(np.float32))
        g.add_op("c1", "Conv", ["x", "w1"], ["a"], {"pads": [1, 1, 1, 1]})
        g.add_op("r", "Relu", ["a"], ["b"])
        g.add_op("c2", "Conv", ["b", "w2"], ["y"])
        g.mark_output("y")
        nhwc = ge.optimize(g, layout="NHWC")
        text = nhwc.to_text()
        # NCHW -> NHWC before the first conv, NHWC -> NCHW after the last; none between them.
        self.assertEqual(text.count('dst_format="NHWC"'), 1, text)
        self.assertEqual(text.count('src_format="NHWC"'), 1, text)
        self.assertEqual(nhwc.get_tensor("x").format, "NHWC")
        self.assertEqual(nhwc.get_tensor("x").external_format, "NCHW")
        x = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
        w1, w2 = g.get_tensor("w1").value, g.get_tensor("w2").value
        ref = conv2d_ref(np.maximum(conv2d_ref(x, w1, pad=1), 0), w2)
        np.testing.assert_allclose(run(nhwc, x)[0], ref, rtol=1e-4, atol=1e-4)
        with self.assertRaisesRegex(ge.Error, r"layout.format = \"NHWC\": backend 'ascend' has no NHWC convolutions"):
            ge.generate_plan(g, backend="ascend", options={"layout.format": "NHWC"})
