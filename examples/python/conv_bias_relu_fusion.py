"""Conv + bias Add + Relu: operator counts before and after fusion, and which rules fired.

Run: PYTHONPATH=build/lib/python /usr/bin/python3 examples/python/conv_bias_relu_fusion.py
"""
import numpy as np

import ge
from _common import figure, gec_line, op_counts, options, plain_layout


def build_graph():
    rng = np.random.default_rng(0)
    g = ge.Graph("conv_bias_relu")
    g.add_tensor("x", [1, 4, 12, 12])
    prev = "x"
    for i, cout in enumerate((8, 8)):  # two Conv -> Add(bias) -> Relu blocks
        cin = 4 if i == 0 else 8
        g.add_initializer("w%d" % i, rng.standard_normal((cout, cin, 3, 3)).astype(np.float32))
        g.add_initializer("bias%d" % i, rng.standard_normal((1, cout, 1, 1)).astype(np.float32))
        g.add_op("conv%d" % i, "Conv", [prev, "w%d" % i], ["c%d" % i], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})
        g.add_op("add%d" % i, "Add", ["c%d" % i, "bias%d" % i], ["a%d" % i])
        g.add_op("relu%d" % i, "Relu", ["a%d" % i], ["r%d" % i])
        prev = "r%d" % i
    g.mark_output(prev)
    return g


def main():
    args = options(__doc__)
    g = build_graph()
    if args.onnx:
        g.save_onnx(args.onnx)
    fused = ge.fuse_operators(g)
    print("before fusion:", op_counts(g))
    print("after fusion: ", op_counts(fused), "rules:", fused.fusions)
    config = plain_layout(ge)
    optimized = ge.optimize(g, config)
    gec_line("O2", "compile", config.overrides())
    figure("O2", "nodes_before", len(g))
    figure("O2", "nodes_after", len(optimized))
    for rule, n in sorted(optimized.fusions.items()):
        figure("O2", "fusions." + rule, n)


if __name__ == "__main__":
    main()
