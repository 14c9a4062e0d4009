# GE_FUZZ=ON: the libFuzzer targets of tests/fuzz (docs/fuzzing.md). A build of its own
# (scripts/fuzz configures build-fuzz with clang-14): every library and plugin is compiled with
# -fsanitize=fuzzer-no-link,address,undefined so that coverage guides libFuzzer through the
# parsers and the sanitizers see every byte they touch; the fuzz executables add
# -fsanitize=fuzzer (libFuzzer's main). Off in the normal build, which builds the same targets'
# LLVMFuzzerTestOneInput into replay tests of tests/fuzz/regressions instead (gcc, no libFuzzer).
option(GE_FUZZ "Build the libFuzzer targets (clang only; a build directory of its own)" OFF)
if(GE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GE_FUZZ=ON needs clang (libFuzzer): configure with CXX=clang++-14 (scripts/fuzz does)")
  endif()
  # vptr is left out: plugins are built with hidden visibility, and UBSan's dynamic type check
  # compares type_info across shared objects, which then differ for the same class.
  set(GE_FUZZ_SANITIZERS -fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined)
  add_compile_options(-fsanitize=fuzzer-no-link ${GE_FUZZ_SANITIZERS} -fno-omit-frame-pointer -gline-tables-only)
  # The sanitizer runtime as a shared library: plugins are linked with -Wl,--no-undefined
  # (cmake/GePlugin.cmake), which the static runtime (executables only) would not satisfy.
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
                  OUTPUT_VARIABLE GE_FUZZ_ASAN_SO OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(GE_FUZZ_RT_DIR ${GE_FUZZ_ASAN_SO} DIRECTORY)
  add_link_options(${GE_FUZZ_SANITIZERS} -shared-libsan -Wl,-rpath,${GE_FUZZ_RT_DIR})
  # The fuzz targets are added by the top-level CMakeLists.txt, after every library and plugin.
endif()
