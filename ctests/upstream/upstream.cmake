# llama.cpp's own test programs, for plain ggml (the package's tests/ beside its cpp/:
# scripts/fetch/fetch-reference.sh llama-cpp-python@VERSION), unchanged, each built three times:
# with upstream's own backend layer (<test>.ref), and with this library statically (<test>.rs) and
# shared (<test>.rs-so). Every build must exit 0, and the library's must print what upstream's
# prints (ctests/compare.cmake). The programs, and why these:
#   test-alloc        ggml-alloc over a backend of its own (buffer types with a maximum size,
#                     several chunks): the layer's buffers under its allocator
#   test-opt          ggml-opt training and evaluating on every device of the registry: the
#                     scheduler, graph copies, buffers and tensor access
#   test-gguf         GGUF files written and read back, with tensor data through backend buffers
#   test-backend-ops  the CPU backend's ops against its reference implementation
#                     (ggml_backend_cpu_set_use_ref) through graph copy and
#                     compare_graph_backend, and their gradients against finite differences;
#                     an op subset that fits CI (UPSTREAM_BACKEND_OPS_TEST, _GRAD; the full run by hand:
#                     test-backend-ops.ref and .rs with "test -b CPU" and "grad -b CPU"); and
#                     every case's supports_op through the device ("support", all ops: 0.2 s).
#                     With GGMLRS_VULKAN also ggml-vulkan's ops (Mesa's lavapipe) against the
#                     CPU's, through both layers built with Vulkan in: an op subset that fits CI
#                     (UPSTREAM_BACKEND_OPS_VULKAN; the full run by hand: test-backend-ops.ref-vulkan
#                     and .rs-vulkan with "test -b Vulkan0" and the environment of
#                     scripts/fetch/fetch-vulkan.sh --environment).
#                     Its perf mode prints times, nothing to compare.
# The others of tests/ do not reach the backend layer (test-quantize-fns, test-rope: the CPU's
# kernels directly) or need llama.cpp's common library, a tokenizer or a model file.

# (a case of the test mode costs 10 to 50 ms here, and there are thousands of cases: MUL_MAT
# alone has 1,193; the gradients are cheaper, but in-place cases of SCALE, SOFT_MAX, RMS_NORM and
# SET_ROWS abort in ggml.c's backward pass and CPY's fail, through upstream's layer as through
# this one)
set(UPSTREAM_BACKEND_OPS_TEST "SCALE,SET_ROWS"
    CACHE STRING "the ops llama.cpp's test-backend-ops compares with the CPU's reference implementation in the C suite")
set(UPSTREAM_BACKEND_OPS_GRAD "ADD,MUL,CONCAT,GET_ROWS"
    CACHE STRING "the ops whose gradients llama.cpp's test-backend-ops checks in the C suite")
set(UPSTREAM_BACKEND_OPS_VULKAN "ADD,SCALE,SET_ROWS,RMS_NORM"
    CACHE STRING "the ops llama.cpp's test-backend-ops compares between Vulkan and the CPU in the C suite")
set(_upstream_tests "${WSP_PACKAGE_CPP}/../tests")

# _upstream_program(<test> <layer>): the target <test>.<layer> from tests/<test>.cpp
function(_upstream_program test layer)
    set(target ${test}.${layer})
    add_executable(${target} "${_upstream_tests}/${test}.cpp")
    set_target_properties(${target} PROPERTIES CXX_STANDARD 17)
    target_include_directories(${target} PRIVATE "${WSP_PACKAGE_CPP}")
    wsp_link_layer(${target} ${layer})
endfunction()

# <key>|<test>|<arguments>: the runs compared
set(_upstream_runs
    "alloc|test-alloc|"
    "opt|test-opt|"
    "gguf|test-gguf|"
    "backend_ops.test|test-backend-ops|test -b CPU -o ${UPSTREAM_BACKEND_OPS_TEST}"
    "backend_ops.grad|test-backend-ops|grad -b CPU -o ${UPSTREAM_BACKEND_OPS_GRAD}"
    "backend_ops.support|test-backend-ops|support -b CPU")
foreach(test test-alloc test-opt test-gguf test-backend-ops)
    foreach(layer ref rs rs-so)
        _upstream_program(${test} ${layer})
    endforeach()
    # the lean suite: the reference's run and the static build's
    add_dependencies(wsp_lean_tests ${test}.ref ${test}.rs)
endforeach()
foreach(run IN LISTS _upstream_runs)
    string(REPLACE "|" ";" fields "${run}")
    list(POP_FRONT fields key test)
    separate_arguments(args UNIX_COMMAND "${fields}")
    wsp_record(upstream.${key} $<TARGET_FILE:${test}.ref> ARGS ${args})
    foreach(layer rs rs-so)
        wsp_compare_with_record(upstream.${key}.${layer} upstream.${key} $<TARGET_FILE:${test}.${layer}> ARGS ${args})
    endforeach()
    set_tests_properties(record.upstream.${key} upstream.${key}.rs PROPERTIES LABELS lean)
endforeach()
if(GGMLRS_VULKAN)
    foreach(layer ref-vulkan rs-vulkan)
        _upstream_program(test-backend-ops ${layer})
    endforeach()
    add_dependencies(wsp_lean_tests test-backend-ops.ref-vulkan test-backend-ops.rs-vulkan)
    # SET_ROWS into quantized types left out: the test draws its data at random and lets a
    # quantized row round only about one step apart from the CPU's (README, "Plain ggml")
    set(args test -b Vulkan0 -o ${UPSTREAM_BACKEND_OPS_VULKAN} -p "^(?!.*type_dst=(?!f32|f16|bf16))")
    wsp_record(upstream.backend_ops.vulkan $<TARGET_FILE:test-backend-ops.ref-vulkan> ARGS ${args}
               ENVIRONMENT "${WSP_VULKAN_TEST_ENVIRONMENT}")
    wsp_compare_with_record(upstream.backend_ops.vulkan.rs upstream.backend_ops.vulkan
                            $<TARGET_FILE:test-backend-ops.rs-vulkan> ARGS ${args}
                            ENVIRONMENT "${WSP_VULKAN_TEST_ENVIRONMENT}")
    # alone: lavapipe's threads and the CPU backend's, which wait spinning, slow down tenfold on
    # cores another test holds
    set_tests_properties(record.upstream.backend_ops.vulkan upstream.backend_ops.vulkan.rs PROPERTIES
                         LABELS lean TIMEOUT 1200 RUN_SERIAL ON)
endif()
