# ge_add_plugin(NAME SOURCES...): a plugin library libge_<NAME>.so in lib/ge/plugins/,
# linked against the SDK only, hidden visibility, no undefined symbols.
function(ge_add_plugin name)
  add_library(ge_${name} MODULE ${ARGN})
  target_link_libraries(ge_${name} PRIVATE ge::sdk)
  set_target_properties(ge_${name} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${GE_PLUGIN_OUTPUT_DIR}
    INSTALL_RPATH "$ORIGIN/../..")
  target_link_options(ge_${name} PRIVATE -Wl,--no-undefined)
  install(TARGETS ge_${name} LIBRARY DESTINATION ${GE_PLUGIN_INSTALL_DIR})
endfunction()
