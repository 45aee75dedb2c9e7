# cmake -DLIBRARY=<transcribe built with this library> -DREFERENCE=<transcribe-ref> -DOPS=<op set>
#       -DTHREADS=<n> [-DWINDOW=--audio-ctx;<frames>] -DMODEL=<model> -DAUDIO=<wav>
#       -DCPU_OUTPUT=<file> -P e2e_accel.cmake
# whisper on the ACCEL fixture and the CPU (examples/transcribe --accel-fixture OPS): the
# library's transcript must be the CPU alone's (what LIBRARY printed with the same settings and
# no fixture, recorded in CPU_OUTPUT by a setup test), and the reference layer's on the same fixture
# must be the same; both layers must plan the same splits for every graph (counted from the
# WSP_GGML_SCHED_DEBUG listing), and ACCEL must have computed some of them.
include("${CMAKE_CURRENT_LIST_DIR}/e2e_util.cmake")
e2e_require(e2e_accel.cmake VARIABLES LIBRARY REFERENCE OPS THREADS MODEL AUDIO CPU_OUTPUT
            FILES MODEL AUDIO CPU_OUTPUT)

set(common -q -t ${THREADS} ${WINDOW})
file(READ "${CPU_OUTPUT}" cpu_out)

set(ENV{WSP_GGML_SCHED_DEBUG} 1)
set(accel_args ${common} --accel-fixture ${OPS} --splits "${MODEL}" "${AUDIO}")
run(lib "${LIBRARY}" ${accel_args})
run(ref "${REFERENCE}" ${accel_args})

e2e_same_text("on ACCEL+CPU" "the library" "${lib_out}" "on the CPU alone" "${cpu_out}")
e2e_same_text("on ACCEL+CPU" "the reference" "${ref_out}" "the library" "${lib_out}")

line_of(lib_splits splits "${lib_err}")
line_of(ref_splits splits "${ref_err}")
if(NOT lib_splits STREQUAL ref_splits)
    message(FATAL_ERROR "the layers split whisper's graphs differently:\n  library:   ${lib_splits}\n  reference: ${ref_splits}")
endif()
line_of(lib_accel accel "${lib_err}")
string(REGEX MATCH "computes=([0-9]+)" _ "${lib_accel}")
if(NOT CMAKE_MATCH_1 GREATER 0)
    message(FATAL_ERROR "ACCEL computed nothing: ${lib_accel}")
endif()
string(REGEX MATCH "accel_splits=([0-9]+)" _ "${lib_splits}")
set(accel_splits ${CMAKE_MATCH_1})
string(REGEX MATCH " splits=([0-9]+)" _ "${lib_splits}")
if(NOT CMAKE_MATCH_1 GREATER accel_splits)
    message(FATAL_ERROR "no graph was split between ACCEL and the CPU: ${lib_splits}")
endif()

string(STRIP "${lib_out}" text)
message(STATUS "identical transcripts (CPU alone, ACCEL+CPU with the library and the reference): ${text}")
message(STATUS "splits (both layers): ${lib_splits}")
message(STATUS "${lib_accel}")
