# cmake -DPROGRAM=<loading> -DSCENARIO=<name> -DMODULES=<dir> -DWORK=<dir> [-DOPS=<n>]
#       [-DWRAPPER=<valgrind;args>] [-DMACRO_PREFIX=LM_] [-DRUNNER=emulator;args] -P loading.cmake
# Runs one scenario of ctests/registry/loading.c in a fresh work directory: it must exit 0 and
# print "PASS <scenario>" (or "SKIP <scenario>: ..."), and, under valgrind, report no errors.
if(EXISTS "${WORK}")
    # a previous run may have left a chmod 000 directory behind
    execute_process(COMMAND chmod -R u+rwx "${WORK}")
    file(REMOVE_RECURSE "${WORK}")
endif()
file(MAKE_DIRECTORY "${WORK}")
if(NOT DEFINED MACRO_PREFIX)
    set(MACRO_PREFIX WSP_)
endif()
unset(ENV{${MACRO_PREFIX}GGML_BACKEND_PATH})
execute_process(COMMAND ${RUNNER} ${WRAPPER} "${PROGRAM}" "${SCENARIO}" "${MODULES}" "${WORK}" ${OPS}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${SCENARIO} failed (${rc})\n--- stdout\n${out}--- stderr\n${err}")
endif()
if(NOT out MATCHES "(^|\n)(PASS ${SCENARIO}|SKIP ${SCENARIO}:[^\n]*)\n")
    message(FATAL_ERROR "${SCENARIO} did not report PASS or SKIP\n--- stdout\n${out}--- stderr\n${err}")
endif()
if(WRAPPER AND NOT err MATCHES "ERROR SUMMARY: 0 errors")
    message(FATAL_ERROR "${SCENARIO}: valgrind reported errors\n${err}")
endif()
string(REGEX MATCH "(PASS|SKIP) ${SCENARIO}[^\n]*" verdict "${out}")
string(REGEX MATCH "threads: [0-9]+ operations[^\n]*" threads "${out}")
string(REGEX MATCH "ERROR SUMMARY[^\n]*" summary "${err}")
message(STATUS "${verdict} ${threads} ${summary}")
