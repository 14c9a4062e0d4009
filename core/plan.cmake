# Plan files, load-time passes and the application API (ge/core/plan.h, ge/core/session.h).
# The plan header is protobuf (proto/ge_plan.proto); its generated code is private to ge_core.
protobuf_generate_cpp(GE_PLAN_PROTO_SRCS GE_PLAN_PROTO_HDRS proto/ge_plan.proto)
target_sources(ge_core PRIVATE src/plan_file.cc src/plan_options.cc src/plan_graph.cc src/plan_invariants.cc src/plan_sections.cc src/load_passes.cc src/session.cc
  ${GE_PLAN_PROTO_SRCS})
target_include_directories(ge_core PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
target_sources(gec PRIVATE gec/cmd_plan.cc)
# The plan checksum is XXH3-128 from Debian's libxxhash-dev (pkg-config libxxhash).
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
target_link_libraries(ge_core PRIVATE PkgConfig::XXHASH)
