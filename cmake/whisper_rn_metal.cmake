# whisper.rn built as for iOS (WSP_GGML_USE_METAL), with a Metal backend that runs on Linux, for the
# metal.* tests (ctests/CMakeLists.txt) and the transcribe-*metal examples:
#   wsp_whisper_rn_metal            the Metal backend: whisper.rn's Metal C++ (every .cpp of
#                                   cpp/ggml-metal/, unchanged) and the stand-in for its Objective-C
#                                   half (ctests/metal/metal_standin.c), where the stand-in implements
#                                   the release's Objective-C API (0.5.5's, 0.7.4's); else
#                                   ctests/metal/accel_metal_reg.c, the ACCEL fixture as the Metal reg
#                                   (0.4.3, whose Metal is Objective-C only, and the other releases)
#   wsp_whisper_rn_metal_cxx        the Metal C++ alone (objects; not with the ACCEL fixture)
#   wsp_whisper_rn_whisper_metal    whisper.cpp with WSP_GGML_USE_METAL
#   wsp_package_reference_metal  whisper.rn's backend layer with WSP_GGML_USE_METAL: it registers Metal
#                                   before the CPU
#   wsp_ggml_backend_metal_static   this library with the built-in backends metal and cpu (cargo features;
#                                   its own target dir)
# and WSP_METAL_KIND: accel, single (0.5.5's Metal: one device "Metal") or devices (0.7.4's: devices
# "MTL0".., as many as WSP_GGML_METAL_DEVICES says); WSP_METAL_TEST_DEFINITIONS for test programs.
# Included after whisper_rn.cmake, whose variables it uses.

# The stand-in's two versions of the Objective-C API, told apart by what ggml-metal-device.h declares.
file(GLOB _metal_cxx_sources "${WSP_PACKAGE_CPP}/ggml-metal/*.cpp")
set(WSP_METAL_KIND accel)
if(_metal_cxx_sources)
    file(READ "${WSP_PACKAGE_CPP}/ggml-metal/ggml-metal-device.h" _metal_device_h)
    if(_metal_device_h MATCHES "wsp_ggml_metal_device_init\\(int device, int n_devices\\)")
        set(WSP_METAL_KIND devices)
    elseif(_metal_device_h MATCHES "wsp_ggml_metal_device_init\\(void\\)" AND _metal_device_h MATCHES "op_offload_min_batch_size"
           AND _metal_device_h MATCHES "struct wsp_ggml_metal_pipeline_with_params {")
        set(WSP_METAL_KIND single)
    else()
        message(STATUS "wsp-ggml-backend: the Metal stand-in does not implement whisper.rn ${WSP_WHISPER_RN_RELEASE}'s Metal Objective-C API (0.5.5's and 0.7.4's only): the metal tests use the ACCEL fixture as Metal")
    endif()
endif()
set(WSP_METAL_TEST_DEFINITIONS "")
if(WSP_METAL_KIND STREQUAL "accel")
    set(WSP_METAL_TEST_DEFINITIONS METAL_TEST_ACCEL)
endif()

if(WSP_METAL_KIND STREQUAL "accel")
    add_library(wsp_whisper_rn_metal STATIC "${PROJECT_SOURCE_DIR}/ctests/metal/accel_metal_reg.c"
                "${PROJECT_SOURCE_DIR}/ctests/fixtures/accel_fixture.c")
    wsp_package_options(wsp_whisper_rn_metal)
    target_include_directories(wsp_whisper_rn_metal PUBLIC "${PROJECT_SOURCE_DIR}/ctests/fixtures")
    target_compile_options(wsp_whisper_rn_metal PRIVATE -Wall -Wextra -Werror)
else()
    add_library(wsp_whisper_rn_metal_cxx OBJECT ${_metal_cxx_sources})
    wsp_package_options(wsp_whisper_rn_metal_cxx)
    target_include_directories(wsp_whisper_rn_metal_cxx PUBLIC "${WSP_PACKAGE_CPP}/ggml-metal")
    # 0.7.4's ggml-metal.cpp uses std::unique_ptr without including <memory> (Apple's libc++ brings it
    # in through another header; libstdc++ does not)
    target_compile_options(wsp_whisper_rn_metal_cxx PRIVATE "SHELL:-include memory")

    add_library(wsp_whisper_rn_metal STATIC $<TARGET_OBJECTS:wsp_whisper_rn_metal_cxx>
                "${PROJECT_SOURCE_DIR}/ctests/metal/metal_standin.c")
    wsp_package_options(wsp_whisper_rn_metal)
    target_include_directories(wsp_whisper_rn_metal PUBLIC "${WSP_PACKAGE_CPP}/ggml-metal" "${PROJECT_SOURCE_DIR}/ctests/fixtures")
    target_compile_options(wsp_whisper_rn_metal PRIVATE $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Werror>)
    if(WSP_METAL_KIND STREQUAL "devices")
        target_compile_definitions(wsp_whisper_rn_metal PRIVATE METAL_STANDIN_DEVICES)
    endif()
endif()

add_library(wsp_whisper_rn_whisper_metal STATIC "${WSP_PACKAGE_CPP}/whisper.cpp")
wsp_package_options(wsp_whisper_rn_whisper_metal)
target_compile_definitions(wsp_whisper_rn_whisper_metal PRIVATE WSP_GGML_USE_METAL)

wsp_reference_layer(wsp_package_reference_metal)
wsp_package_options(wsp_package_reference_metal)
target_compile_definitions(wsp_package_reference_metal PRIVATE WSP_GGML_USE_METAL)

# This library with the built-in Metal backend: its registry calls wsp_ggml_backend_metal_reg() before
# the CPU's, as the reference built with WSP_GGML_USE_METAL does.
wsp_cargo_library(wsp_ggml_backend_metal /metal metal cpu)
