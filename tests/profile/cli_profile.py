#!/usr/bin/python3
"""gec profile and gec inspect end to end on tiny_cnn.

profile: the trace is valid JSON with every node once per iteration on one track without
overlaps, the printed top table is sorted, the report's profile key is present.
inspect: --format dot names every node of the text IR and the activations fused nodes absorbed;
--format memory-svg states the report's arena and lower bound; --format onnx written at -O0 and
-O2 runs again under `gec run --check` against tiny_cnn's reference outputs.
Usage: cli_profile.py GEC MODEL_DIR OUT_DIR SCHEMA VALIDATOR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

gec, model_dir, out, schema, validator = sys.argv[1:]
model = os.path.join(model_dir, "model.onnx")
data = os.path.join(model_dir, "test_data_set_0")
os.makedirs(out, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def gec_run(*args):
    r = subprocess.run([gec, *args], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(f"gec {' '.join(args)}: exit {r.returncode}")
    return r.stdout


# ---- profile
iters = 3
trace, rep = os.path.join(out, "trace.json"), os.path.join(out, "profile.json")
text = gec_run("profile", model, "--iterations", str(iters), "--top", "5", "--trace", trace, "--json", rep)
print(text)
check("overhead" in text and "peak:" in text and "memory: arena" in text, "profile prints latency, peak, memory")
rows = [l for l in text.splitlines() if re.match(r"^\s+\d+ ", l)]
medians = [float(l.split()[4]) for l in rows]
check(len(rows) >= 1 and medians == sorted(medians, reverse=True), f"top table sorted: {medians}")
with open(trace) as f:
    events = json.load(f)["traceEvents"]
spans = [e for e in events if e["ph"] == "X"]
names = {}
for e in spans:
    names[e["name"]] = names.get(e["name"], 0) + 1
check(all(n == iters for n in names.values()), "every node once per iteration")
tids = {e["tid"] for e in spans}
check(len(tids) == 1, f"one stream track, got {tids}")
spans.sort(key=lambda e: e["ts"])
check(all(a["ts"] + a["dur"] <= b["ts"] + 1e-9 for a, b in zip(spans, spans[1:])), "no overlapping spans")
with open(rep) as f:
    report = json.load(f)
check(len(report["profile"]["nodes"]) == len(names), "report profile has every node")
check(subprocess.run([sys.executable, validator, schema, rep]).returncode == 0, "profile report matches the schema")

# ---- inspect
ir = gec_run("inspect", model)
nodes = re.findall(r"#\s*(\S+)\s*$", ir, re.M)
check(len(nodes) > 0, "text IR names nodes")
dot = gec_run("inspect", model, "--format", "dot")
check(dot.startswith("digraph") and dot.rstrip().endswith("}"), "dot is a digraph")
check(all(f"\\n{n}" in dot for n in nodes), "dot labels every node")
# A fused node's label says what it absorbed (its text attributes: the activation).
fused = re.findall(r"= ge\.FusedConv\(.*activation=\"(\w+)\"", ir)
check(len(fused) > 0 and all(f"activation: {a}" in dot for a in fused), f"dot shows the absorbed activations {fused}")
if shutil.which("dot"):
    check("<svg" in gec_run("inspect", model, "--format", "svg"), "svg through graphviz")
else:
    print("graphviz 'dot' not installed: --format svg not checked")
for level in ("0", "2"):
    onnx_path = os.path.join(out, f"tiny_cnn_O{level}.onnx")
    gec_run("inspect", model, f"-O{level}", "--format", "onnx", "-o", onnx_path)
    # The exported graph is already optimized; running it again at -O0 runs exactly it.
    gec_run("run", onnx_path, "-O0", "--inputs", data, "--check", data)
    gec_run("run", onnx_path, "--inputs", data, "--check", data)

# ---- the memory plan picture states the arena and the lower bound the compile report gives (the
# bound computed again from the planned offsets and lifetimes); with the naive planner (no reuse)
# the arena is above the bound.
SVG = "{http://www.w3.org/2000/svg}"
for planner in ("auto", "naive"):
    rep_path = os.path.join(out, f"memory_{planner}.json")
    svg = gec_run("inspect", model, "--format", "memory-svg", "--set", f"memory.planner={planner}", "--report", rep_path)
    root = ET.fromstring(svg)
    with open(rep_path) as f:
        mem = json.load(f)["memory"]
    arena, bound = int(root.get("data-arena-bytes")), int(root.get("data-lower-bound-bytes"))
    check(arena == mem["arena_bytes"], f"{planner}: svg arena {arena} == report {mem['arena_bytes']}")
    check(bound == mem["lower_bound_bytes"], f"{planner}: svg lower bound {bound} == report {mem['lower_bound_bytes']}")
    boxes = [r for r in root.iter(SVG + "rect") if r.find(SVG + "title") is not None]
    check(len(boxes) > 0, f"{planner}: one box per arena buffer")
    if planner == "naive":
        check(arena > bound, f"naive: arena {arena} above the bound {bound}")

# ---- a plan file profiles and exports like the model it was compiled from
plan = os.path.join(out, "tiny_cnn.gep")
gec_run("compile", model, "-o", plan)
text = gec_run("profile", plan, "--iterations", "2", "--top", "3")
check("overhead" in text, "profile of a plan")
check(gec_run("inspect", plan).startswith("graph "), "inspect of a plan prints only the text IR")
gec_run("inspect", plan, "--format", "onnx", "-o", os.path.join(out, "from_plan.onnx"))
gec_run("run", os.path.join(out, "from_plan.onnx"), "--inputs", data, "--check", data)

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
