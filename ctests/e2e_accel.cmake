# cmake -DLIBRARY=<transcribe built with this library> -DREFERENCE=<transcribe-ref> -DOPS=<op set>
#       -DTHREADS=<n> -DMODEL=<model> -DAUDIO=<wav> -P e2e_accel.cmake
# whisper on the ACCEL fixture and the CPU (examples/transcribe --accel-fixture OPS): the
# library's transcript must be the CPU alone's, and the reference layer's on the same fixture
# must be the same; both layers must plan the same splits for every graph (counted from the
# WSP_GGML_SCHED_DEBUG listing), and ACCEL must have computed some of them.
foreach(var LIBRARY REFERENCE OPS THREADS MODEL AUDIO)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "e2e_accel.cmake: -D${var}=... is missing")
    endif()
endforeach()
foreach(file MODEL AUDIO)
    if(NOT EXISTS "${${file}}")
        message(FATAL_ERROR "${${file}} is missing: run scripts/setup.sh first")
    endif()
endforeach()

# run(<prefix> <program> args...): <prefix>_out, <prefix>_err; fails unless it exits 0
function(run prefix program)
    execute_process(COMMAND "${program}" ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc STREQUAL "0")
        message(FATAL_ERROR "${program} ${ARGN} failed (${rc}):\n${err}")
    endif()
    set(${prefix}_out "${out}" PARENT_SCOPE)
    set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# the line of <text> starting with <key>: (without the key)
function(line_of var key text)
    string(REGEX MATCH "(^|\n)${key}: [^\n]*" line "${text}")
    if(line STREQUAL "")
        message(FATAL_ERROR "no \"${key}:\" line in:\n${text}")
    endif()
    string(REGEX REPLACE "^\n?${key}: " "" line "${line}")
    set(${var} "${line}" PARENT_SCOPE)
endfunction()

set(common -q -t ${THREADS})
unset(ENV{WSP_GGML_SCHED_DEBUG})
run(cpu "${LIBRARY}" ${common} "${MODEL}" "${AUDIO}")

set(ENV{WSP_GGML_SCHED_DEBUG} 1)
set(accel_args ${common} --accel-fixture ${OPS} --splits "${MODEL}" "${AUDIO}")
run(lib "${LIBRARY}" ${accel_args})
run(ref "${REFERENCE}" ${accel_args})

if(NOT lib_out STREQUAL cpu_out)
    message(FATAL_ERROR "on ACCEL+CPU the library heard\n  ${lib_out}but on the CPU alone\n  ${cpu_out}")
endif()
if(NOT ref_out STREQUAL lib_out)
    message(FATAL_ERROR "on ACCEL+CPU the reference heard\n  ${ref_out}but the library\n  ${lib_out}")
endif()

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
