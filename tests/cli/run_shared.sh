#!/usr/bin/env bash
# run_shared.sh RELPATH CMD ARGS... — runs CMD when $GE_SHARED_DIR/RELPATH exists; otherwise
# exits 77, which ctest reports as skipped (SKIP_RETURN_CODE).
set -u
if [ ! -e "${GE_SHARED_DIR:-/nonexistent}/$1" ]; then
  echo "SKIPPED: ${GE_SHARED_DIR:-GE_SHARED_DIR unset}/$1 not found"; exit 77
fi
shift
exec "$@"
