#!/bin/sh
# gec as the Python tests of a sanitizer build run it (GE_GEC, tests/python/CMakeLists.txt). The
# interpreter there runs with AddressSanitizer's runtime preloaded and leak detection off (CPython
# frees little at exit, and LeakSanitizer would report that); gec links the runtime itself and is
# GE's code alone, so here neither applies: its leaks fail the test as for every other gec test.
unset LD_PRELOAD
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=1"
export ASAN_OPTIONS
exec "$GE_GEC_BINARY" "$@"
