"""Helpers the examples share: the `--onnx PATH` option and the lines tests compare with gec.

Each example prints, besides its human-readable lines:
  LABEL: gec SUBCOMMAND ARGS...   the gec command that compiles the same graph the same way
  LABEL: KEY = VALUE              a figure and its key in gec's report (docs/report.md)
tests/python/test_examples.py runs that gec command and checks every figure against the report.
"""
import argparse
import os
import sys


def options(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--onnx", help="also write the graph this example builds to this ONNX file")
    p.add_argument("--model", help="ONNX model (examples that load one; default: ../shared)")
    return p.parse_args()


def shared_model(name, given=None):
    """Path of a shared model (GE_SHARED_DIR, default ../shared beside the repository)."""
    if given:
        return given
    root = os.environ.get("GE_SHARED_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
    path = os.path.join(root, "models", name, name + ".onnx")
    if not os.path.exists(path):
        print("SKIP: %s not found (set GE_SHARED_DIR)" % path)
        sys.exit(77)
    return os.path.abspath(path)


def gec_line(label, subcommand, overrides=()):
    args = " ".join("--set '%s'" % o for o in overrides)
    print("%s: gec %s %s" % (label, subcommand, args))


def figure(label, key, value):
    print("%s: %s = %r" % (label, key, value))


def require_plugin(ge, name, why):
    if name not in ge.plugins():
        print("SKIP: the default manifest loads no '%s' plugin (%s)" % (name, why))
        sys.exit(77)


def plain_layout(ge, **fields):
    """An OptimizeConfig that keeps activations in NCHW ([layout] format = "NCHW") when the layout
    plugin is loaded: its default ("auto") adds TransData nodes around Conv, and the fusion and
    memory examples show the fusion alone (layout_conversion.py shows the blocked formats)."""
    if "layout" in ge.plugins():
        fields.setdefault("layout", "NCHW")
    return ge.OptimizeConfig(**fields)


def op_counts(graph):
    counts = {}
    for op in graph.get_operators():
        t = (op.domain + "." if op.domain else "") + op.op_type
        counts[t] = counts.get(t, 0) + 1
    return counts
