# ggml's RPC backend for the examples and tests: ggml-rpc.cpp from PyPI's llama-cpp-python sdist
# (fetched by scripts/fetch/fetch-rpc.sh, checked against its sha256, renamed as the package renames
# ggml, never committed), compiled against the headers of the configured release:
#   wsp_ggml_rpc   its objects (an OBJECT library: programs reach it through the registry only,
#                  so an archive member would never be pulled in)

execute_process(
    COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch/fetch-rpc.sh" "${WSP_RELEASE_RPC}" "${WSP_RELEASE}"
    RESULT_VARIABLE _fetch_rpc_result)
if(NOT _fetch_rpc_result EQUAL 0)
    message(FATAL_ERROR "fetching ggml-rpc failed (pip and PyPI must be reachable); "
                        "configure with -DGGMLRS_RPC=OFF to build without it")
endif()

set(_rpc_dir "${PROJECT_SOURCE_DIR}/third_party/ggml-rpc-${WSP_RELEASE_RPC}")
if(NOT WSP_RELEASE_PACKAGE STREQUAL "whisper.rn")
    set(_rpc_dir "${_rpc_dir}-${WSP_RELEASE_PACKAGE}")
endif()
file(GLOB _rpc_sources "${_rpc_dir}/*.cpp")
add_library(wsp_ggml_rpc OBJECT ${_rpc_sources})
target_include_directories(wsp_ggml_rpc PUBLIC "${_rpc_dir}")
wsp_package_common_options(wsp_ggml_rpc)
