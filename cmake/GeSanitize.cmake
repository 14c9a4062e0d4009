# GE_SANITIZE: builds every target of the tree — libraries, gec, the plugins, the tests and the
# Python module — with the sanitizers it names, a comma-separated list passed to -fsanitize=
# (e.g. "address,undefined"; "" builds without). Self-contained: it only adds flags, before any
# target exists, so any compiler that takes GCC/Clang's -fsanitize= works (scripts/test
# --sanitize: GCC 12, address,undefined; a fuzzing build may pass e.g. "fuzzer-no-link,address"
# with Clang and add its own flags beside). Include it from the top-level CMakeLists.txt before
# the first add_subdirectory().
#
# What it adds, to compile and link of every target:
#   -fsanitize=${GE_SANITIZE}     the sanitizers (GCC manual, "Program Instrumentation Options").
#   -fno-sanitize-recover=all     every report is fatal (non-zero exit), so that ctest sees it;
#                                 UBSan would otherwise print and continue.
#   -fno-omit-frame-pointer       full stack traces from ASan's fast frame-pointer unwinder.
# GE_SANITIZE_ACTIVE (ON/OFF) tells later CMake code (tests) whether it is on; in C++, GCC
# defines __SANITIZE_ADDRESS__ under -fsanitize=address (Clang: __has_feature(address_sanitizer)).
# GCC's manual recommends against -Werror with sanitizers (they raise the rate of false warnings,
# -Wmaybe-uninitialized above all): scripts/test --sanitize configures with GE_WERROR=OFF.
include_guard(GLOBAL)

set(GE_SANITIZE "" CACHE STRING
    "Sanitizers for -fsanitize= (comma-separated, e.g. address,undefined); empty: none")
if(GE_SANITIZE)
  message(STATUS "GE_SANITIZE: building every target with -fsanitize=${GE_SANITIZE}")
  set(GE_SANITIZE_FLAGS -fsanitize=${GE_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(${GE_SANITIZE_FLAGS})
  # Executables, shared libraries and MODULE libraries (plugins, the Python extension) alike.
  add_link_options(-fsanitize=${GE_SANITIZE})
  set(GE_SANITIZE_ACTIVE ON)
else()
  set(GE_SANITIZE_ACTIVE OFF)
endif()
