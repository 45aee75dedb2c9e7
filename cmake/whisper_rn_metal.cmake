# whisper.rn built as for iOS (WSP_GGML_USE_METAL), with a Metal backend that runs on Linux, for the
# metal.* tests (ctests/CMakeLists.txt) and the transcribe-*metal examples:
#   wsp_whisper_rn_metal            the Metal backend: 0.5.5 and 0.7 whisper.rn's Metal C++ (every .cpp of
#                                   cpp/ggml-metal/, unchanged) and the stand-in for its Objective-C half
#                                   (ctests/metal/metal_standin.c); 0.4.3, whose Metal is Objective-C only,
#                                   ctests/metal/accel_metal_reg.c (the ACCEL fixture as the Metal reg)
#   wsp_whisper_rn_metal_cxx        (0.5.5 and 0.7) the Metal C++ alone (objects)
#   wsp_whisper_rn_whisper_metal    whisper.cpp with WSP_GGML_USE_METAL
#   wsp_whisper_rn_reference_metal  whisper.rn's backend layer with WSP_GGML_USE_METAL: it registers Metal
#                                   before the CPU
#   wsp_ggml_backend_metal_static   this library with the built-in backends metal and cpu (cargo features;
#                                   its own target dir)
# Included after whisper_rn.cmake, whose variables it uses.

file(GLOB _metal_cxx_sources "${WHISPER_RN_CPP}/ggml-metal/*.cpp")
set(WSP_METAL_TEST_DEFINITIONS "")
if(WSP_WHISPER_RN_RELEASE VERSION_GREATER_EQUAL 0.7)
    set(WSP_METAL_TEST_DEFINITIONS METAL_TEST_V7)
endif()

if(_metal_cxx_sources)
    add_library(wsp_whisper_rn_metal_cxx OBJECT ${_metal_cxx_sources})
    wsp_whisper_rn_options(wsp_whisper_rn_metal_cxx)
    target_include_directories(wsp_whisper_rn_metal_cxx PUBLIC "${WHISPER_RN_CPP}/ggml-metal")
    # 0.7's ggml-metal.cpp uses std::unique_ptr without including <memory> (Apple's libc++ brings it
    # in through another header; libstdc++ does not)
    if(WSP_WHISPER_RN_RELEASE VERSION_GREATER_EQUAL 0.7)
        target_compile_options(wsp_whisper_rn_metal_cxx PRIVATE "SHELL:-include memory")
    endif()

    add_library(wsp_whisper_rn_metal STATIC $<TARGET_OBJECTS:wsp_whisper_rn_metal_cxx>
                "${PROJECT_SOURCE_DIR}/ctests/metal/metal_standin.c")
    wsp_whisper_rn_options(wsp_whisper_rn_metal)
    target_include_directories(wsp_whisper_rn_metal PUBLIC "${WHISPER_RN_CPP}/ggml-metal" "${PROJECT_SOURCE_DIR}/ctests/common")
    target_compile_options(wsp_whisper_rn_metal PRIVATE $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Werror>)
    if(WSP_WHISPER_RN_RELEASE VERSION_GREATER_EQUAL 0.7)
        target_compile_definitions(wsp_whisper_rn_metal PRIVATE METAL_STANDIN_V7)
    endif()
else()
    add_library(wsp_whisper_rn_metal STATIC "${PROJECT_SOURCE_DIR}/ctests/metal/accel_metal_reg.c"
                "${PROJECT_SOURCE_DIR}/ctests/common/accel_fixture.c")
    wsp_whisper_rn_options(wsp_whisper_rn_metal)
    target_include_directories(wsp_whisper_rn_metal PUBLIC "${PROJECT_SOURCE_DIR}/ctests/common")
    target_compile_options(wsp_whisper_rn_metal PRIVATE -Wall -Wextra -Werror)
endif()

add_library(wsp_whisper_rn_whisper_metal STATIC "${WHISPER_RN_CPP}/whisper.cpp")
wsp_whisper_rn_options(wsp_whisper_rn_whisper_metal)
target_compile_definitions(wsp_whisper_rn_whisper_metal PRIVATE WSP_GGML_USE_METAL)

add_library(wsp_whisper_rn_reference_metal STATIC ${WSP_REFERENCE_SOURCES})
wsp_whisper_rn_options(wsp_whisper_rn_reference_metal)
target_compile_definitions(wsp_whisper_rn_reference_metal PRIVATE WSP_GGML_USE_METAL)

# This library with the built-in Metal backend: its registry calls wsp_ggml_backend_metal_reg() before
# the CPU's, as the reference built with WSP_GGML_USE_METAL does.
wsp_cargo_library(wsp_ggml_backend_metal /metal metal cpu)
