#!/usr/bin/env bash
# expect_error.sh REGEX CMD ARGS... — passes when CMD exits with 1 or 2 (an error, not a crash),
# prints nothing to stderr but one line, and that line matches REGEX (grep -E). With EXPECT_RC
# set, the exit code must be exactly that (2: a usage error).
set -u
regex=$1; shift
err=$(mktemp)
"$@" >/dev/null 2>"$err"
rc=$?
# Under AddressSanitizer (scripts/test --sanitize, allocator_may_return_null=1) an allocation the
# runtime refuses returns null as glibc's does, but the runtime first prints this one warning line;
# it is not gec's output, so it is dropped (only that exact form), and the check stays the same.
sed -i -E '/^==[0-9]+==WARNING: AddressSanitizer failed to allocate 0x[0-9a-f]+ bytes$/d' "$err"
lines=$(grep -c '' "$err")
msg=$(cat "$err")
rm -f "$err"
if [ -n "${EXPECT_RC:-}" ] && [ "$rc" -ne "$EXPECT_RC" ]; then
  echo "expected exit code $EXPECT_RC, got $rc; stderr: $msg"; exit 1
fi
if [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
  echo "expected exit code 1 or 2, got $rc; stderr: $msg"; exit 1
fi
if [ "$lines" -ne 1 ]; then
  echo "expected one line on stderr, got $lines: $msg"; exit 1
fi
if ! grep -qE -- "$regex" <<<"$msg"; then
  echo "stderr does not match /$regex/: $msg"; exit 1
fi
echo "ok: $msg"
