# whisper.rn 0.4.3's C/C++ sources (fetched from npm by scripts/fetch-reference.sh, checked
# against npm's integrity, never committed) as CMake targets for tests and examples:
#   wsp_whisper_rn_core       ggml core, ggml-alloc, ggml-opt, gguf, CPU backend (static)
#   wsp_whisper_rn_reference  whisper.rn's own backend layer, the reference we compare with

execute_process(
    COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch-reference.sh"
    RESULT_VARIABLE _fetch_result)
if(NOT _fetch_result EQUAL 0)
    message(FATAL_ERROR "fetching whisper.rn 0.4.3 failed (npm must be reachable)")
endif()
set(WHISPER_RN_CPP "${PROJECT_SOURCE_DIR}/third_party/whisper.rn/cpp" CACHE INTERNAL "")

# Compile options for whisper.rn's objects: CPU backend registered statically, repacking
# buffer type on, AVX2-level code (which valgrind runs).
function(wsp_whisper_rn_options target)
    target_include_directories(${target} PUBLIC "${WHISPER_RN_CPP}" "${WHISPER_RN_CPP}/ggml-cpu")
    target_compile_definitions(${target} PUBLIC WSP_GGML_USE_CPU PRIVATE WSP_GGML_USE_CPU_REPACK _GNU_SOURCE)
    target_compile_options(${target} PRIVATE -O2 -march=x86-64-v3)
    set_target_properties(${target} PROPERTIES C_STANDARD 11 CXX_STANDARD 17 POSITION_INDEPENDENT_CODE ON)
endfunction()

file(STRINGS "${PROJECT_SOURCE_DIR}/ctests/ggml-core-sources.txt" _core_lines REGEX "^(c|cxx) ")
set(_core_sources "")
foreach(line IN LISTS _core_lines)
    string(REGEX REPLACE "^(c|cxx) +" "" _file "${line}")
    list(APPEND _core_sources "${WHISPER_RN_CPP}/${_file}")
endforeach()

add_library(wsp_whisper_rn_core STATIC ${_core_sources})
wsp_whisper_rn_options(wsp_whisper_rn_core)
target_link_libraries(wsp_whisper_rn_core PUBLIC m pthread dl stdc++)

add_library(wsp_whisper_rn_reference STATIC
    "${WHISPER_RN_CPP}/ggml-backend.cpp" "${WHISPER_RN_CPP}/ggml-backend-reg.cpp")
wsp_whisper_rn_options(wsp_whisper_rn_reference)
