#!/usr/bin/env bash
# no_output_on_error.sh OUT CMD ARGS... — removes OUT, runs CMD, and passes its exit code and
# stderr on; when CMD failed but OUT exists afterwards, says so on stderr (a half-done command
# must not leave an output behind), which the expect_error.sh one-line check then rejects.
set -u
out=$1; shift
rm -f "$out"
"$@"
rc=$?
if [ "$rc" -ne 0 ] && [ -e "$out" ]; then echo "no_output_on_error: '$out' was written although the command failed" >&2; fi
exit "$rc"
