"""Memory estimate with and without reuse on a three-Conv chain (Conv -> Relu, three times).

Intermediate tensors (graph inputs and outputs live outside the arena), at level "basic":
  a  = conv0 out [1,4,8,8]  1024 B   live conv0..relu0
  r0 = relu0 out [1,4,8,8]  1024 B   live relu0..conv1
  b  = conv1 out [1,8,8,8]  2048 B   live conv1..relu1
  r1 = relu1 out [1,8,8,8]  2048 B   live relu1..conv2
Without reuse: 1024 + 1024 + 2048 + 2048 = 6144 B. With reuse the arena needs only the most bytes
live at one step: b and r1 at relu1, 4096 B. After O2 fusion (Conv+Relu -> FusedConv) only two
intermediates remain, live together at the middle conv: 1024 + 2048 = 3072 B either way.

Run: PYTHONPATH=build/lib/python /usr/bin/python3 examples/python/memory_estimate.py
"""
import numpy as np

import ge
from _common import figure, gec_line, options, plain_layout


def build_graph():
    rng = np.random.default_rng(0)
    g = ge.Graph("three_conv_chain")
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


def main():
    args = options(__doc__)
    g = build_graph()
    if args.onnx:
        g.save_onnx(args.onnx)
    basic = ge.OptimizeConfig(opt_level="O0", memory_optimization_level="basic")
    est = g.estimate_memory(basic)
    print("unoptimized, level basic: %d bytes with reuse, %d without (planner %s)"
          % (est.with_reuse, est.without_reuse, est.planner))
    gec_line("O0_basic", "compile", basic.overrides())
    figure("O0_basic", "memory.arena_bytes", est.with_reuse)
    figure("O0_basic", "memory.no_reuse_bytes", est.without_reuse)
    config = plain_layout(ge)
    optimized = ge.optimize(g, config)
    est2 = optimized.estimate_memory()
    print("after O2 fusion: %d bytes with reuse, %d without" % (est2.with_reuse, est2.without_reuse))
    gec_line("O2", "compile", config.overrides())
    figure("O2", "memory.arena_bytes", est2.with_reuse)
    figure("O2", "memory.no_reuse_bytes", est2.without_reuse)
    naive = g.estimate_memory(ge.OptimizeConfig(enable_memory_reuse=False, memory_optimization_level="basic"))
    print("unoptimized, enable_memory_reuse=False: arena %d bytes (planner %s)" % (naive.with_reuse, naive.planner))


if __name__ == "__main__":
    main()
