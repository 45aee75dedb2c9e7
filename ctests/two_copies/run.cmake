# cmake -DPROGRAM=<two_copies> -DFIRST_PROGRAM=<example> -DFIRST_ARGS=<args> -DSECOND_PROGRAM=<example>
#       -DSECOND_ARGS=<args> -P run.cmake
# The two sides in one process print what their examples print alone: first, second, first.
foreach(side FIRST SECOND)
    execute_process(COMMAND "${${side}_PROGRAM}" ${${side}_ARGS} OUTPUT_VARIABLE ${side}_out ERROR_VARIABLE err
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${${side}_PROGRAM} ${${side}_ARGS} failed (${rc}):\n${err}")
    endif()
endforeach()
execute_process(COMMAND "${PROGRAM}" ${FIRST_ARGS} -- ${SECOND_ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} failed (${rc}):\n${err}")
endif()
set(expected "${FIRST_out}${SECOND_out}${FIRST_out}")
if(NOT out STREQUAL expected)
    message(FATAL_ERROR "in one process the two sides print otherwise than alone:\n--- alone\n${expected}--- together\n${out}")
endif()
string(LENGTH "${out}" length)
message(STATUS "one process, both copies of the library: the same ${length} bytes as three processes")
message(STATUS "${out}")
