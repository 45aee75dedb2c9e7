# examples/generate, built from llama.rn's own sources (llama.cpp and its models, ggml core, the
# CPU backend; unchanged) in three flavours:
#   generate          linked statically with this library
#   generate-shared   linked with libwsp_ggml_backend.so (found through the rpath)
#   generate-ref      linked with llama.rn's own backend layer, for comparison
# Each carries the ACCEL fixture (--accel-fixture) and, with ggml's RPC backend, takes --rpc. Built as
# llama.rn builds for iOS (cmake/package_metal.cmake: Metal over the stand-in, BLAS where there is a
# CBLAS), two more: generate-metal with this library, generate-ref-metal with llama.rn's layer.

file(GLOB _llama_sources CONFIGURE_DEPENDS "${WSP_PACKAGE_CPP}/llama*.cpp" "${WSP_PACKAGE_CPP}/unicode*.cpp"
     "${WSP_PACKAGE_CPP}/models/*.cpp")
add_library(wsp_llama_rn_llama STATIC ${_llama_sources})
wsp_package_options(wsp_llama_rn_llama)
# what upstream's CMake build defines for llama_version() (llama.rn's sources have no such call)
wsp_unknown_version(wsp_llama_rn_llama "${WSP_PACKAGE_CPP}/llama.cpp" llama-version.h LLAMA)

wsp_example(generate generate/generate.cpp
    "$<LINK_GROUP:RESCAN,wsp_llama_rn_llama,wsp_ggml_backend_static,wsp_package_core>")
wsp_example(generate-shared generate/generate.cpp wsp_llama_rn_llama wsp_ggml_backend_shared wsp_package_core)
wsp_example(generate-ref generate/generate.cpp
    "$<LINK_GROUP:RESCAN,wsp_llama_rn_llama,wsp_package_reference,wsp_package_core>")
if(TARGET wsp_package_reference_metal)
    wsp_example(generate-metal generate/generate.cpp
        "$<LINK_GROUP:RESCAN,wsp_llama_rn_llama,wsp_ggml_backend_metal_static,wsp_package_metal,wsp_package_core>")
    wsp_example(generate-ref-metal generate/generate.cpp
        "$<LINK_GROUP:RESCAN,wsp_llama_rn_llama,wsp_package_reference_metal,wsp_package_metal,wsp_package_core>")
endif()

# End to end, with the synthetic model of scripts/models/make-llama-model.py (scripts/setup.sh makes it):
# the Rust-linked builds must print exactly the reference build's device listing, tokens and the
# bits of their logits, at 1 and 2 threads.
if(GGMLRS_TESTS)
    set(WSP_LLAMA_MODEL "${_model_dir}/llama-synthetic.gguf" CACHE FILEPATH
        "synthetic llama model for the end-to-end tests (scripts/models/make-llama-model.sh)")
    # llama.cpp and the layer in a shared library of their own (ctests/two_copies)
    wsp_example_side(generate-side generate/generate.cpp generate_main PROGRAM generate
        ARGS --devices -t 1 -n 8 ${WSP_LLAMA_MODEL}
        LIBRARIES "$<LINK_GROUP:RESCAN,wsp_llama_rn_llama,wsp_ggml_backend_static,wsp_package_core>")
    set(_generate_env "${WSP_PACKAGE_MACRO}GGML_NO_BACKTRACE=1")
    foreach(threads 1 2)
        set(args --devices -t ${threads} ${WSP_LLAMA_MODEL})
        wsp_record(generate.t${threads} $<TARGET_FILE:generate-ref> ARGS ${args} ENVIRONMENT ${_generate_env}
                   PROCESSORS ${threads} REQUIRE ${WSP_LLAMA_MODEL})
        foreach(build generate generate-shared)
            wsp_compare_with_record(generate.t${threads}.${build} generate.t${threads} $<TARGET_FILE:${build}>
                                    ARGS ${args} ENVIRONMENT ${_generate_env} PROCESSORS ${threads}
                                    REQUIRE ${WSP_LLAMA_MODEL})
        endforeach()
    endforeach()
    set_tests_properties(generate.t1.generate PROPERTIES LABELS lean)

    # llama.cpp offloading every layer to the ACCEL fixture, its graphs split with the CPU
    # (ctests/e2e/generate_accel.cmake): with each op set, both layers print the same bits and
    # ACCEL computes the same splits
    foreach(ops few default almost-all)
        add_test(NAME generate_accel.${ops}
                 COMMAND "${CMAKE_COMMAND}" -DLIBRARY=$<TARGET_FILE:generate> -DREFERENCE=$<TARGET_FILE:generate-ref>
                         -DOPS=${ops} -DMODEL=${WSP_LLAMA_MODEL} -P "${PROJECT_SOURCE_DIR}/ctests/e2e/generate_accel.cmake")
        set_tests_properties(generate_accel.${ops} PROPERTIES ENVIRONMENT "${_generate_env}" TIMEOUT 600)
    endforeach()
    set_tests_properties(generate_accel.default PROPERTIES LABELS lean)

    # the static build on ACCEL + CPU under memcheck (a few tokens)
    find_program(VALGRIND valgrind)
    if(VALGRIND AND NOT GGMLRS_SANITIZE AND NOT CMAKE_CROSSCOMPILING)
        add_test(NAME memcheck.generate.accel
                 COMMAND "${VALGRIND}" --tool=memcheck --error-exitcode=99 --leak-check=full
                         --errors-for-leak-kinds=definite --suppressions=${PROJECT_SOURCE_DIR}/ctests/valgrind.supp
                         $<TARGET_FILE:generate> -n 4 --accel-fixture default "${WSP_LLAMA_MODEL}")
        set_tests_properties(memcheck.generate.accel PROPERTIES ENVIRONMENT "${_generate_env}" TIMEOUT 600)
    endif()

    # llama.rn issue #389: a K cache of a type the accelerator cannot write (bf16: the synthetic
    # model's heads of 16 take no 32-element quantized block) in memory the CPU cannot use (ACCEL
    # in device memory): the reference aborts when llama.cpp first splits its graphs; through this
    # library llama_init_from_model returns NULL, and the same process, the model loaded again on
    # the CPU alone, generates what a fresh process does (wsp_refused_then_cpu; 2 tokens a round)
    foreach(build generate generate-shared)
        wsp_refused_then_cpu(${build} generate-ref ACCEL --accel-fixture default:device-memory --fail-then-cpu
                             ARGS -t 1 -n 2 --cache-type-k bf16 ${WSP_LLAMA_MODEL}
                             REQUIRE ${WSP_LLAMA_MODEL} ENVIRONMENT ${_generate_env})
    endforeach()
endif()

# The out-of-memory sweep (ctests/oom/llama_faults.cpp, ctests/fixtures/fault_sweep.h): a
# llama.cpp context's creation and generation with each of the library's allocations failing in
# turn, linked with the library's count-allocations build (which can fail them).
if(GGMLRS_TESTS)
    wsp_example(llama-faults ../ctests/oom/llama_faults.cpp
        "$<LINK_GROUP:RESCAN,wsp_llama_rn_llama,wsp_ggml_backend_alloc_count_static,wsp_package_core>")
    # its functions named in a crash's backtrace (fault_sweep.h tells the caller's crashes apart)
    set_target_properties(llama-faults PROPERTIES ENABLE_EXPORTS ON)
    add_test(NAME oom.llama COMMAND llama-faults "${WSP_LLAMA_MODEL}")
    set_tests_properties(oom.llama PROPERTIES ENVIRONMENT "${_generate_env}" TIMEOUT 1200)
endif()
