"""Errors raise ge.Error (a RuntimeError) carrying the message gec prints for the same mistake."""
import os
import tempfile
import unittest

import numpy as np

import ge
from helpers import gec_error


def onnx_model_with_op(path, op_type):
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    node = helper.make_node(op_type, ["x"], ["y"], name="n0")
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def relu_model(path):
    g = ge.Graph("relu")
    g.add_tensor("x", [2, 3])
    g.add_op("n0", "Relu", ["x"], ["y"])
    g.mark_output("y")
    g.save_onnx(path)
    return g


class ErrorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_error_class(self):
        self.assertTrue(issubclass(ge.Error, RuntimeError))
        self.assertTrue(issubclass(ge.UnsupportedError, ge.Error))
        self.assertTrue(issubclass(ge.InvalidGraphError, ge.Error))

    def test_bad_op_type(self):
        model = self.path("bad.onnx")
        onnx_model_with_op(model, "NoSuchOp")
        expected = gec_error("compile", model)
        self.assertIn("NoSuchOp", expected)
        with self.assertRaises(ge.UnsupportedError) as e:
            ge.load_onnx(model)
        self.assertEqual(str(e.exception), expected)
        g = ge.Graph("g")
        g.add_tensor("x", [2, 3])
        with self.assertRaises(ge.Error) as e:
            g.add_op("n0", "NoSuchOp", ["x"], ["y"])
        self.assertEqual(str(e.exception), expected)

    def test_bad_file_path(self):
        missing = self.path("missing.onnx")
        expected = gec_error("compile", missing)
        with self.assertRaises(ge.Error) as e:
            ge.load_onnx(missing)
        self.assertEqual(str(e.exception), expected)
        self.assertIn(missing, str(e.exception))

    def test_bad_plan_file(self):
        junk = self.path("junk.gep")
        with open(junk, "wb") as f:
            f.write(b"GEPLAN\0\1" + b"\0" * 40)  # the magic, then a truncated preamble
        expected = gec_error("run", junk)
        with self.assertRaises(ge.Error) as e:
            ge.load_plan(junk)
        self.assertEqual(str(e.exception), expected)

    def test_bad_config_values(self):
        model = self.path("relu.onnx")
        g = relu_model(model)
        cases = [(ge.OptimizeConfig(opt_level="O7"), []),
                 (ge.OptimizeConfig(numerics="sloppy"), []),
                 (ge.OptimizeConfig(disabled_patterns=["no_such_rule"]), []),
                 (ge.OptimizeConfig(memory_optimization_level="huge"), ["--fail-on-pass-error"])]
        for cfg, extra in cases:
            with self.subTest(cfg=cfg):
                args = [a for o in cfg.overrides() for a in ("--set", o)]
                expected = gec_error("compile", model, *args, *extra)
                with self.assertRaises(ge.Error) as e:
                    ge.optimize(g, cfg)
                self.assertEqual(str(e.exception), expected)
        with self.assertRaises(TypeError):
            ge.OptimizeConfig(fusion_modes="conv_bn").overrides()
        with self.assertRaises(TypeError):
            ge.ScheduleConfig(parallelism="2").overrides()

    def test_bad_backend(self):
        model = self.path("relu.onnx")
        g = relu_model(model)
        expected = gec_error("compile", model, "--backend", "no_such_backend")
        with self.assertRaises(ge.Error) as e:
            ge.generate_plan(g, backend="no_such_backend")
        self.assertEqual(str(e.exception), expected)

    def test_run_input_errors(self):
        g = ge.Graph("g")
        g.add_tensor("x", [2, 3])
        g.add_op("n0", "Relu", ["x"], ["y"])
        g.mark_output("y")
        exe = ge.Session().load_plan(ge.generate_plan(g))
        with self.assertRaisesRegex(ge.Error, r"run\(\): unknown input 'z'; the plan's inputs are 'x'"):
            exe.run({"x": np.zeros((2, 3), np.float32), "z": np.zeros(1, np.float32)})
        with self.assertRaisesRegex(ge.Error, r"run\(\): missing input 'x'"):
            exe.run({})
        with self.assertRaisesRegex(ge.Error, "'x'"):
            exe.run(np.zeros((3, 2), np.float32))  # wrong shape: the runtime names the input
        with self.assertRaisesRegex(ge.Error, "is not a tensor of graph 'g'"):
            g.get_tensor("nope")


if __name__ == "__main__":
    unittest.main()
