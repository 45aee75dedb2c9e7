# cmake -DLIBRARY=<generate built with this library> -DREFERENCE=<generate-ref> -DOPS=<op set>
#       -DMODEL=<model> -P generate_accel.cmake
# llama.cpp with every layer offloaded to the ACCEL fixture (examples/generate --accel-fixture
# OPS), its graphs split with the CPU: the library must print exactly what the reference layer
# prints (the device listing with ACCEL, the tokens and their logits' bits), and ACCEL must have
# computed the same splits and nodes through both. (Not compared with the CPU alone: weights in
# ACCEL's buffers are not repacked for the CPU's kernels, which round otherwise, and the random
# model's near ties then tip some tokens the other way.)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_util.cmake")
e2e_require(generate_accel.cmake VARIABLES LIBRARY REFERENCE OPS MODEL FILES MODEL)

set(args --devices -t 1 --accel-fixture ${OPS} "${MODEL}")
run(lib "${LIBRARY}" ${args})
run(ref "${REFERENCE}" ${args})
if(NOT lib_out STREQUAL ref_out)
    message(FATAL_ERROR "on ACCEL+CPU (${OPS}) the layers print differently:\n--- reference\n${ref_out}--- library\n${lib_out}")
endif()

foreach(who lib ref)
    line_of(${who}_accel accel "${${who}_err}")
    string(REGEX MATCH "computes=([0-9]+)" _ "${${who}_accel}")
    if(NOT CMAKE_MATCH_1 GREATER 0)
        message(FATAL_ERROR "ACCEL computed nothing (${who}): ${${who}_accel}")
    endif()
endforeach()
if(NOT lib_accel STREQUAL ref_accel)
    message(FATAL_ERROR "ACCEL's work differs:\n  library:   ${lib_accel}\n  reference: ${ref_accel}")
endif()

string(REGEX MATCHALL "(^|\n)token [0-9]+:" tokens "${lib_out}")
list(LENGTH tokens count)
if(count EQUAL 0 OR NOT lib_out MATCHES "device [0-9]+: ACCEL type=GPU")
    message(FATAL_ERROR "on ACCEL+CPU (${OPS}) no tokens, or no ACCEL device listed:\n${lib_out}")
endif()
message(STATUS "identical output of both layers on ACCEL+CPU (${OPS}): the devices, ${count} tokens and their logits")
message(STATUS "${lib_accel}")
