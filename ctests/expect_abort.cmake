# cmake -DPROGRAM=<program> -DMESSAGE=<text> [-DMACRO_PREFIX=LM_] [-DRUNNER=emulator;args] -P expect_abort.cmake
# The program must abort (a signal, not an exit code) with MESSAGE in what it writes to stderr.
if(NOT DEFINED MACRO_PREFIX)
    set(MACRO_PREFIX WSP_)
endif()
set(ENV{${MACRO_PREFIX}GGML_NO_BACKTRACE} 1)
execute_process(COMMAND ${RUNNER} "${PROGRAM}" ERROR_VARIABLE err RESULT_VARIABLE rc)
# execute_process reports a signal as text ("Child aborted" or similar), an exit as a number.
if(rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${PROGRAM}: expected an abort, got exit code ${rc}:\n${err}")
endif()
string(FIND "${err}" "${MESSAGE}" at)
if(at EQUAL -1)
    message(FATAL_ERROR "${PROGRAM}: aborted (${rc}) without '${MESSAGE}':\n${err}")
endif()
message(STATUS "aborted with '${MESSAGE}'")
