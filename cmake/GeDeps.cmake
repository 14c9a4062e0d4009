# Third-party packages, all from Debian (see ../shared/BUILD-NOTES.md).
find_package(Boost 1.81 REQUIRED COMPONENTS graph)
find_package(tomlplusplus 3 REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(Protobuf REQUIRED)      # must come before ONNX
find_package(ONNX CONFIG REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(dnnl CONFIG REQUIRED)
find_package(OpenMP REQUIRED)
find_package(Threads REQUIRED)

# Boost.DLL must see BOOST_DLL_USE_STD_FS everywhere it is included.
add_library(ge_boost_dll INTERFACE)
target_link_libraries(ge_boost_dll INTERFACE Boost::headers ${CMAKE_DL_LIBS})
target_compile_definitions(ge_boost_dll INTERFACE BOOST_DLL_USE_STD_FS)

add_library(ge_onnx INTERFACE)
target_link_libraries(ge_onnx INTERFACE onnx onnx_proto protobuf::libprotobuf)
target_compile_definitions(ge_onnx INTERFACE ONNX_NAMESPACE=onnx ONNX_ML=1)
