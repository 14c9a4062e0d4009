#!/usr/bin/env bash
# gec_om_test.sh GEC MODEL_DIR WORK_DIR EXPECT — the Ascend offline model end to end through gec,
# without --manifest: `compile --backend ascend --soc-version Ascend910A -o x.om` (the ascend
# manifest found beside the plugins; no temporary left behind), `run x.om --inputs --check` in
# the emulator (the plan's backend picks the manifest), `inspect --format sections`, and the
# refusals: another SoC at run, an unknown backend at compile.
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
"$expect" "backend 'nosuch' is not registered by any loaded plugin \(registered: [^;]*cpu[^;]*; manifest .*default.toml; backend manifests beside the plugins: [^)]*ascend[^)]*\)" \
  "$gec" compile "$models/model.onnx" --backend nosuch -o "$work/x.om"
[ ! -e "$work/x.om" ] && [ ! -e "$work/x.om.tmp" ]
# A cpu plan still loads through the default manifest.
"$gec" compile "$models/model.onnx" -o "$work/tiny_cnn.gep" >/dev/null
"$gec" run "$work/tiny_cnn.gep" --inputs "$models/test_data_set_0" --check "$models/test_data_set_0" | grep -q "check: PASS"
echo "gec offline model round trip: PASS"
