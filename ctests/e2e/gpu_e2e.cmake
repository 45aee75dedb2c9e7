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

e2e_same_splits(whisper ${GPU} "${WITH_CPU}" "${ref_err}" "${lib_err}")
set(computed "")
if(DEFINED COUNTER)
    e2e_same_counter(computed "${COUNTER}" ${GPU} "${ref_err}" "${lib_err}")
endif()

string(STRIP "${lib_out}" text)
math(EXPR ref_ms "(${t1} - ${t0}) / 1000")
math(EXPR lib_ms "(${t2} - ${t1}) / 1000")
message(STATUS "identical transcripts (flash attention ${FLASH_ATTN}, ${THREADS} threads): ${text}")
message(STATUS "identical split listings: ${split_count} splits, ${gpu_splits} on ${GPU}, ${cpu_splits} on the CPU")
message(STATUS "splits: ${splits_line}")
message(STATUS "reference ${ref_ms} ms; library ${lib_ms} ms; ${computed}")
