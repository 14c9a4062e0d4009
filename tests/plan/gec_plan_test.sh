#!/usr/bin/env bash
# gec_plan_test.sh GEC MODEL_DIR WORK_DIR EXPECT — gec end to end with plans: compile -o writes a
# plan (no temporary left behind), run PLAN checks against the references, a truncated and a
# corrupted plan are refused with one clear line (tests/cli/expect_error.sh), never a crash.
set -eu
gec=$1 models=$2 work=$3 expect=$4
mkdir -p "$work"
plan=$work/tiny_cnn.gep
rm -f "$plan"
"$gec" compile "$models/model.onnx" -o "$plan" >/dev/null
[ -f "$plan" ] && [ ! -e "$plan.tmp" ]
"$gec" run "$plan" --inputs "$models/test_data_set_0" --check "$models/test_data_set_0" --report "$work/run.json" | grep -q "check: PASS"
grep -q '"load_ms"' "$work/run.json"
head -c 1000 "$plan" > "$work/truncated.gep"
"$expect" "plan '.*truncated.gep' is truncated \(1000 of [0-9]+ bytes\)" "$gec" run "$work/truncated.gep"
cp "$plan" "$work/corrupt.gep"
printf '\x55' | dd of="$work/corrupt.gep" bs=1 seek=300 conv=notrunc status=none
"$expect" "plan '.*corrupt.gep' is corrupted \(checksum mismatch\)" "$gec" run "$work/corrupt.gep"
echo "gec plan round trip: PASS"
