# cmake -DLIBRARY=<program> -DREFERENCE=<program> -DGPU=<backend name> -DFLASH_ATTN=on|off
#       -DTHREADS=<n> -DMODEL=<model> -DAUDIO=<wav> [-DCPU_OUTPUT=<file>] [-DCOUNTER=<regex>]
#       [-DWITH_CPU=ON] -P gpu_e2e.cmake
# whisper with a built-in GPU backend and the GPU on (transcribe --gpu), linked with this library
# (LIBRARY) and with the reference layer built with the same backend (REFERENCE): the transcripts
# must be identical, and the scheduler's split listings (every "## SPLIT" line of
# WSP_GGML_SCHED_DEBUG=1: backend, inputs and their sizes, for every graph); the backend GPU must
# have computed splits, the same graphs through both layers. Where the GPU is a stand-in that
# computes as the CPU does (the Metal stand-in, the ACCEL fixture), also:
#   CPU_OUTPUT  the CPU alone's transcript with the same settings (recorded by a setup test),
#               which must be the same text
#   COUNTER     the stand-in's line on stderr ("<COUNTER>: ... computes=N ..."): work was done,
#               the same through both layers (graphs, nodes, reorderings)
#   WITH_CPU    some splits must run on the CPU too
# Extra environment (WSP_GGML_METAL_DEVICES, the Vulkan device) comes from the test. To keep it
# short: the encoder's context cut to 5.12 s (all of every sample) with one greedy decoding pass,
# as the cross tests do.
include("${CMAKE_CURRENT_LIST_DIR}/../e2e/e2e_util.cmake")
e2e_require(gpu_e2e.cmake VARIABLES LIBRARY REFERENCE GPU FLASH_ATTN THREADS MODEL AUDIO FILES MODEL AUDIO)

set(common -t ${THREADS} --audio-ctx 256 --no-fallback --flash-attn ${FLASH_ATTN})
set(ENV{WSP_GGML_SCHED_DEBUG} 1)
set(args ${common} --gpu --splits "${MODEL}" "${AUDIO}")
string(TIMESTAMP t0 "%s%f")
run(ref "${REFERENCE}" ${args})
string(TIMESTAMP t1 "%s%f")
run(lib "${LIBRARY}" ${args})
string(TIMESTAMP t2 "%s%f")

e2e_same_text("with the GPU on" "the reference" "${ref_out}" "the library" "${lib_out}")
if(DEFINED CPU_OUTPUT)
    e2e_require(gpu_e2e.cmake FILES CPU_OUTPUT)
    file(READ "${CPU_OUTPUT}" cpu_out)
    e2e_same_text("with the GPU on" "the library" "${lib_out}" "on the CPU alone" "${cpu_out}")
endif()

# the split listings, line by line
foreach(side ref lib)
    string(REGEX MATCHALL "## SPLIT #[^\n]*" ${side}_listing "${${side}_err}")
    list(LENGTH ${side}_listing ${side}_count)
endforeach()
if(NOT ref_count EQUAL lib_count)
    message(FATAL_ERROR "the reference listed ${ref_count} splits, the library ${lib_count}")
endif()
if(ref_count EQUAL 0)
    message(FATAL_ERROR "no split listing (WSP_GGML_SCHED_DEBUG=1):\n${ref_err}")
endif()
if(NOT ref_listing STREQUAL lib_listing)
    math(EXPR last "${ref_count} - 1")
    foreach(i RANGE ${last})
        list(GET ref_listing ${i} a)
        list(GET lib_listing ${i} b)
        if(NOT a STREQUAL b)
            message(FATAL_ERROR "split listings differ at split ${i} of ${ref_count}:\n  reference: ${a}\n  library:   ${b}")
        endif()
    endforeach()
    message(FATAL_ERROR "split listings differ")
endif()

line_of(ref_splits splits "${ref_err}")
line_of(lib_splits splits "${lib_err}")
if(NOT ref_splits STREQUAL lib_splits)
    message(FATAL_ERROR "the layers split whisper's graphs differently:\n  library:   ${lib_splits}\n  reference: ${ref_splits}")
endif()
string(REGEX MATCH "backends=([^ ]*)" _ "${lib_splits}")
set(backends "${CMAKE_MATCH_1}")
string(REGEX MATCH "(^|,)${GPU}:([0-9]+)" _ "${backends}")
set(gpu_splits "${CMAKE_MATCH_2}")
string(REGEX MATCH "(^|,)CPU:([0-9]+)" _ "${backends}")
set(cpu_splits "${CMAKE_MATCH_2}")
if(NOT gpu_splits GREATER 0)
    message(FATAL_ERROR "no split of whisper's graphs ran on ${GPU}: ${lib_splits}")
endif()
if(WITH_CPU AND NOT cpu_splits GREATER 0)
    message(FATAL_ERROR "whisper's graphs were not split between ${GPU} and the CPU: ${lib_splits}")
endif()
if(NOT cpu_splits)
    set(cpu_splits 0)
endif()
# the stand-in did compute, the same graphs and nodes (and for Metal, node reorderings) through both layers
set(ref_computed "")
set(lib_computed "")
if(DEFINED COUNTER)
    foreach(side ref lib)
        string(REGEX MATCH "(${COUNTER}): [^\n]*" line "${${side}_err}")
        string(REGEX MATCH "computes=([0-9]+)" _ "${line}")
        if(NOT CMAKE_MATCH_1 GREATER 0)
            message(FATAL_ERROR "${GPU} computed nothing (${side}): ${line}")
        endif()
        set(${side}_computed "${line}")
    endforeach()
    if(NOT ref_computed STREQUAL lib_computed)
        message(FATAL_ERROR "the GPU computed different work:\n  reference: ${ref_computed}\n  library:   ${lib_computed}")
    endif()
endif()

string(STRIP "${lib_out}" text)
math(EXPR ref_ms "(${t1} - ${t0}) / 1000")
math(EXPR lib_ms "(${t2} - ${t1}) / 1000")
message(STATUS "identical transcripts (flash attention ${FLASH_ATTN}, ${THREADS} threads): ${text}")
message(STATUS "identical split listings: ${ref_count} splits, ${gpu_splits} on ${GPU}, ${cpu_splits} on the CPU")
message(STATUS "splits: ${lib_splits}")
message(STATUS "reference ${ref_ms} ms ${ref_computed}; library ${lib_ms} ms ${lib_computed}")
