#!/usr/bin/env bash
# conformance_strip.sh GEC NODE_DIR DECLARED_JSON OUT_JSON — runs `gec conformance
# --strip-output-shapes` over NODE_DIR into OUT_JSON, then compares with DECLARED_JSON (the run
# with the models' declared shapes): passes when the stripped run exits 0, every case that passes
# there passes here, and every case of an op whose output shape depends on values or on shape
# inputs (NonZero, Unique, Compress, NonMaxSuppression, TopK, Range, Expand, Tile,
# ConstantOfShape, Reshape, Slice, Resize) passes.
set -u
gec=$1 dir=$2 declared=$3 out=$4
"$gec" conformance "$dir" --strip-output-shapes --json "$out" | tail -3
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || { echo "gec conformance --strip-output-shapes exited $rc"; exit 1; }
exec python3 - "$declared" "$out" <<'PY'
import json, sys
declared = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
stripped = {c["name"]: c for c in json.load(open(sys.argv[2]))["cases"]}
bad = []
for name, c in sorted(declared.items()):
    s = stripped.get(name)
    if c["outcome"] == "pass" and (s is None or s["outcome"] != "pass"):
        bad.append(f"{name}: passes with declared shapes, stripped: {s and s['outcome']} {s and s['detail']}")
ops = {"NonZero", "Unique", "Compress", "NonMaxSuppression", "TopK", "Range", "Expand", "Tile",
       "ConstantOfShape", "Reshape", "Slice", "Resize"}
per_op = {}
for name, s in sorted(stripped.items()):
    for op in ops & set(s["ops"]):
        per_op.setdefault(op, [0, 0])[s["outcome"] == "pass"] += 1
        if s["outcome"] != "pass":
            bad.append(f"{name} ({op}): {s['outcome']} {s['detail']}")
for op in sorted(per_op):
    print(f"{op:20s} pass {per_op[op][1]:3d}  other {per_op[op][0]:3d}")
t = json.load(open(sys.argv[2]))["totals"]
print("stripped totals:", t)
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("ok")
PY
