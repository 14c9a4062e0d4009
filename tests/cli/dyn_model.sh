#!/usr/bin/env bash
# dyn_model.sh GEC MODEL_DIR PLAN "EXPECT" [COMPILE_ARGS...] — compiles MODEL_DIR/model.onnx
# (symbolic input dims, no --input-shape) into the one plan PLAN with COMPILE_ARGS (e.g. --gears),
# then runs `gec run PLAN --check MODEL_DIR`: every test_data_set_K of the folder from that plan,
# in one process. Passes when the run exits 0, prints "check: PASS (N sets)" for all N sets, and
# set K ran as word K of EXPECT says ("gear", "padded" for a padded gear, "specialization",
# "stages" for a model cut at a node whose output shape depends on values).
# Exits 77 (skipped) when MODEL_DIR is absent. DYN_MAX_REL_L2 (default 1e-4) bounds the relative L2
# error (the Ascend backend computes in fp16).
set -u
gec=$1 dir=$2 plan=$3 expect=$4
shift 4
[ -d "$dir" ] || { echo "SKIPPED: $dir not found"; exit 77; }
mkdir -p "$(dirname "$plan")"
"$gec" compile "$dir/model.onnx" -o "$plan" "$@" || { echo "compile failed"; exit 1; }
out=$("$gec" run "$plan" --check "$dir" --max-rel-l2 "${DYN_MAX_REL_L2:-1e-4}")
rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "run exited $rc"; exit 1; }
n=$(ls -d "$dir"/test_data_set_* | wc -l)
grep -qE "^check: PASS \($n sets?\)$" <<<"$out" || { echo "expected check: PASS ($n sets)"; exit 1; }
k=0
for want in $expect; do
  case $want in
    gear) re="^set test_data_set_$k: .* → gear " ;;
    padded) re="^set test_data_set_$k: .* → padded gear " ;;
    specialization) re="^set test_data_set_$k: .* → specialization .*compiled on first use" ;;
    stages) re="^set test_data_set_$k: .* → stages .* cut at node .*compiled on first use" ;;
    *) echo "bad EXPECT word $want"; exit 1 ;;
  esac
  grep -qE "$re" <<<"$out" || { echo "set $k did not run as $want"; exit 1; }
  k=$((k + 1))
done
[ "$k" -eq "$n" ] || { echo "EXPECT names $k sets, the folder has $n"; exit 1; }
echo "ok"
