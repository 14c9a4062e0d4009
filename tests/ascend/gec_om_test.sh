#!/usr/bin/env bash
# gec_om_test.sh GEC MODEL_DIR WORK_DIR EXPECT — the Ascend offline model end to end through gec,
# without --manifest: `compile --backend ascend --soc-version Ascend910A -o x.om` (the ascend
# manifest found beside the plugins; no temporary left behind), `run x.om --inputs --check` in
# the emulator (the plan's backend picks the manifest), `inspect --format sections`, and the
# refusals: another SoC at run, another --backend on a plan, an unknown backend at compile. An
# .om compiled for Ascend310 runs without --soc-version; an empty --soc-version is refused.
set -eu
gec=$1 models=$2 work=$3 expect=$4
mkdir -p "$work"
om=$work/tiny_cnn.om
rm -f "$om"
"$gec" compile "$models/model.onnx" --backend ascend --soc-version Ascend910A -o "$om" >/dev/null
[ -f "$om" ] && [ ! -e "$om.tmp" ]
# fp16 tolerances (docs/ascend.md): the element-wise bounds are loosened too.
"$gec" run "$om" --inputs "$models/test_data_set_0" --check "$models/test_data_set_0" \
  --max-rel-l2 1e-2 --rtol 1 --atol 1 | grep -q "check: PASS"
"$gec" inspect "$om" --format sections > "$work/sections.txt"
grep -q "^section 'ascend.om' (plugin ascend_backend, [0-9]* bytes)" "$work/sections.txt"
grep -qE "soc_version Ascend910A, feature map [1-9][0-9]* bytes" "$work/sections.txt"
grep -qE "tasks [1-9][0-9]*: kernel [1-9][0-9]* \(.*\), event_record 0, event_wait 0; streams 1, events 0" "$work/sections.txt"
"$gec" inspect "$om" --format sections-full | grep -qE "^    0 s0 kernel "
"$expect" "plan '.*tiny_cnn.om': section 'ascend.om': offline model compiled for soc_version 'Ascend910A', but this environment runs 'Ascend310'" \
  "$gec" run "$om" --soc-version Ascend310
# Without --soc-version an .om runs on the SoC it was compiled for (ascend.toml sets none); an
# explicit other SoC stays refused.
om310=$work/tiny_cnn_310.om
"$gec" compile "$models/model.onnx" --backend ascend --soc-version Ascend310 -o "$om310" >/dev/null
"$gec" run "$om310" --inputs "$models/test_data_set_0" --check "$models/test_data_set_0" --max-rel-l2 1e-2 \
  --rtol 1 --atol 1 > "$work/run310.txt"
grep -q "^simulated on Ascend310: " "$work/run310.txt" && grep -q "check: PASS" "$work/run310.txt"
"$gec" profile "$om310" --simulate-only | grep -q "^simulated on Ascend310: "
"$expect" "plan '.*tiny_cnn_310.om': section 'ascend.om': offline model compiled for soc_version 'Ascend310', but this environment runs 'Ascend910A' \(ascend.soc_version; run it with --soc-version Ascend310, or without --soc-version, or recompile it\)$" \
  "$gec" run "$om310" --soc-version Ascend910A
# An empty --soc-version is an error naming the option and the known SoCs (not the default SoC).
rm -f "$work/empty_soc.om"
"$expect" "^gec: error: pass 'ascend_precision': ascend.soc_version \(gec --soc-version\) is empty: name an SoC \(known: Ascend310, Ascend910A; the files of .*platforms\)$" \
  "$gec" compile "$models/model.onnx" --backend ascend --soc-version "" -o "$work/empty_soc.om"
[ ! -e "$work/empty_soc.om" ] && [ ! -e "$work/empty_soc.om.tmp" ]
"$expect" "^gec: error: plan '.*tiny_cnn.om': section 'ascend.om': ascend.soc_version \(gec --soc-version\) is empty: name an SoC \(known: Ascend310, Ascend910A;" \
  "$gec" run "$om" --soc-version ""
# Another --backend on a compiled plan is refused naming the plan and its backend (run and profile).
"$expect" "^gec: error: --backend cpu: plan '.*tiny_cnn.om' was compiled for backend 'ascend'; a compiled plan runs on its own backend \(drop --backend, or recompile the model with --backend cpu\)$" \
  "$gec" run "$om" --backend cpu
"$expect" "^gec: error: --backend cpu: plan '.*tiny_cnn.om' was compiled for backend 'ascend'" \
  "$gec" profile "$om" --backend cpu --simulate-only
"$expect" "backend 'nosuch' is not registered by any loaded plugin \(registered: [^;]*cpu[^;]*; manifest .*default.toml; backend manifests beside the plugins: [^)]*ascend[^)]*\)" \
  "$gec" compile "$models/model.onnx" --backend nosuch -o "$work/x.om"
[ ! -e "$work/x.om" ] && [ ! -e "$work/x.om.tmp" ]
# A cpu plan still loads through the default manifest.
"$gec" compile "$models/model.onnx" -o "$work/tiny_cnn.gep" >/dev/null
"$gec" run "$work/tiny_cnn.gep" --inputs "$models/test_data_set_0" --check "$models/test_data_set_0" | grep -q "check: PASS"
"$gec" run "$work/tiny_cnn.gep" --backend cpu --iterations 1 | grep -q "backend cpu"
"$expect" "^gec: error: --backend ascend: plan '.*tiny_cnn.gep' was compiled for backend 'cpu'; a compiled plan runs on its own backend" \
  "$gec" run "$work/tiny_cnn.gep" --backend ascend
echo "gec offline model round trip: PASS"
