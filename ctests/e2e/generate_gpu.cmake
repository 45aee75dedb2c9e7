# cmake -DLIBRARY=<program> -DREFERENCE=<program> -DGPU=<backend name> -DMODEL=<model>
#       -DMACRO_PREFIX=<the package's, LM_> [-DCOUNTER=<regex>] [-DCPU=<program>] -P generate_gpu.cmake
# llama.cpp with a built-in GPU backend offloading every layer (examples/generate), linked with
# this library (LIBRARY) and with the package's layer built with the same backend (REFERENCE):
# both must print the same device listing, tokens and logits' bits, and the same split listings
# (<PREFIX>GGML_SCHED_DEBUG=1); the GPU must have run splits of every graph, and at least as many as
# the CPU. Where the GPU is a stand-in that computes as the CPU does (the Metal stand-in):
#   COUNTER  its line on stderr: the same graphs, nodes and reorderings through both layers
#   CPU      generate built without the GPU: its tokens and logits' bits must be the same
include("${CMAKE_CURRENT_LIST_DIR}/e2e_util.cmake")
e2e_require(generate_gpu.cmake VARIABLES LIBRARY REFERENCE GPU MODEL MACRO_PREFIX FILES MODEL)

set(ENV{${MACRO_PREFIX}GGML_SCHED_DEBUG} 1)
set(generation -t 1 -n 8 "${MODEL}")
set(args --devices --splits ${generation})
run(ref "${REFERENCE}" ${args})
run(lib "${LIBRARY}" ${args})
if(NOT lib_out STREQUAL ref_out)
    message(FATAL_ERROR "on ${GPU} the layers print differently:\n--- reference\n${ref_out}--- library\n${lib_out}")
endif()
if(NOT lib_out MATCHES "device [0-9]+: ${GPU} type=GPU")
    message(FATAL_ERROR "no ${GPU} device listed:\n${lib_out}")
endif()

e2e_same_splits(llama.cpp ${GPU} ON "${ref_err}" "${lib_err}")
string(REGEX MATCH " graphs=([0-9]+)" _ "${splits_line}")
set(graphs ${CMAKE_MATCH_1})
if(gpu_splits LESS graphs OR gpu_splits LESS cpu_splits)
    message(FATAL_ERROR "${GPU} did not run most of llama.cpp's graphs (${graphs} graphs): ${splits_line}")
endif()
if(DEFINED CPU)
    run(cpu "${CPU}" ${generation})
    string(REGEX REPLACE "(^|\n)device[^\n]*" "" lib_generated "${lib_out}")
    string(STRIP "${lib_generated}" lib_generated)
    string(STRIP "${cpu_out}" cpu_generated)
    if(NOT lib_generated STREQUAL cpu_generated)
        message(FATAL_ERROR "on ${GPU} llama.cpp generates otherwise than on the CPU alone:\n--- CPU\n${cpu_generated}\n--- ${GPU}\n${lib_generated}")
    endif()
endif()
set(computed "")
if(DEFINED COUNTER)
    e2e_same_counter(computed "${COUNTER}" ${GPU} "${ref_err}" "${lib_err}")
endif()

string(REGEX MATCHALL "(^|\n)token [0-9]+:" tokens "${lib_out}")
list(LENGTH tokens count)
set(also "")
if(DEFINED CPU)
    set(also ", the CPU alone's too")
endif()
message(STATUS "identical output of both layers on ${GPU}: the devices, ${count} tokens and their logits${also}")
message(STATUS "identical split listings: ${split_count} splits, ${gpu_splits} on ${GPU}, ${cpu_splits} on the CPU")
message(STATUS "splits: ${splits_line}")
message(STATUS "${computed}")
