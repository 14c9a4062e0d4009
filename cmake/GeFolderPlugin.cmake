# ge_add_folder_plugin(NAME [OPS_INCLUDE header OPS_NAMESPACE ns OPS_EMBED_NAME stem]): GE's own
# plugins laid out one pass, rule or kernel family per file. Every .cc of the calling folder but
# plugin.cc forms the OBJECT library ge_<NAME>_objs (position independent, hidden visibility;
# tests link its objects so they keep every registration), and ge_add_plugin builds libge_<NAME>.so
# from plugin.cc and those objects. With OPS_INCLUDE, the folder's ops/*.toml are embedded at build
# time (cmake/EmbedOps.cmake) into <stem>.cc as `ns::embedded_op_files()` declared in that header.
# In-tree only (the installed SDK ships cmake/GePlugin.cmake alone).
include_guard(GLOBAL)

function(ge_add_folder_plugin name)
  cmake_parse_arguments(P "" "OPS_INCLUDE;OPS_NAMESPACE;OPS_EMBED_NAME" "" ${ARGN})
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cc)
  list(REMOVE_ITEM sources ${dir}/plugin.cc)
  if(P_OPS_INCLUDE)
    file(GLOB op_files CONFIGURE_DEPENDS RELATIVE ${dir} ${dir}/ops/*.toml)
    list(SORT op_files)
    file(RELATIVE_PATH label ${CMAKE_SOURCE_DIR} ${dir})
    set(embedded_cc ${CMAKE_CURRENT_BINARY_DIR}/${P_OPS_EMBED_NAME}.cc)
    list(TRANSFORM op_files PREPEND ${dir}/ OUTPUT_VARIABLE op_paths)
    add_custom_command(
      OUTPUT ${embedded_cc}
      COMMAND ${CMAKE_COMMAND} -DOUT=${embedded_cc} -DSRC_DIR=${dir}
              "-DFILES=${op_files}" -DLABEL=${label} -DINCLUDE=${P_OPS_INCLUDE}
              -DNAMESPACE=${P_OPS_NAMESPACE} -DFUNCTION=embedded_op_files -DELEMENT=OpFile
              -P ${CMAKE_SOURCE_DIR}/cmake/EmbedOps.cmake
      DEPENDS ${op_paths} ${CMAKE_SOURCE_DIR}/cmake/EmbedOps.cmake
      COMMENT "Embedding ${label}/ops/*.toml"
      VERBATIM)
    list(APPEND sources ${embedded_cc})
  endif()
  add_library(ge_${name}_objs OBJECT ${sources})
  target_include_directories(ge_${name}_objs PUBLIC ${dir})
  target_link_libraries(ge_${name}_objs PUBLIC ge::sdk)
  set_target_properties(ge_${name}_objs PROPERTIES POSITION_INDEPENDENT_CODE ON
                        CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  ge_add_plugin(${name} ${dir}/plugin.cc $<TARGET_OBJECTS:ge_${name}_objs>)
  target_include_directories(ge_${name} PRIVATE ${dir})
endfunction()
