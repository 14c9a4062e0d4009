// plugins/layout/layout_steps.h — the steps of the layout pass (docs/layout.md), one per file,
// exposed so tests run each on a text-IR graph.
//
//  1. insert_transdata (insert_transdata.cc): every anchor node (a compute-heavy op whose
//     backend preference is not `follows`) gets its inputs in the formats it asks for — a
//     TransData node for activations, a compile-time conversion for constants — and writes its
//     outputs in its preferred format, followed by a TransData back to the plain format, so the
//     graph stays correct node by node.
//  2. sink_transdata (sink_transdata.cc): a layout-agnostic node (`follows`: elementwise, pools,
//     Concat) whose blocked-capable inputs all come out of TransData(blocked -> plain) takes the
//     blocked values directly and converts its own outputs back instead — the conversion moves
//     past it towards its inverse.
//  3. cancel_transdata (cancel_transdata.cc): TransData(B -> A) of TransData(A -> B)(x) reads x;
//     duplicate conversions of one value merge; dead TransData nodes go.
//  4. compose_transdata (compose_transdata.cc): TransData(NCHW -> C)(TransData(A -> NCHW)(x))
//     becomes TransData(A -> C)(x) where the SDK converts A -> C directly (NC1HWC0 <-> NHWC).
// Steps 2 to 4 repeat until nothing changes.
#pragma once
#include <span>
#include <string>

#include "ge/sdk/layout.h"
#include "ge/sdk/pass.h"

namespace ge::layout {

struct OpFile {
  std::string origin, text;
};
/// ops/*.toml of this plugin (TransData's definition), embedded at build time.
std::span<const OpFile> embedded_op_files();

/// A new TransData node reading v and writing a new value in format dst (same dtype, shape).
Value* add_transdata(Graph& g, Value* v, Format dst);
/// True for a TransData node (domain "ge").
bool is_transdata(const Node& n);
/// Shape inference of TransData: Y has X's dtype and logical shape.
void infer_transdata(InferContext& ctx);

/// Step 1; returns the number of nodes moved to a blocked format. `ctx`, when given, receives
/// the report counter "layout.constants_converted".
/// With `graph_outputs`, an anchor writing a graph output runs in its preferred format too: it then
/// writes a new value and a TransData writes the output (which keeps its name and plain format).
int insert_transdata(Graph& g, const FormatPreferenceFn& prefer, PassContext* ctx = nullptr, bool graph_outputs = false);
/// Step 2; returns the number of nodes the conversions moved past.
int sink_transdata(Graph& g, const FormatPreferenceFn& prefer);
/// Step 3; returns the number of TransData nodes removed.
int cancel_transdata(Graph& g);
/// Step 4; returns the number of TransData nodes that now convert directly.
int compose_transdata(Graph& g);
/// Steps 1-4 as the pass runs them (insert, then sink and cancel to a fixpoint; topological
/// order restored). Returns true when the graph changed.
bool assign_layout(Graph& g, const FormatPreferenceFn& prefer, PassContext* ctx = nullptr, bool graph_outputs = false);

/// Number of TransData nodes in g (the figure reported per model).
int count_transdata(const Graph& g);

}  // namespace ge::layout
