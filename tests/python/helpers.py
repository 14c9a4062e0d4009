"""What the Python tests share: gec beside the module, the shared models, small graphs."""
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

import ge

GEC = os.environ.get("GE_GEC", "gec")
SHARED = os.environ.get("GE_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared"))


def config(**fields):
    """OptimizeConfig for tests that state an exact graph: with the layout plugin loaded (whose
    default, [layout] format = "auto", adds TransData nodes around Conv) activations stay NCHW."""
    if "layout" in ge.plugins():
        fields.setdefault("layout", "NCHW")
    return ge.OptimizeConfig(**fields)


def shared_model(name):
    """(model path, test_data_set_0 dir) of a shared model, or skip the test."""
    path = os.path.join(SHARED, "models", name, name + ".onnx")
    if not os.path.exists(path):
        raise unittest.SkipTest("%s not found (GE_SHARED_DIR)" % path)
    return path, os.path.join(os.path.dirname(path), "test_data_set_0")


def read_pb(path):
    from onnx import TensorProto, numpy_helper
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def gec(*args):
    """Runs gec; returns (exit code, stdout, stderr)."""
    p = subprocess.run([GEC] + [str(a) for a in args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def gec_error(*args):
    """gec's one-line error message (without 'gec: error: ') for a command that must fail."""
    rc, out, err = gec(*args)
    assert rc == 2, "gec %s: exit %d, expected 2 (stderr: %s)" % (" ".join(map(str, args)), rc, err)
    line = [l for l in err.splitlines() if l.startswith("gec: error: ")][-1]
    return line[len("gec: error: "):]


def gec_report(subcommand, model, *args):
    """gec SUBCOMMAND MODEL ARGS --report R: the report (docs/report.md) as a dict."""
    with tempfile.TemporaryDirectory() as d:
        r = os.path.join(d, "report.json")
        rc, out, err = gec(subcommand, model, *args, "--report", r, "--quiet")
        assert rc == 0, "gec %s %s failed: %s" % (subcommand, model, err)
        with open(r) as f:
            return json.load(f)


def run_graph(graph, *inputs):
    """Compiles a graph to a plan and runs it once; the outputs as a list of ndarrays."""
    return ge.Session().load_plan(ge.generate_plan(graph)).run(list(inputs))


def conv2d(x, w, pad):
    """Reference NCHW convolution (stride 1, square padding), float64."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))  # N,C,H,W,kh,kw
    return np.einsum("nchwij,ocij->nohw", win, w.astype(np.float64))


def conv_bn_relu_graph(rng):
    """x[1,3,10,10] -> Conv(8, 3x3, pad 1) -> BatchNormalization -> Relu -> y; returns (graph, params)."""
    p = {"w": rng.standard_normal((8, 3, 3, 3)).astype(np.float32),
         "scale": (1 + 0.1 * rng.standard_normal(8)).astype(np.float32),
         "shift": rng.standard_normal(8).astype(np.float32),
         "mean": rng.standard_normal(8).astype(np.float32),
         "var": (0.5 + rng.random(8)).astype(np.float32)}
    g = ge.Graph("conv_bn_relu")
    g.add_tensor("x", [1, 3, 10, 10])
    for k, v in p.items():
        g.add_initializer(k, v)
    g.add_op("conv", "Conv", ["x", "w"], ["c"], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
    g.add_op("bn", "BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["b"], {"epsilon": 1e-5})
    g.add_op("relu", "Relu", ["b"], ["y"])
    g.mark_output("y")
    return g, p


def conv_bn_relu_reference(x, p):
    c = conv2d(x, p["w"], 1)
    s = (p["scale"] / np.sqrt(p["var"].astype(np.float64) + 1e-5))[None, :, None, None]
    b = (c - p["mean"][None, :, None, None]) * s + p["shift"][None, :, None, None]
    return np.maximum(b, 0)
