# cmake -DBUILD_DIR=<this project's build> -DSOURCE_DIR=<this project> -DWORK=<scratch dir>
#       -DCORE_LIB=<libwsp_whisper_rn_core.a> -DCORE_INCLUDE=<whisper.rn cpp/> -DRELEASE=<whisper.rn release>
#       -DBUILTINS=<the built-in backends, space-separated>
#       [-DLINK_FLAGS=<flags the core needs at link time, e.g. -fsanitize=address>] -P install.cmake
# Installs the library into a prefix, checks the layout, then builds and runs a consumer
# project through find_package() and through add_subdirectory(), statically and shared.
file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")

function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
    endif()
    set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(file lib/libwsp_ggml_backend.a lib/libwsp_ggml_backend.so.0 lib/libwsp_ggml_backend.so
             include/wsp_ggml_backend.h lib/pkgconfig/wsp-ggml-backend.pc
             lib/cmake/wsp_ggml_backend/wsp_ggml_backendConfig.cmake
             lib/cmake/wsp_ggml_backend/wsp_ggml_backendConfigVersion.cmake)
    if(NOT EXISTS "${prefix}/${file}")
        message(FATAL_ERROR "cmake --install did not install ${file}")
    endif()
endforeach()

# pkg-config sees the installed library
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
run(pkg-config --cflags --libs wsp-ggml-backend)
string(REGEX MATCH "-I([^ \n]+)" _ "${last_output}")
if(NOT EXISTS "${CMAKE_MATCH_1}/wsp_ggml_backend.h" OR NOT last_output MATCHES "-lwsp_ggml_backend")
    message(FATAL_ERROR "unexpected pkg-config output: ${last_output}")
endif()
run(pkg-config --variable=whisper_rn_release wsp-ggml-backend)
string(STRIP "${last_output}" _release)
if(NOT _release STREQUAL RELEASE)
    message(FATAL_ERROR "pkg-config says whisper_rn_release=${_release}, the build is for ${RELEASE}")
endif()
run(pkg-config --variable=builtin_backends wsp-ggml-backend)
string(STRIP "${last_output}" _builtins)
if(NOT _builtins STREQUAL BUILTINS)
    message(FATAL_ERROR "pkg-config says builtin_backends=${_builtins}, the build has ${BUILTINS}")
endif()

foreach(mode package subdirectory)
    set(build "${WORK}/consumer-${mode}")
    run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/ctests/install/consumer" -B "${build}" -DMODE=${mode}
        "-DCMAKE_PREFIX_PATH=${prefix}" "-DWSP_SOURCE=${SOURCE_DIR}"
        "-DGGMLRS_CARGO_TARGET_DIR=${SOURCE_DIR}/target" "-DGGMLRS_WHISPER_RN_RELEASE=${RELEASE}"
        "-DWSP_CORE_LIB=${CORE_LIB}" "-DWSP_CORE_INCLUDE=${CORE_INCLUDE}"
        "-DCMAKE_EXE_LINKER_FLAGS=${LINK_FLAGS}")
    run("${CMAKE_COMMAND}" --build "${build}" -j 2)
    foreach(flavour static shared)
        run("${build}/consumer-${flavour}")
        message(STATUS "${mode}, ${flavour}: ${last_output}")
    endforeach()
    # the shared flavour records the soname, and finds the library again at run time
    run(readelf -d "${build}/consumer-shared")
    if(NOT last_output MATCHES "libwsp_ggml_backend\\.so\\.0")
        message(FATAL_ERROR "consumer-shared does not depend on libwsp_ggml_backend.so.0")
    endif()
endforeach()
