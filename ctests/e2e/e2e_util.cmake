# Helpers of the end-to-end test scripts (e2e_accel.cmake, gpu_e2e.cmake), for cmake -P.

# e2e_require(<script> VARIABLES <name>... FILES <name>...): every -D<name> given, every file there
function(e2e_require script)
    cmake_parse_arguments(arg "" "" "VARIABLES;FILES" ${ARGN})
    foreach(var IN LISTS arg_VARIABLES)
        if(NOT DEFINED ${var})
            message(FATAL_ERROR "${script}: -D${var}=... is missing")
        endif()
    endforeach()
    foreach(file IN LISTS arg_FILES)
        if(NOT EXISTS "${${file}}")
            message(FATAL_ERROR "${${file}} is missing: run scripts/setup.sh first")
        endif()
    endforeach()
endfunction()

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

# e2e_same_text(<setting> <who> <text> <whom> <other text>): fails unless the two transcripts match
function(e2e_same_text setting who text whom other)
    if(NOT text STREQUAL other)
        message(FATAL_ERROR "${setting}, ${who} heard\n  ${text}but ${whom}\n  ${other}")
    endif()
endfunction()
