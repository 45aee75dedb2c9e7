# cmake -DLIBRARY=<example built with this library> -DREFERENCE=<the same built with the reference layer>
#       -DARGS=<its arguments, with --accel-fixture OPS:device-memory --fail-then-cpu> -DCPU_OUTPUT=<file>
#       [-DWRAPPER=<command the library's run goes through, such as valgrind's memcheck>]
#       [-DPREFIX=<the package's prefix of ggml's names: wsp_, lm_; none for plain ggml>]
#       -P refused_then_cpu.cmake
# An accelerator whose memory the CPU cannot use, holding a tensor (a KV cache) that a graph
# writes with an op the accelerator refuses (issue 42; llama.rn issue #389), so that the graph can
# run nowhere. The reference layer aborts the app with "pre-allocated tensor (T) in a buffer (B)
# that cannot run the operation (OP)". Through this library the example's context creation fails
# instead (the example says "fail-then-cpu: ... returned NULL"): the scheduler logged that very
# reason, with the backends it tried, once; the accelerator computed nothing; and then, in the same
# process, without the accelerator, the example prints exactly what a fresh process on the CPU
# alone prints (CPU_OUTPUT, the library's own run recorded by a setup test).
include("${CMAKE_CURRENT_LIST_DIR}/e2e_util.cmake")
e2e_require(refused_then_cpu.cmake VARIABLES LIBRARY REFERENCE ARGS CPU_OUTPUT FILES CPU_OUTPUT)

execute_process(COMMAND "${REFERENCE}" ${ARGS} OUTPUT_VARIABLE ref_out ERROR_VARIABLE ref_err RESULT_VARIABLE ref_rc)
# execute_process reports a signal as text, an exit as a number
if(ref_rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "the reference layer was expected to abort, it exited with ${ref_rc}:\n${ref_err}")
endif()
# (tensor names may hold parentheses: whisper's V cache update is "( (view) (copy of  (reshaped) (transposed)))")
string(REGEX MATCH "pre-allocated tensor \\([^\n]*\\) in a buffer \\([^\n()]*\\) that cannot run the operation \\([A-Z0-9_]+\\)"
       reason "${ref_err}")
if(reason STREQUAL "")
    message(FATAL_ERROR "the reference layer aborted (${ref_rc}) for another reason than a pre-allocated tensor:\n${ref_err}")
endif()

execute_process(COMMAND ${WRAPPER} "${LIBRARY}" ${ARGS} OUTPUT_VARIABLE lib_out ERROR_VARIABLE lib_err RESULT_VARIABLE lib_rc)
if(NOT lib_rc STREQUAL "0")
    message(FATAL_ERROR "${WRAPPER} ${LIBRARY} ${ARGS} failed (${lib_rc}):\n${lib_err}")
endif()

# the scheduler's line: "<PREFIX>ggml_backend_sched_<export>: <reason>; backends tried: ACCEL, CPU; ..."
set(logged "${reason}; backends tried: ACCEL, CPU; the graph is not run\n")
set(count 0)
set(rest "${lib_err}")
string(FIND "${rest}" "${logged}" at)
while(at GREATER -1)
    math(EXPR count "${count} + 1")
    string(SUBSTRING "${rest}" 0 ${at} before)
    string(REGEX MATCH "[^\n]*$" line_start "${before}")
    if(NOT line_start MATCHES "^${PREFIX}ggml_backend_sched_[a-z_]+: $")
        message(FATAL_ERROR "the reason is logged by '${line_start}', not by a scheduler export:\n${lib_err}")
    endif()
    string(LENGTH "${logged}" length)
    math(EXPR after "${at} + ${length}")
    string(SUBSTRING "${rest}" ${after} -1 rest)
    string(FIND "${rest}" "${logged}" at)
endwhile()
if(NOT count EQUAL 1)
    message(FATAL_ERROR "the library logged \"${logged}\" ${count} times, expected once:\n${lib_err}")
endif()

if(NOT lib_err MATCHES "(^|\n)fail-then-cpu: [^\n]* returned NULL")
    message(FATAL_ERROR "the example did not report a refused context:\n${lib_err}")
endif()
line_of(accel accel "${lib_err}")
if(NOT accel MATCHES " computes=0 ")
    message(FATAL_ERROR "the accelerator computed graphs that cannot run: ${accel}")
endif()

file(READ "${CPU_OUTPUT}" cpu_out)
if(NOT lib_out STREQUAL cpu_out)
    message(FATAL_ERROR "on the CPU after the refusal the library printed\n${lib_out}--- but a fresh process on the CPU\n${cpu_out}")
endif()
string(STRIP "${lib_out}" shown)
string(REGEX REPLACE "\n.*" " ..." shown "${shown}")
message(STATUS "the reference aborted: ${reason}")
message(STATUS "the library logged it once and refused; then, on the CPU, a fresh process's output: ${shown}")
