#!/usr/bin/env bash
# The install / SDK package test (README "SDK for plugin authors"):
#  1. installs GE's build tree into a fresh prefix and checks the layout and the RPATHs
#     (the installed gec and libraries resolve each other inside the prefix, from any directory);
#  2. configures, builds and installs examples/vendor_plugin as a separate CMake project against
#     that prefix (find_package(ge_sdk) + ge_add_plugin), without touching GE's build;
#  3. writes a manifest = the installed default manifest (absolute plugin paths) + vendor_swish;
#  4. runs the installed gec from / on x*Sigmoid(x) models: with the vendor plugin the
#     sigmoid_mul_swish rule fuses Sigmoid+Mul into vendor.Swish (report: one kernel instead of
#     two, and "fusions": {"sigmoid_mul_swish": 1} where the report has fusions), the outputs are
#     bit-identical to the unfused run (default manifest, -O1) and match an independent
#     double-precision reference; where Sigmoid's output is also a graph output the rule does
#     not fire.
# Usage: vendor_plugin_test.sh BUILD_DIR SOURCE_DIR WORK_DIR MODEL_GENERATOR CMAKE GENERATOR
#        MAKE_PROGRAM CXX_COMPILER
# Exit 0 pass, 1 fail, 77 skipped (a prerequisite tool is absent).
set -uo pipefail
build=$1 src=$2 work=$3 gen_models=$4 cmake=$5 generator=$6 make_program=$7 cxx=$8
unset LD_LIBRARY_PATH GE_MANIFEST GE_LOG_LEVEL

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
step() { echo "== $*"; }
# run LOG CMD...: runs CMD with output to LOG; on failure shows LOG and fails.
run() {
  local log=$1; shift
  "$@" >"$log" 2>&1
  local rc=$?
  if ((rc != 0)); then
    cat "$log" >&2
    fail "command failed (exit $rc): $*"
  fi
}

for tool in "$cmake" "$cxx" ldd readelf; do
  command -v "$tool" >/dev/null 2>&1 || skip "'$tool' is not available"
done
[[ -z $make_program || -x $make_program ]] || skip "the build tool '$make_program' is not available"

rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
work=$(cd "$work" && pwd -P)
prefix=$work/prefix

# ---------------------------------------------------------------- 1. install GE
step "cmake --install $build --prefix $prefix"
run "$work/install.log" "$cmake" --install "$build" --prefix "$prefix"
plugins=$prefix/lib/ge/plugins
for f in bin/gec lib/libge_core.so lib/libge_sdk.so lib/ge/plugins/default.toml \
         lib/ge/plugins/libge_registry.so lib/ge/plugins/libge_cpu_backend.so \
         include/ge/sdk/plugin.h include/ge/sdk/pass.h include/ge/sdk/pattern.h \
         lib/cmake/ge_sdk/ge_sdkConfig.cmake lib/cmake/ge_sdk/ge_sdkConfigVersion.cmake \
         lib/cmake/ge_sdk/ge_sdkTargets.cmake lib/cmake/ge_sdk/GePlugin.cmake; do
  [[ -e $prefix/$f ]] || fail "the install lacks $f"
done
ls "$prefix"/lib/libge_sdk.so.* >/dev/null 2>&1 || fail "the install lacks lib/libge_sdk.so.*"

# check_links FILE: every GE library FILE needs resolves inside the prefix; nothing is missing.
check_links() {
  local deps
  deps=$(ldd "$1") || fail "ldd $1 failed"
  if grep -q "not found" <<<"$deps"; then echo "$deps" >&2; fail "$1 has unresolved libraries"; fi
  while read -r lib _ path _; do
    [[ $lib == libge_* ]] || continue
    path=$(realpath -m "$path")
    [[ $path == "$prefix"/lib/* ]] || { echo "$deps" >&2; fail "$1 resolves $lib to $path, outside $prefix/lib"; }
  done <<<"$deps"
}
for f in "$prefix/bin/gec" "$prefix"/lib/libge_*.so "$plugins"/*.so; do check_links "$f"; done
readelf -d "$prefix/bin/gec" | grep -q 'R.*PATH.*\[\$ORIGIN/../lib\]' || fail "gec has no \$ORIGIN-relative RUNPATH"
for f in "$plugins"/*.so; do
  readelf -d "$f" | grep -q 'R.*PATH.*\[\$ORIGIN/../..\]' || fail "$f has no RUNPATH \$ORIGIN/../.."
done

step "the installed gec, run from /, finds its default manifest"
(cd / && "$prefix/bin/gec" plugins) >"$work/plugins_default.txt" 2>&1 || { cat "$work/plugins_default.txt" >&2; fail "gec plugins"; }
grep -q "^manifest: $plugins/default.toml" "$work/plugins_default.txt" || { cat "$work/plugins_default.txt" >&2; fail "gec did not use $plugins/default.toml"; }
grep -q "^cpu_backend " "$work/plugins_default.txt" || fail "the default manifest did not load cpu_backend"

# ---------------------------------------------------------------- 2. the out-of-tree plugin
step "configure, build and install examples/vendor_plugin against $prefix"
gen_args=(-G "$generator")
[[ -n $make_program ]] && gen_args+=("-DCMAKE_MAKE_PROGRAM=$make_program")
run "$work/vendor_configure.log" "$cmake" -S "$src/examples/vendor_plugin" -B "$work/vendor-build" "${gen_args[@]}" \
  -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_PREFIX_PATH=$prefix" \
  "-DCMAKE_INSTALL_PREFIX=$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
grep -q "ge_sdk_DIR:PATH=$prefix/lib/cmake/ge_sdk" "$work/vendor-build/CMakeCache.txt" || fail "find_package(ge_sdk) did not use $prefix"
run "$work/vendor_build.log" "$cmake" --build "$work/vendor-build"
run "$work/vendor_install.log" "$cmake" --install "$work/vendor-build"
vendor=$plugins/libge_vendor_swish.so
[[ -f $vendor ]] || fail "the vendor plugin was not installed to $vendor"
check_links "$vendor"
readelf -d "$vendor" | grep -q 'R.*PATH.*\[\$ORIGIN/../..\]' || fail "$vendor has no RUNPATH \$ORIGIN/../.."
readelf --dyn-syms -W "$vendor" | grep -q ' GLOBAL DEFAULT .* ge_plugin_entry$' || fail "$vendor does not export ge_plugin_entry"

# ---------------------------------------------------------------- 3. the manifest
step "manifest: the installed default plugins (absolute paths) + vendor_swish"
manifest=$work/vendor.toml
sed -E "s|^(path *= *\")([^/\"][^\"]*)\"|\\1$plugins/\\2\"|" "$plugins/default.toml" >"$manifest"
cat >>"$manifest" <<TOML

[[plugin]]
name = "vendor_swish"
path = "$vendor"
version = ">=1.0, <2"
TOML
(cd / && "$prefix/bin/gec" plugins --manifest "$manifest") >"$work/plugins_vendor.txt" 2>&1 ||
  { cat "$work/plugins_vendor.txt" >&2; fail "gec plugins --manifest $manifest"; }
grep -q "^vendor_swish 1.0.0 " "$work/plugins_vendor.txt" || { cat "$work/plugins_vendor.txt" >&2; fail "vendor_swish not listed"; }
sed -n '/^vendor_swish /,/^[^ ]/p' "$work/plugins_vendor.txt" >"$work/plugins_vendor_swish.txt"
for what in "ops .*Swish@vendor" "kernels .*cpu:Swish" "fusion .*sigmoid_mul_swish"; do
  grep -q "$what" "$work/plugins_vendor_swish.txt" || { cat "$work/plugins_vendor.txt" >&2; fail "vendor_swish: no '$what' in gec plugins"; }
done

# ---------------------------------------------------------------- 4. run the models
step "models"
run "$work/models.log" "$gen_models" "$work/models"
models=$work/models
data=$models/test_data_set_0

# json_int FILE KEY: the integer value of "KEY": N in a JSON report (first occurrence).
json_int() { grep -o "\"$2\": *[0-9]*" "$1" | head -n1 | grep -o '[0-9]*$'; }
# gec_run NAME MODEL [ARGS...]: installed gec run from /, checked against the reference.
gec_run() {
  local name=$1 model=$2; shift 2
  (cd / && "$prefix/bin/gec" run "$models/$model" --inputs "$data" --check "$data" \
     --outputs "$work/out_$name" --json "$work/$name.json" "$@") >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log" >&2; fail "gec run $model ($name)"; }
}

# The unfused baseline is the default manifest at -O1: no fusion rule runs (they start at O2; at O2
# the default fusion plugin's generic elementwise_chain would fuse Sigmoid+Mul itself).
for model in swish swish_rev; do
  step "$model.onnx: default manifest -O1 (unfused) vs. with vendor_swish at -O2 (fused)"
  gec_run "${model}_plain" "$model.onnx" -O1
  gec_run "${model}_fused" "$model.onnx" --manifest "$manifest" -O2
  plain_k=$(json_int "$work/${model}_plain.json" kernels)
  fused_k=$(json_int "$work/${model}_fused.json" kernels)
  echo "   kernels: unfused $plain_k, with vendor_swish $fused_k"
  [[ $plain_k == 2 ]] || fail "$model: the unfused run has $plain_k kernels, expected 2 (Sigmoid, Mul)"
  [[ $fused_k == 1 ]] || fail "$model: with vendor_swish the model runs $fused_k kernels, expected 1 (vendor.Swish)"
  if grep -q '"fusions"' "$work/${model}_fused.json"; then
    grep -q '"sigmoid_mul_swish": *1\b' "$work/${model}_fused.json" ||
      fail "$model: the report's fusions lack \"sigmoid_mul_swish\": 1: $(tr -d '\n' <"$work/${model}_fused.json" | grep -o '"fusions": *{[^}]*}')"
  fi
  # Same formula, but the CPU backend's Sigmoid uses its vectorized exp (plugins/cpu_backend/
  # vecmath.h) where vendor.Swish calls std::exp: equal to rounding, not bit for bit.
  (cd / && "$prefix/bin/gec" run "$models/$model.onnx" --inputs "$data" --check "$work/out_${model}_plain" \
     --manifest "$manifest" -O2) >"$work/${model}_vs_plain.log" 2>&1 ||
    { cat "$work/${model}_vs_plain.log" >&2; fail "$model: the fused output differs from the unfused output"; }
done

step "swish_shared.onnx: Sigmoid's output is a graph output, so sigmoid_mul_swish must not fire"
gec_run shared_fused swish_shared.onnx --manifest "$manifest" -O2
if grep -q '"fusions"' "$work/shared_fused.json"; then
  if grep -q '"sigmoid_mul_swish": *[1-9]' "$work/shared_fused.json"; then fail "swish_shared: sigmoid_mul_swish fired"; fi
else
  k=$(json_int "$work/shared_fused.json" kernels)
  [[ $k == 2 ]] || fail "swish_shared: $k kernels, expected 2 (the rule must not fire)"
fi

# ---------------------------------------------------------------- 5. the plugin's own section
step "[vendor_swish] min_elements: declared, typed, read by the plugin's rule"
(cd / && "$prefix/bin/gec" plugins --options --manifest "$manifest") >"$work/options.txt" 2>&1 ||
  { cat "$work/options.txt" >&2; fail "gec plugins --options"; }
grep -q "^vendor_swish.min_elements  *int  *0  *compile  *vendor_swish  *an integer >= 0; " "$work/options.txt" ||
  { cat "$work/options.txt" >&2; fail "gec plugins --options does not list vendor_swish.min_elements"; }
grep -q "formats .*cpu" "$work/plugins_vendor_swish.txt" || fail "vendor_swish registers no format preference for cpu"
big=$work/vendor_big.toml
{ cat "$manifest"; printf '\n[vendor_swish]\nmin_elements = 1000000000\n'; } >"$big"
# (elementwise_chain off: it would fuse Sigmoid + Mul into a ge.FusedElementwise instead)
gec_run swish_big swish.onnx --manifest "$big" -O2 --disable elementwise_chain
k=$(json_int "$work/swish_big.json" kernels)
[[ $k == 2 ]] || fail "swish with min_elements = 1e9: $k kernels, expected 2 (the rule must not fire)"
gec_run swish_small swish.onnx --manifest "$manifest" -O2 --disable elementwise_chain
k=$(json_int "$work/swish_small.json" kernels)
[[ $k == 1 ]] || fail "swish with min_elements = 0: $k kernels, expected 1 (vendor.Swish)"
bad=$work/vendor_bad.toml
{ cat "$manifest"; printf '\n[vendor_swish]\nmin_elements = "many"\n'; } >"$bad"
line=$(grep -n '^min_elements = "many"' "$bad" | cut -d: -f1)
(cd / && "$prefix/bin/gec" run "$models/swish.onnx" --manifest "$bad") >"$work/bad.log" 2>&1
rc=$?
[[ $rc == 2 ]] || { cat "$work/bad.log" >&2; fail "a string as min_elements: exit $rc, expected 2"; }
grep -qF "gec: error: $bad:$line: 'vendor_swish.min_elements' must be an integer >= 0, not \"many\" (a string)" "$work/bad.log" ||
  { cat "$work/bad.log" >&2; fail "a string as min_elements: not the expected message"; }

echo "PASS: installed to $prefix, vendor_swish built out of tree, fused outputs equal the unfused ones, its own section typed"
