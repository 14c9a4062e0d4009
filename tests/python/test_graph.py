"""ge.Graph: building, shapes, attributes, text and ONNX round trip, numerical results."""
import os
import tempfile
import unittest

import numpy as np

import ge
from helpers import conv_bn_relu_graph, conv_bn_relu_reference, run_graph


class GraphTest(unittest.TestCase):
    def test_hand_computed_values(self):
        # y = Relu(x * 2 - 5) on x = [[1, 2], [3, 4]]: [[0, 0], [1, 3]]
        g = ge.Graph("affine")
        g.add_tensor("x", [2, 2])
        g.add_initializer("two", np.array(2, dtype=np.float32))
        g.add_initializer("five", np.array(5, dtype=np.float32))
        g.add_op("mul", "Mul", ["x", "two"], ["m"])
        g.add_op("sub", "Sub", ["m", "five"], ["s"])
        g.add_op("relu", "Relu", ["s"], ["y"])
        g.mark_output("y")
        (y,) = run_graph(g, np.array([[1, 2], [3, 4]], dtype=np.float32))
        np.testing.assert_array_equal(y, np.array([[0, 0], [1, 3]], dtype=np.float32))
        self.assertEqual(y.dtype, np.float32)

    def test_matmul_values(self):
        # [[1,2],[3,4]] @ [[5],[6]] = [[17],[39]]
        g = ge.Graph("mm")
        g.add_tensor("a", [2, 2])
        g.add_initializer("b", np.array([[5], [6]], dtype=np.float32))
        g.add_op("mm", "MatMul", ["a", "b"], ["y"])
        g.mark_output("y")
        (y,) = run_graph(g, np.array([[1, 2], [3, 4]], dtype=np.float32))
        np.testing.assert_array_equal(y, np.array([[17], [39]], dtype=np.float32))

    def test_conv_bn_relu_matches_numpy(self):
        rng = np.random.default_rng(3)
        g, p = conv_bn_relu_graph(rng)
        x = rng.standard_normal((1, 3, 10, 10)).astype(np.float32)
        (y,) = run_graph(g, x)
        ref = conv_bn_relu_reference(x, p)
        self.assertEqual(y.shape, (1, 8, 10, 10))
        np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)

    def test_tensor_shapes_dtypes_formats(self):
        g, _ = conv_bn_relu_graph(np.random.default_rng(0))
        x = g.get_tensor("x")
        self.assertEqual((x.shape, x.dtype, x.format, x.is_input), ((1, 3, 10, 10), "float32", "NCHW", True))
        c = g.get_tensor("c")  # inferred by add_op: [1, 8, 10, 10]
        self.assertEqual((c.shape, c.dtype, c.producer), ((1, 8, 10, 10), "float32", "conv"))
        w = g.get_tensor("w")
        self.assertTrue(w.is_constant)
        self.assertEqual(w.value.shape, (8, 3, 3, 3))
        self.assertTrue(g.get_tensor("y").is_output)
        v = ge.Graph("v")
        v.add_tensor("flat", [4, 5], dtype="int64")
        self.assertEqual((v.get_tensor("flat").format, v.get_tensor("flat").dtype), ("ND", "int64"))

    def test_operators_and_attributes(self):
        g = ge.Graph("attrs")
        g.add_tensor("x", [1, 2, 8, 8])
        g.add_op("pool", "MaxPool", ["x"], ["y"], {"kernel_shape": (2, 2), "strides": np.array([2, 2]),
                                                   "auto_pad": "NOTSET"})
        g.add_op("flat", "Flatten", ["y"], ["f"], {"axis": np.int64(1)})
        g.add_initializer("b", np.ones((32, 4), np.float32))
        g.add_op("gemm", "Gemm", ["f", "b"], ["z"], {"alpha": 0.25})
        g.mark_output("z")
        ops = g.get_operators()
        self.assertEqual([(o.name, o.op_type) for o in ops], [("pool", "MaxPool"), ("flat", "Flatten"), ("gemm", "Gemm")])
        self.assertEqual(ops[0].attrs["kernel_shape"], [2, 2])
        self.assertEqual(ops[0].attrs["strides"], [2, 2])  # a 1-D integer array is an ints attribute
        self.assertEqual(ops[1].attrs["axis"], 1)
        self.assertAlmostEqual(ops[2].attrs["alpha"], 0.25)
        self.assertEqual(g.get_tensor("y").shape, (1, 2, 4, 4))
        self.assertEqual(g.get_tensor("z").shape, (1, 4))
        self.assertEqual((ops[0].inputs, ops[0].outputs), (["x"], ["y"]))
        # z = 0.25 * sum of the 32 pooled maxima: x = 0..127 in [1,2,8,8]; each 2x2 window's max is
        # its bottom-right element (row 2i+1, col 2j+1): sum over c, i, j of 64c + 8(2i+1) + 2j+1.
        x = np.arange(128, dtype=np.float32).reshape(1, 2, 8, 8)
        expected = 0.25 * sum(64 * c + 8 * (2 * i + 1) + 2 * j + 1 for c in range(2) for i in range(4) for j in range(4))
        self.assertEqual(expected, 544.0)  # channel 0: 512 + 64 = 576; channel 1: 576 + 16 * 64 = 1600
        (z,) = run_graph(g, x)
        np.testing.assert_array_equal(z, np.full((1, 4), expected, np.float32))

    def test_text_and_onnx_round_trip(self):
        g, _ = conv_bn_relu_graph(np.random.default_rng(0))
        text = g.to_text()
        for word in ("Conv", "BatchNormalization", "Relu", "[1,8,10,10]"):
            self.assertIn(word, text)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "g.onnx")
            g.save_onnx(path)
            back = ge.load_onnx(path)
        self.assertEqual([o.op_type for o in back.get_operators()], ["Conv", "BatchNormalization", "Relu"])
        self.assertEqual(back.get_tensor("y").shape, (1, 8, 10, 10))
        x = np.random.default_rng(5).standard_normal((1, 3, 10, 10)).astype(np.float32)
        np.testing.assert_array_equal(run_graph(g, x)[0], run_graph(back, x)[0])

    def test_executors_run_in_threads(self):
        # One Executor per thread; run() releases the GIL, so both run at once on their own inputs.
        import threading
        rng = np.random.default_rng(7)
        g, p = conv_bn_relu_graph(rng)
        plan = ge.generate_plan(ge.optimize(g))
        xs = [rng.standard_normal((1, 3, 10, 10)).astype(np.float32) for _ in range(2)]
        results = [None, None]

        def work(i):
            exe = ge.Session(threads=1).load_plan(plan)
            for _ in range(20):
                results[i] = exe.run(xs[i])[0]

        threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i in range(2):
            np.testing.assert_allclose(results[i], conv_bn_relu_reference(xs[i], p), rtol=1e-4, atol=1e-4)

    def test_failed_add_op_leaves_graph_unchanged(self):
        g = ge.Graph("g")
        g.add_tensor("x", [2, 3])
        with self.assertRaises(ge.Error):
            g.add_op("bad", "Relu", ["x"], ["y"], {"nonsense": 1})
        self.assertEqual(len(g), 0)
        g.add_op("ok", "Relu", ["x"], ["y"])  # the name 'y' is free again
        self.assertEqual(g.get_tensor("y").shape, (2, 3))


if __name__ == "__main__":
    unittest.main()
