"""Layout conversion of an NCHW input: the layout pass (the layout plugin, docs/layout.md) moves Conv onto the
blocked NC1HWC0 format and inserts TransData nodes at the boundaries; outputs stay the same.

Needs the layout plugin in the default manifest; exits 77 (skipped) without it.
Run: PYTHONPATH=build/lib/python /usr/bin/python3 examples/python/layout_conversion.py
"""
import numpy as np

import ge
from _common import figure, gec_line, op_counts, options, require_plugin


def build_graph():
    rng = np.random.default_rng(0)
    g = ge.Graph("layout")
    g.add_tensor("x", [1, 16, 14, 14], format="NCHW")
    g.add_initializer("w0", rng.standard_normal((32, 16, 3, 3)).astype(np.float32))
    g.add_initializer("w1", rng.standard_normal((32, 32, 3, 3)).astype(np.float32))
    g.add_op("conv0", "Conv", ["x", "w0"], ["c0"], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
    g.add_op("relu0", "Relu", ["c0"], ["r0"])
    g.add_op("conv1", "Conv", ["r0", "w1"], ["c1"], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
    g.add_op("pool", "GlobalAveragePool", ["c1"], ["y"])
    g.mark_output("y")
    return g


def main():
    args = options(__doc__)
    g = build_graph()
    if args.onnx:
        g.save_onnx(args.onnx)
    require_plugin(ge, "layout", "[layout] format comes with the layout plugin (docs/layout.md)")
    print("input x:", g.get_tensor("x"))
    x = np.random.default_rng(1).standard_normal((1, 16, 14, 14)).astype(np.float32)
    outputs = {}
    for fmt in ("NCHW", "NC1HWC0"):
        cfg = ge.OptimizeConfig(layout=fmt)
        opt = ge.optimize(g, cfg)
        formats = sorted({(op.name, opt.get_tensor(op.outputs[0]).format) for op in opt.get_operators()})
        print("layout %s: %s" % (fmt, op_counts(opt)))
        print("  output formats:", formats)
        outputs[fmt] = ge.Session().load_plan(ge.generate_plan(opt)).run(x)[0]
        gec_line(fmt, "compile", cfg.overrides())
        figure(fmt, "nodes_after", len(opt))
    print("max |NC1HWC0 - NCHW| = %.3g" % np.abs(outputs["NC1HWC0"] - outputs["NCHW"]).max())


if __name__ == "__main__":
    main()
