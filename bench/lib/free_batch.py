#!/usr/bin/env python3
"""Frees the batch that an exported model's Reshape targets fix at 1.

usage: free_batch.py IN.onnx OUT.onnx

Tracing exporters (torch.onnx) fold a Reshape target such as [batch, seq, heads, head_dim] to
literal constants, so the model runs at the export's batch only: ONNX Runtime and GE both refuse
batch 4 ("cannot reshape [4,128,256] to [1,128,4,64]"). For the bench's batch rows the harness
rewrites such a Reshape: a target computed from constants only (initializers, Constant, Unsqueeze,
Squeeze, Concat, Cast) whose first entry is 1 and which holds no 0 gets a new initializer with
that entry -1, which Reshape infers from the element count (ONNX Reshape): the count grows with
the batch, so the entry becomes the batch. A target that has a -1 already ([1, -1, H, W], a
shuffle's flatten) gets 0 there instead: Reshape copies the input's dim 0 (allowzero = 0), the
batch when the input carries it first. At batch 1 the model computes what it did; the bench checks
every batch row against the test set repeated along dim 0, so a Reshape this rewrites wrongly
fails the row's check.

Prints the number of Reshape nodes rewritten. OUT is written even when that number is 0.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def literal_values(graph):
    """Name -> numpy value of every tensor computable from constants through simple shape ops."""
    vals = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for node in graph.node:  # graph.node is topologically sorted (ONNX IR)
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        ins = [vals.get(n) if n else None for n in node.input]
        out = None
        if node.op_type == 'Constant' and 'value' in attrs:
            out = numpy_helper.to_array(attrs['value'])
        elif any(v is None for v, n in zip(ins, node.input) if n):
            continue
        elif node.op_type == 'Unsqueeze':
            axes = attrs.get('axes') if 'axes' in attrs else (ins[1].tolist() if len(ins) > 1 else None)
            if axes is None:
                continue
            out = ins[0]
            rank = out.ndim + len(axes)
            for a in sorted(x % rank for x in axes):
                out = np.expand_dims(out, a)
        elif node.op_type == 'Squeeze':
            axes = attrs.get('axes') if 'axes' in attrs else (ins[1].tolist() if len(ins) > 1 else None)
            out = np.squeeze(ins[0], axis=tuple(axes) if axes is not None else None)
        elif node.op_type == 'Concat':
            out = np.concatenate(ins, axis=attrs['axis'])
        elif node.op_type == 'Cast':
            out = ins[0].astype(onnx.helper.tensor_dtype_to_np_dtype(attrs['to']))
        if out is not None and len(node.output) == 1:
            vals[node.output[0]] = out
    return vals


def batch_of_inputs(model):
    """The export's batch: dim 0 of the graph inputs (None when they disagree or are symbolic)."""
    inits = {i.name for i in model.graph.initializer}
    dims = set()
    for i in model.graph.input:
        if i.name in inits:
            continue
        shape = i.type.tensor_type.shape.dim
        if not shape or not shape[0].HasField('dim_value'):
            return None
        dims.add(shape[0].dim_value)
    return dims.pop() if len(dims) == 1 else None


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split('\n\n')[1])
    model = onnx.load(argv[1])
    if batch_of_inputs(model) != 1:
        onnx.save(model, argv[2])
        print(0)
        return
    graph = model.graph
    vals = literal_values(graph)
    names = {n for node in graph.node for n in node.output} | {i.name for i in graph.initializer}
    rewritten = 0
    for node in graph.node:
        if node.op_type != 'Reshape' or len(node.input) < 2:
            continue
        target = vals.get(node.input[1])
        if target is None or target.ndim != 1 or target.size == 0 or int(target[0]) != 1:
            continue
        entries = [int(t) for t in target]
        if 0 in entries or entries.count(-1) > 1:
            continue
        if any(a.name == 'allowzero' and a.i == 1 for a in node.attribute) and -1 in entries:
            continue
        freed = target.astype(np.int64).copy()
        freed[0] = 0 if -1 in entries else -1
        name = node.input[1] + '_batch_freed'
        while name in names:
            name += '_'
        names.add(name)
        graph.initializer.append(numpy_helper.from_array(freed, name))
        node.input[1] = name
        rewritten += 1
    onnx.save(model, argv[2])
    print(rewritten)


if __name__ == '__main__':
    main(sys.argv)
