// tests/difftest/reduce.h — automatic reduction of a failing graph to a minimal one.
//
// Delta debugging over nodes (Zeller & Hildebrandt, "Simplifying and Isolating Failure-Inducing
// Input", IEEE TSE 28(2), 2002), in its one-minimal greedy form as C-Reduce and NNSmith apply it
// to programs and graphs: repeatedly try, node by node (consumers first), to bypass the node
// (its readers read one of its inputs of the same dtype and shape instead) or to cut it (its
// outputs become graph inputs of their dtype and shape), and keep every change after which the
// graph still fails the same way; before that, keep only the graph outputs the failure needs.
// Nodes nothing reads any more are removed with the change. The result is 1-minimal: no single
// node of it can be bypassed or cut without the failure going away.
#pragma once
#include <functional>
#include <memory>

#include "ge/core/environment.h"
#include "ge/sdk/ir.h"

namespace ge::difftest {

/// `fails` is asked about candidates that are valid graphs (shape inference and the verifier
/// accept them); returns the smallest failing graph found (a copy of `g` when nothing could be
/// removed). `steps` receives the number of candidates tried.
std::unique_ptr<Graph> reduce_graph(const Graph& g, const core::Environment& env,
                                    const std::function<bool(const Graph&)>& fails, int* steps = nullptr);

}  // namespace ge::difftest
