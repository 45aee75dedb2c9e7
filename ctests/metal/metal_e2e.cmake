# cmake -DLIBRARY=<transcribe-metal> -DREFERENCE=<transcribe-ref-metal> -DGPU=<backend name>
#       -DFLASH_ATTN=on|off -DMODEL=<model> -DAUDIO=<wav> -DCPU_OUTPUT=<file> -P metal_e2e.cmake
# whisper built as for iOS (WSP_GGML_USE_METAL) with the GPU on: the built-in Metal backend (or, for
# whisper.rn 0.4.3, the ACCEL fixture in its place) is whisper's GPU. The library's and the
# reference layer's transcripts must be identical, and the CPU alone's (the library's build without
# --gpu, with the same settings, recorded in CPU_OUTPUT by a setup test); the scheduler's split listings must be identical (every "## SPLIT" line of
# WSP_GGML_SCHED_DEBUG=1: backend, inputs and their sizes, for every graph); the backend GPU must have
# computed some splits, the same graphs and nodes through both layers, and the CPU others. Extra
# environment (such as WSP_GGML_METAL_DEVICES) comes from the test. To keep it short: one thread, and the encoder's context cut to 5.12 s (all of
# sample2) with one greedy decoding pass, as the cross tests do.
include("${CMAKE_CURRENT_LIST_DIR}/../e2e/e2e_util.cmake")
e2e_require(metal_e2e.cmake VARIABLES LIBRARY REFERENCE GPU FLASH_ATTN MODEL AUDIO CPU_OUTPUT
            FILES MODEL AUDIO CPU_OUTPUT)

set(common -t 1 --audio-ctx 256 --no-fallback --flash-attn ${FLASH_ATTN})
file(READ "${CPU_OUTPUT}" cpu_out)
set(ENV{WSP_GGML_SCHED_DEBUG} 1)
set(args ${common} --gpu --splits "${MODEL}" "${AUDIO}")
string(TIMESTAMP t0 "%s%f")
run(ref "${REFERENCE}" ${args})
string(TIMESTAMP t1 "%s%f")
run(lib "${LIBRARY}" ${args})
string(TIMESTAMP t2 "%s%f")

e2e_same_text("with the GPU on" "the reference" "${ref_out}" "the library" "${lib_out}")
e2e_same_text("with the GPU on" "the library" "${lib_out}" "on the CPU alone" "${cpu_out}")

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
if(NOT gpu_splits GREATER 0 OR NOT cpu_splits GREATER 0)
    message(FATAL_ERROR "whisper's graphs were not split between ${GPU} and the CPU: ${lib_splits}")
endif()
# and the GPU did compute them (the stand-in's or the ACCEL fixture's count)
foreach(side ref lib)
    string(REGEX MATCH "(metal|accel): [^\n]*" line "${${side}_err}")
    string(REGEX MATCH "computes=([0-9]+)" _ "${line}")
    if(NOT CMAKE_MATCH_1 GREATER 0)
        message(FATAL_ERROR "${GPU} computed nothing (${side}): ${line}")
    endif()
    set(${side}_computed "${line}")
endforeach()
# the same graphs, nodes (and for Metal, node reorderings) handed to the GPU by both layers
if(NOT ref_computed STREQUAL lib_computed)
    message(FATAL_ERROR "the GPU computed different work:\n  reference: ${ref_computed}\n  library:   ${lib_computed}")
endif()

string(STRIP "${lib_out}" text)
math(EXPR ref_ms "(${t1} - ${t0}) / 1000")
math(EXPR lib_ms "(${t2} - ${t1}) / 1000")
message(STATUS "identical transcripts (reference and library with the GPU, CPU alone; flash attention ${FLASH_ATTN}): ${text}")
message(STATUS "identical split listings: ${ref_count} splits, ${gpu_splits} on ${GPU}, ${cpu_splits} on the CPU")
message(STATUS "splits: ${lib_splits}")
message(STATUS "reference ${ref_computed} (${ref_ms} ms); library ${lib_computed} (${lib_ms} ms)")
