# ggml's Vulkan backend for the examples and tests: libwsp_ggml_vulkan.a, built by
# scripts/fetch/fetch-vulkan.sh from PyPI's llama-cpp-python sdist (checked against its sha256, renamed as
# the package renames ggml, never committed) against the headers of the configured release, and
# the layers with it built in:
#   wsp_ggml_vulkan                   the archive, with the Vulkan loader
#   wsp_package_reference_vulkan   the package's backend layer with <PREFIX>GGML_USE_VULKAN: it
#                                     registers Vulkan before the CPU
#   wsp_ggml_backend_vulkan_static    this library with the built-in backends vulkan and cpu (cargo
#                                     features; its own target dir)
# Here the device is Mesa's lavapipe (Vulkan on the CPU), which ggml-vulkan lists only with
# <PREFIX>GGML_VK_VISIBLE_DEVICES=0: WSP_VULKAN_TEST_ENVIRONMENT, the environment the tests run Vulkan
# with (scripts/fetch/fetch-vulkan.sh --environment). Included after package_sources.cmake, whose
# variables it uses.

execute_process(
    COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch/fetch-vulkan.sh" "${WSP_RELEASE}"
    OUTPUT_VARIABLE _vulkan_archive OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _fetch_vulkan_result)
if(NOT _fetch_vulkan_result EQUAL 0)
    # the script's own messages are on stderr, above; a tool that reports on stdout is shown here
    message(FATAL_ERROR "building ggml-vulkan failed (pip and PyPI must be reachable, and apt-get for "
                        "the Vulkan headers and glslc); configure with -DGGMLRS_VULKAN=OFF to build without it. "
                        "Its output: ${_vulkan_archive}")
endif()
find_package(Vulkan REQUIRED)
# the sources' folder: the archive is in its build-<version>/
get_filename_component(_vulkan_sources "${_vulkan_archive}" DIRECTORY)
get_filename_component(_vulkan_sources "${_vulkan_sources}" DIRECTORY)

add_library(wsp_ggml_vulkan STATIC IMPORTED GLOBAL)
set_target_properties(wsp_ggml_vulkan PROPERTIES IMPORTED_LOCATION "${_vulkan_archive}"
    INTERFACE_LINK_LIBRARIES "Vulkan::Vulkan;stdc++"
    INTERFACE_INCLUDE_DIRECTORIES "${_vulkan_sources}")

wsp_reference_layer(wsp_package_reference_vulkan)
wsp_package_options(wsp_package_reference_vulkan)
target_link_libraries(wsp_package_reference_vulkan PRIVATE wsp_ggml_vulkan)  # ggml-vulkan.h
target_compile_definitions(wsp_package_reference_vulkan PRIVATE ${WSP_PACKAGE_MACRO}GGML_USE_VULKAN)

wsp_cargo_library(wsp_ggml_backend_vulkan /vulkan vulkan cpu)

execute_process(COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch/fetch-vulkan.sh" --environment "${WSP_RELEASE}"
                OUTPUT_VARIABLE WSP_VULKAN_TEST_ENVIRONMENT OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REPLACE "\n" ";" WSP_VULKAN_TEST_ENVIRONMENT "${WSP_VULKAN_TEST_ENVIRONMENT}")
