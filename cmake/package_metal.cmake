# The package built as for iOS (<PREFIX>GGML_USE_METAL and the other backends the table's
# ios_builtins name), with a Metal backend that runs on Linux, for the metal.* tests
# (ctests/CMakeLists.txt) and the examples' *-metal programs:
#   wsp_package_metal               the Metal backend (and where the package's iOS build has BLAS,
#                                   llama.rn's, and this machine a CBLAS, the BLAS backend): the
#                                   package's Metal C++ (every .cpp of
#                                   cpp/ggml-metal/, unchanged) and the stand-in for its Objective-C
#                                   half (ctests/metal/metal_standin.c), where the stand-in implements
#                                   the release's Objective-C API (whisper.rn 0.5.5's and 0.7's, llama.rn
#                                   0.12's); else ctests/metal/accel_metal_reg.c, the ACCEL fixture as
#                                   the Metal reg (whisper.rn 0.4.3, whose Metal is Objective-C only,
#                                   and the other releases)
#   wsp_package_metal_cxx           the Metal C++ alone (objects; not with the ACCEL fixture)
#   wsp_package_blas_cxx            the BLAS backend alone (objects), where it is built
#   wsp_whisper_rn_whisper_metal    whisper.cpp with WSP_GGML_USE_METAL (whisper.rn)
#   wsp_package_reference_metal     the package's backend layer built so: it registers Metal (and BLAS)
#                                   before the CPU
#   wsp_ggml_backend_metal_static   this library with the same built-in backends (cargo features; its
#                                   own target dir)
# and WSP_METAL_KIND: accel, single (whisper.rn 0.5.5's Metal: one device "Metal") or devices (the
# others: devices "MTL0".., as many as <PREFIX>GGML_METAL_DEVICES says); WSP_METAL_BUILTINS, the
# built-in backends of both layers in the registry's order; WSP_METAL_TEST_DEFINITIONS for test
# programs. Included after package_sources.cmake, whose functions it uses.

# The stand-in's versions of the Objective-C API, told apart by what ggml-metal-device.h declares
# (ctests/metal/metal_standin.c lists the macros).
file(GLOB _metal_cxx_sources "${WSP_PACKAGE_CPP}/ggml-metal/*.cpp")
set(WSP_METAL_KIND accel)
set(_standin_definitions "")
if(_metal_cxx_sources)
    file(READ "${WSP_PACKAGE_CPP}/ggml-metal/ggml-metal-device.h" _metal_device_h)
    set(_p "${WSP_RELEASE_SYMBOL_PREFIX}")
    if(_metal_device_h MATCHES "${_p}ggml_metal_device_init\\(int device, int n_devices\\)")
        set(WSP_METAL_KIND devices)
        list(APPEND _standin_definitions METAL_STANDIN_DEVICES METAL_STANDIN_DEVICE_COUNT)
    elseif(_metal_device_h MATCHES "${_p}ggml_metal_device_init\\(int device\\)")
        set(WSP_METAL_KIND devices)
        list(APPEND _standin_definitions METAL_STANDIN_DEVICES)
    elseif(_metal_device_h MATCHES "${_p}ggml_metal_device_init\\(void\\)" AND _metal_device_h MATCHES "op_offload_min_batch_size"
           AND _metal_device_h MATCHES "struct ${_p}ggml_metal_pipeline_with_params {")
        set(WSP_METAL_KIND single)
    else()
        message(STATUS "wsp-ggml-backend: the Metal stand-in does not implement ${WSP_RELEASE}'s Metal Objective-C API: the metal tests use the ACCEL fixture as Metal")
    endif()
    if(_metal_device_h MATCHES "${_p}ggml_metal_rsets_init\\(${_p}ggml_metal_device_t dev\\)")
        list(APPEND _standin_definitions METAL_STANDIN_RSETS_OF_DEVICE)
    endif()
    if(_metal_device_h MATCHES "enum ${_p}ggml_metal_device_id device_id;")
        list(APPEND _standin_definitions METAL_STANDIN_DEVICE_ID)
    endif()
endif()
set(WSP_METAL_TEST_DEFINITIONS "")
if(WSP_METAL_KIND STREQUAL "accel")
    set(WSP_METAL_TEST_DEFINITIONS METAL_TEST_ACCEL)
    add_library(wsp_package_metal STATIC "${PROJECT_SOURCE_DIR}/ctests/metal/accel_metal_reg.c"
                "${PROJECT_SOURCE_DIR}/ctests/fixtures/accel_fixture.c")
    wsp_package_options(wsp_package_metal)
    target_include_directories(wsp_package_metal PUBLIC "${PROJECT_SOURCE_DIR}/ctests/fixtures")
    target_compile_options(wsp_package_metal PRIVATE -Wall -Wextra -Werror ${WSP_PREFIX_MAP_OPTIONS})
else()
    add_library(wsp_package_metal_cxx OBJECT ${_metal_cxx_sources})
    wsp_package_options(wsp_package_metal_cxx)
    target_include_directories(wsp_package_metal_cxx PUBLIC "${WSP_PACKAGE_CPP}/ggml-metal")
    # whisper.rn 0.7.4's ggml-metal.cpp uses std::unique_ptr without including <memory> (Apple's
    # libc++ brings it in through another header; libstdc++ does not)
    target_compile_options(wsp_package_metal_cxx PRIVATE "SHELL:-include memory")
    # the podspec's Metal definitions (llama.rn: <PREFIX>GGML_METAL_EMBED_LIBRARY, which the reg's
    # features list), outside its Ruby comments
    file(STRINGS "${WSP_PACKAGE_CPP}/../${WSP_RELEASE_PODSPEC}" _podspec_lines REGEX "GGML_METAL_")
    foreach(line IN LISTS _podspec_lines)
        string(REGEX REPLACE "#[^\"]*$" "" line "${line}")
        string(REGEX MATCHALL "-D${WSP_PACKAGE_MACRO}GGML_METAL_[A-Z_]+(=[^ \"]+)?" _podspec_definitions "${line}")
        list(TRANSFORM _podspec_definitions REPLACE "^-D" "")
        target_compile_definitions(wsp_package_metal_cxx PRIVATE ${_podspec_definitions})
    endforeach()

    add_library(wsp_package_metal STATIC $<TARGET_OBJECTS:wsp_package_metal_cxx>
                "${PROJECT_SOURCE_DIR}/ctests/metal/metal_standin.c")
    wsp_package_options(wsp_package_metal)
    target_include_directories(wsp_package_metal PUBLIC "${WSP_PACKAGE_CPP}/ggml-metal" "${PROJECT_SOURCE_DIR}/ctests/fixtures")
    target_compile_options(wsp_package_metal PRIVATE "$<$<COMPILE_LANGUAGE:C>:-Wall;-Wextra;-Werror;${WSP_PREFIX_MAP_OPTIONS}>")
    target_compile_definitions(wsp_package_metal PRIVATE ${_standin_definitions})
endif()

# The built-in backends of the package's iOS build (the table's ios_builtins) that build here: BLAS
# needs a CBLAS (Debian's libblas-dev; Apple's is Accelerate).
set(WSP_METAL_BUILTINS metal cpu)
if("blas" IN_LIST WSP_RELEASE_IOS_BUILTINS AND EXISTS "${WSP_PACKAGE_CPP}/ggml-blas/ggml-blas.cpp")
    find_path(WSP_CBLAS_INCLUDE cblas.h PATH_SUFFIXES ${CMAKE_LIBRARY_ARCHITECTURE})
    find_library(WSP_CBLAS_LIBRARY NAMES cblas blas)
    if(WSP_CBLAS_INCLUDE AND WSP_CBLAS_LIBRARY)
        add_library(wsp_package_blas_cxx OBJECT "${WSP_PACKAGE_CPP}/ggml-blas/ggml-blas.cpp")
        wsp_package_options(wsp_package_blas_cxx)
        target_include_directories(wsp_package_blas_cxx PRIVATE "${WSP_CBLAS_INCLUDE}")
        # in the Metal backend's archive, which the programs link in one group with the core
        target_sources(wsp_package_metal PRIVATE $<TARGET_OBJECTS:wsp_package_blas_cxx>)
        target_link_libraries(wsp_package_metal PUBLIC "${WSP_CBLAS_LIBRARY}")
        set(WSP_METAL_BUILTINS metal blas cpu)
    else()
        message(STATUS "wsp-ggml-backend: no CBLAS (cblas.h and libblas): ${WSP_RELEASE}'s iOS build has BLAS, the Metal tests go without")
    endif()
endif()

if(WSP_RELEASE_PACKAGE STREQUAL "whisper.rn")
    add_library(wsp_whisper_rn_whisper_metal STATIC "${WSP_PACKAGE_CPP}/whisper.cpp")
    wsp_package_options(wsp_whisper_rn_whisper_metal)
    target_compile_definitions(wsp_whisper_rn_whisper_metal PRIVATE WSP_GGML_USE_METAL)
endif()

wsp_reference_layer(wsp_package_reference_metal)
wsp_package_options(wsp_package_reference_metal)
foreach(builtin IN LISTS WSP_METAL_BUILTINS)
    if(NOT builtin STREQUAL "cpu")
        string(TOUPPER "${builtin}" _builtin)
        target_compile_definitions(wsp_package_reference_metal PRIVATE ${WSP_PACKAGE_MACRO}GGML_USE_${_builtin})
    endif()
endforeach()

# This library with the same built-in backends: its registry calls their regs before the CPU's,
# in the order the reference built so does.
wsp_cargo_library(wsp_ggml_backend_metal /metal ${WSP_METAL_BUILTINS})
