#!/bin/sh
# expect_report.sh REGEX CMD ARGS... — passes when CMD exits non-zero and its stderr matches REGEX
# (grep -E): a sanitizer report that the environment of scripts/test --sanitize makes fatal.
regex=$1; shift
err=$(mktemp)
"$@" >/dev/null 2>"$err"
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "expected a non-zero exit, got 0; stderr:"; cat "$err"; rm -f "$err"; exit 1
fi
if ! grep -qE -- "$regex" "$err"; then
  echo "exit $rc, but stderr does not match /$regex/:"; cat "$err"; rm -f "$err"; exit 1
fi
echo "ok: exit $rc, $(grep -E -m1 -- "$regex" "$err")"
rm -f "$err"
