# Tests that compare a program's stdout with a reference run, where several tests share the
# reference run: it runs once, as the setup test record.<key> (a ctest fixture), and every test
# that needs it reads what it printed. Included by examples/ and ctests/.
include_guard(GLOBAL)
# (the functions are global, but variables would belong to the first includer's folder)
file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/recorded")

# wsp_record(<key> <program> [ARGS args...] [ENVIRONMENT vars...] [PROCESSORS n] [REQUIRE file]):
# the test record.<key> runs the program (it must exit 0) and keeps its stdout as <key>.out. A key
# already recorded in this folder is left as it is, so every test that needs a record may ask.
function(wsp_record key program)
    if(TEST record.${key})
        return()
    endif()
    cmake_parse_arguments(arg "" "PROCESSORS;REQUIRE" "ARGS;ENVIRONMENT" ${ARGN})
    set(require "")
    if(arg_REQUIRE)
        set(require "-DREQUIRE=${arg_REQUIRE}")
    endif()
    add_test(NAME record.${key}
             COMMAND "${CMAKE_COMMAND}" "-DEXPECTED=${program}" "-DARGS=${arg_ARGS}" ${require}
                     "-DRECORD=${PROJECT_BINARY_DIR}/recorded/${key}.out" "-DRUNNER=${CMAKE_CROSSCOMPILING_EMULATOR}"
                     -P "${PROJECT_SOURCE_DIR}/ctests/compare.cmake")
    set_tests_properties(record.${key} PROPERTIES FIXTURES_SETUP record.${key} ENVIRONMENT "${arg_ENVIRONMENT}")
    if(arg_PROCESSORS)
        set_tests_properties(record.${key} PROPERTIES PROCESSORS ${arg_PROCESSORS})
    endif()
endfunction()

# wsp_record_file(<var> <key>): the file record.<key> writes
function(wsp_record_file var key)
    set(${var} "${PROJECT_BINARY_DIR}/recorded/${key}.out" PARENT_SCOPE)
endfunction()

# wsp_compare_with_record(<test> <key> <program> [ARGS args...] [WRAPPER command...]
#                         [ENVIRONMENT vars...] [PROCESSORS n] [REQUIRE file]):
# the test <test> runs the program (through WRAPPER) and compares its stdout with record.<key>'s
# (compare.cmake's rules).
function(wsp_compare_with_record test key program)
    cmake_parse_arguments(arg "" "PROCESSORS;REQUIRE" "ARGS;WRAPPER;ENVIRONMENT" ${ARGN})
    set(require "")
    if(arg_REQUIRE)
        set(require "-DREQUIRE=${arg_REQUIRE}")
    endif()
    add_test(NAME ${test}
             COMMAND "${CMAKE_COMMAND}" "-DEXPECTED_OUTPUT=${PROJECT_BINARY_DIR}/recorded/${key}.out" "-DACTUAL=${program}"
                     "-DARGS=${arg_ARGS}" "-DWRAPPER=${arg_WRAPPER}" ${require}
                     "-DRUNNER=${CMAKE_CROSSCOMPILING_EMULATOR}" -P "${PROJECT_SOURCE_DIR}/ctests/compare.cmake")
    set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED record.${key} ENVIRONMENT "${arg_ENVIRONMENT}")
    if(arg_PROCESSORS)
        set_tests_properties(${test} PROPERTIES PROCESSORS ${arg_PROCESSORS})
    endif()
endfunction()
