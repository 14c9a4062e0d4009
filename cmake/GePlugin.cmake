# ge_add_plugin(NAME SOURCES...): builds the GE plugin libge_<NAME>.so (target ge_<NAME>): a
# MODULE linked against the SDK only (ge::sdk), C++20, hidden visibility (only the GE_PLUGIN
# entry point is exported), no undefined symbols (-Wl,--no-undefined), installed into
# ${GE_PLUGIN_INSTALL_DIR} (default lib/ge/plugins) with RPATH $ORIGIN/../.. so that it finds
# lib/libge_sdk.so of the same prefix.
#
# One file for both uses: GE's own build includes it from cmake/, and the installed SDK package
# ships it beside ge_sdkConfig.cmake, which includes it, so that an out-of-tree project needs only
#   find_package(ge_sdk REQUIRED)
#   ge_add_plugin(my_plugin my_plugin.cc)
# Optional variables, read when the function is called: GE_PLUGIN_OUTPUT_DIR (where the library
# is built; default: CMake's library output directory) and GE_PLUGIN_INSTALL_DIR.
include_guard(GLOBAL)

function(ge_add_plugin name)
  if(NOT ARGN)
    message(FATAL_ERROR "ge_add_plugin(${name}): no source files given")
  endif()
  set(target ge_${name})
  add_library(${target} MODULE ${ARGN})
  target_link_libraries(${target} PRIVATE ge::sdk)
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    OUTPUT_NAME ge_${name}
    CXX_EXTENSIONS OFF
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN/../..")
  if(GE_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${GE_PLUGIN_OUTPUT_DIR})
  endif()
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
  # A project configured without a build type builds its plugin optimized, as GE's own are
  # (CMake's empty build type adds no -O flag: kernels at -O0 run many times slower).
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    target_compile_options(${target} PRIVATE -O2)
    target_compile_definitions(${target} PRIVATE NDEBUG)
  endif()
  if(GE_PLUGIN_INSTALL_DIR)
    set(dest ${GE_PLUGIN_INSTALL_DIR})
  else()
    set(dest lib/ge/plugins)
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${dest})
endfunction()
