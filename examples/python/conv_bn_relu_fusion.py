"""Builds a Conv -> BatchNormalization -> Relu block and watches GE fuse it into one ge.FusedConv.

Run: PYTHONPATH=build/lib/python /usr/bin/python3 examples/python/conv_bn_relu_fusion.py
"""
import numpy as np

import ge
from _common import figure, gec_line, op_counts, options, plain_layout


def build_graph():
    rng = np.random.default_rng(0)
    g = ge.Graph("conv_bn_relu")
    g.add_tensor("x", [1, 3, 16, 16])  # NCHW
    g.add_initializer("w", rng.standard_normal((8, 3, 3, 3)).astype(np.float32))
    g.add_initializer("scale", (1 + 0.1 * rng.standard_normal(8)).astype(np.float32))
    g.add_initializer("shift", rng.standard_normal(8).astype(np.float32))
    g.add_initializer("mean", rng.standard_normal(8).astype(np.float32))
    g.add_initializer("var", (0.5 + rng.random(8)).astype(np.float32))
    g.add_op("conv", "Conv", ["x", "w"], ["c"], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
    g.add_op("bn", "BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["b"], {"epsilon": 1e-5})
    g.add_op("relu", "Relu", ["b"], ["y"])
    g.mark_output("y")
    return g


def main():
    args = options(__doc__)
    g = build_graph()
    if args.onnx:
        g.save_onnx(args.onnx)
    print("before:", op_counts(g))
    config = plain_layout(ge, opt_level="O2")
    fused = ge.optimize(g, config)
    print("after: ", op_counts(fused))
    print("output y:", fused.get_tensor("y"))
    # The fused graph computes what the unfused one does (O0 runs every op as written).
    x = np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32)
    run = lambda graph: ge.Session().load_plan(ge.generate_plan(graph)).run(x)[0]
    y0 = run(ge.optimize(g, ge.OptimizeConfig(opt_level="O0")))
    y2 = run(fused)
    print("max |O2 - O0| = %.3g (of max |y| %.3g)" % (np.abs(y2 - y0).max(), np.abs(y0).max()))
    gec_line("O2", "compile", config.overrides())
    figure("O2", "nodes_before", len(g))
    figure("O2", "nodes_after", len(fused))
    for rule, n in sorted(fused.fusions.items()):
        figure("O2", "fusions." + rule, n)


if __name__ == "__main__":
    main()
