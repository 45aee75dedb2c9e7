# examples/transcribe, built from whisper.rn's own sources (whisper.cpp, ggml core, CPU
# backend; unchanged) in three flavours:
#   transcribe          linked statically with this library
#   transcribe-shared   linked with libwsp_ggml_backend.so (found through the rpath)
#   transcribe-ref      linked with whisper.rn's ggml-backend.cpp/-reg.cpp, for comparison
# and two built as whisper.rn builds for iOS (WSP_GGML_USE_METAL, cmake/package_metal.cmake): a
# built-in Metal backend (whisper.rn's Metal C++ over the stand-in of ctests/metal; 0.4.3: the
# ACCEL fixture) registered before the CPU, which transcribe --gpu lets whisper use:
#   transcribe-metal      linked statically with this library built with the feature metal
#   transcribe-ref-metal  linked with whisper.rn's backend layer built with WSP_GGML_USE_METAL
# and with ggml's Vulkan backend (GGMLRS_VULKAN, cmake/ggml_vulkan.cmake) built in,
# registered before the CPU, which transcribe --gpu lets whisper use:
#   transcribe-vulkan      linked statically with this library built with the feature vulkan
#   transcribe-ref-vulkan  linked with whisper.rn's backend layer built with WSP_GGML_USE_VULKAN
# With ggml's RPC backend (GGMLRS_RPC), all take --rpc, and examples/rpc adds
#   rpc-server          ggml's RPC server on whisper.rn's CPU backend, linked with this library
#   rpc-server-ref      the same, linked with whisper.rn's backend layer

add_library(wsp_whisper_rn_whisper STATIC "${WSP_PACKAGE_CPP}/whisper.cpp")
wsp_package_options(wsp_whisper_rn_whisper)

# (benches/ makes one more, transcribe-alloc-count.)
function(wsp_transcribe target)
    wsp_example(${target} transcribe/transcribe.cpp ${ARGN})
endfunction()

wsp_transcribe(transcribe
    "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper,wsp_ggml_backend_static,wsp_package_core>")
wsp_transcribe(transcribe-shared
    wsp_whisper_rn_whisper wsp_ggml_backend_shared wsp_package_core)
wsp_transcribe(transcribe-ref
    "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper,wsp_package_reference,wsp_package_core>")
wsp_transcribe(transcribe-ref-metal
    "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper_metal,wsp_package_reference_metal,wsp_package_metal,wsp_package_core>")
wsp_transcribe(transcribe-metal
    "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper_metal,wsp_ggml_backend_metal_static,wsp_package_metal,wsp_package_core>")
if(GGMLRS_VULKAN)
    wsp_transcribe(transcribe-vulkan
        "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper,wsp_ggml_backend_vulkan_static,wsp_ggml_vulkan,wsp_package_core>")
    wsp_transcribe(transcribe-ref-vulkan
        "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper,wsp_package_reference_vulkan,wsp_ggml_vulkan,wsp_package_core>")
endif()

# benches/whisper_decode.cpp, whisper's decoder token by token on the CPU, on ACCEL + CPU or on
# the built-in GPU backend + CPU, linked with whisper.cpp built as <whisper> and the libraries
# <layer...> (a benchmark program of scripts/bench.sh, and here a memcheck test): whisper.cpp's
# calls of the scheduler and the layer's calls into ggml-alloc go through timing wrappers.
function(wsp_whisper_decode target whisper)
    list(JOIN ARGN "," layer)
    add_executable(${target} "${PROJECT_SOURCE_DIR}/benches/whisper_decode.cpp"
                   "${PROJECT_SOURCE_DIR}/ctests/fixtures/accel_fixture.c")
    set_target_properties(${target} PROPERTIES CXX_STANDARD 17 C_STANDARD 11)
    target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/ctests/fixtures")
    target_compile_options(${target} PRIVATE -O2 -g -Wall -Wextra -Werror)
    target_link_libraries(${target} PRIVATE
        "$<LINK_GROUP:RESCAN,${whisper},${layer},wsp_package_core>" m pthread dl stdc++)
    target_link_options(${target} PRIVATE
        -Wl,--wrap=wsp_ggml_backend_sched_alloc_graph -Wl,--wrap=wsp_ggml_backend_sched_graph_compute
        -Wl,--wrap=wsp_ggml_backend_sched_reset
        -Wl,--wrap=wsp_ggml_gallocr_alloc_graph -Wl,--wrap=wsp_ggml_gallocr_reserve_n)
endfunction()
wsp_whisper_decode(whisper_decode wsp_whisper_rn_whisper wsp_ggml_backend_static)
wsp_whisper_decode(whisper_decode-metal wsp_whisper_rn_whisper_metal wsp_ggml_backend_metal_static wsp_package_metal)
if(GGMLRS_VULKAN)
    wsp_whisper_decode(whisper_decode-vulkan wsp_whisper_rn_whisper wsp_ggml_backend_vulkan_static wsp_ggml_vulkan)
endif()

# examples/parakeet/parakeet-tokens, whisper.rn's parakeet.cpp (NVIDIA's Parakeet TDT; releases
# from 0.7 have it) on each layer, the same three flavours as transcribe: parakeet-tokens,
# parakeet-tokens-shared, parakeet-tokens-ref; and with Vulkan built in (parakeet uses a GPU by
# default), parakeet-tokens-vulkan and parakeet-tokens-ref-vulkan.
set(WSP_WHISPER_RN_HAS_PARAKEET OFF)
if(EXISTS "${WSP_PACKAGE_CPP}/parakeet.cpp")
    set(WSP_WHISPER_RN_HAS_PARAKEET ON)
    add_library(wsp_whisper_rn_parakeet STATIC "${WSP_PACKAGE_CPP}/parakeet.cpp")
    wsp_package_options(wsp_whisper_rn_parakeet)
    function(wsp_parakeet_tokens target)
        add_executable(${target} "${PROJECT_SOURCE_DIR}/examples/parakeet/parakeet_tokens.cpp")
        set_target_properties(${target} PROPERTIES CXX_STANDARD 17)
        target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
        target_link_libraries(${target} PRIVATE ${ARGN})
    endfunction()
    wsp_parakeet_tokens(parakeet-tokens
        "$<LINK_GROUP:RESCAN,wsp_whisper_rn_parakeet,wsp_ggml_backend_static,wsp_package_core>")
    wsp_parakeet_tokens(parakeet-tokens-shared
        wsp_whisper_rn_parakeet wsp_ggml_backend_shared wsp_package_core)
    wsp_parakeet_tokens(parakeet-tokens-ref
        "$<LINK_GROUP:RESCAN,wsp_whisper_rn_parakeet,wsp_package_reference,wsp_package_core>")
    if(GGMLRS_VULKAN)
        wsp_parakeet_tokens(parakeet-tokens-vulkan
            "$<LINK_GROUP:RESCAN,wsp_whisper_rn_parakeet,wsp_ggml_backend_vulkan_static,wsp_ggml_vulkan,wsp_package_core>")
        wsp_parakeet_tokens(parakeet-tokens-ref-vulkan
            "$<LINK_GROUP:RESCAN,wsp_whisper_rn_parakeet,wsp_package_reference_vulkan,wsp_ggml_vulkan,wsp_package_core>")
    endif()
endif()

# End to end: every sample transcribed by the Rust-linked builds gives exactly the reference
# build's text, at 1 and 2 threads. scripts/setup.sh makes the model and the samples.
if(GGMLRS_TESTS)
    # Where scripts/models/make-samples.sh puts them (the same variable).
    set(_sample_dir "$ENV{HOME}/.cache/wsp-ggml-backend/samples")
    if(DEFINED ENV{WSP_SAMPLE_DIR})
        set(_sample_dir "$ENV{WSP_SAMPLE_DIR}")
    endif()
    set(WSP_MODEL "${_model_dir}/ggml-tiny.en.bin" CACHE FILEPATH "whisper model for the end-to-end tests")
    set(WSP_SAMPLE_DIR "${_sample_dir}" CACHE PATH "speech samples for the end-to-end tests")
    # whisper.rn's C++ and the layer in a shared library of their own (ctests/two_copies)
    wsp_example_side(transcribe-side transcribe/transcribe.cpp transcribe_main PROGRAM transcribe
        ARGS -q -t 1 --audio-ctx 256 ${WSP_MODEL} ${WSP_SAMPLE_DIR}/sample2.wav
        LIBRARIES "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper,wsp_ggml_backend_static,wsp_package_core>")
    # whisper encodes its full 30 s window whatever the audio: six times the work of a 5.12 s
    # window (256 frames), which holds every sample (3.4-4.7 s). The statically linked builds at 1
    # thread encode the full window, as whisper.rn does by default; the other builds, and whisper
    # split with ACCEL (but for one test), the short window: the same graphs, smaller tensors.
    set(WSP_E2E_SHORT_WINDOW --audio-ctx 256)
    # The reference build's transcript runs once for each setting (record.e2e.<sample>.t<n>.<window>)
    # and serves every build tested with that setting. PROCESSORS: ggml's threads spin while they
    # wait for each other, so a 2-thread run beside another test on 2 cores takes several times
    # as long.
    set(_e2e_env "WSP_GGML_NO_BACKTRACE=1")
    foreach(sample sample1 sample2 sample3)
        foreach(threads 1 2)
            foreach(build transcribe transcribe-shared)
                set(name e2e.${sample}.t${threads}.${build})
                set(window ${WSP_E2E_SHORT_WINDOW})
                set(key e2e.${sample}.t${threads}.short)
                if(threads EQUAL 1 AND build STREQUAL "transcribe")
                    set(window "")
                    set(key e2e.${sample}.t${threads}.full)
                endif()
                set(args -q -t ${threads} ${window} ${WSP_MODEL} ${WSP_SAMPLE_DIR}/${sample}.wav)
                wsp_record(${key} $<TARGET_FILE:transcribe-ref> ARGS ${args} ENVIRONMENT ${_e2e_env}
                           PROCESSORS ${threads} REQUIRE ${WSP_MODEL})
                wsp_compare_with_record(${name} ${key} $<TARGET_FILE:${build}> ARGS ${args}
                                        ENVIRONMENT ${_e2e_env} PROCESSORS ${threads} REQUIRE ${WSP_MODEL})
                if(name STREQUAL "e2e.sample1.t1.transcribe")
                    set_tests_properties(${name} PROPERTIES LABELS lean)
                endif()
            endforeach()
        endforeach()
    endforeach()

    # whisper split between the ACCEL fixture and the CPU (ctests/e2e/e2e_accel.cmake): every
    # sample with three op sets, statically linked at 1 thread; the shared build and 2 threads
    # on one sample (each test runs whisper three times). Only the first encodes the full window.
    # The CPU alone's transcript, which each compares with, runs once for each build and setting
    # (record.e2e_accel.cpu.<build>.<sample>.t<n>.<window>).
    function(wsp_e2e_accel sample ops threads build)
        set(name e2e_accel.${sample}.${ops}.t${threads}.${build})
        set(window ${WSP_E2E_SHORT_WINDOW})
        set(key e2e_accel.cpu.${build}.${sample}.t${threads}.short)
        if(name STREQUAL "e2e_accel.sample1.default.t1.transcribe")
            set(window "")
            set(key e2e_accel.cpu.${build}.${sample}.t${threads}.full)
        endif()
        wsp_record(${key} $<TARGET_FILE:${build}> ARGS -q -t ${threads} ${window} ${WSP_MODEL} ${WSP_SAMPLE_DIR}/${sample}.wav
                   ENVIRONMENT ${_e2e_env} PROCESSORS ${threads} REQUIRE ${WSP_MODEL})
        wsp_record_file(cpu_output ${key})
        add_test(NAME ${name}
                 COMMAND "${CMAKE_COMMAND}" -DLIBRARY=$<TARGET_FILE:${build}> -DREFERENCE=$<TARGET_FILE:transcribe-ref>
                         -DOPS=${ops} -DTHREADS=${threads} "-DWINDOW=${window}" -DMODEL=${WSP_MODEL}
                         -DAUDIO=${WSP_SAMPLE_DIR}/${sample}.wav -DCPU_OUTPUT=${cpu_output}
                         -P "${PROJECT_SOURCE_DIR}/ctests/e2e/e2e_accel.cmake")
        set_tests_properties(${name} PROPERTIES ENVIRONMENT "WSP_GGML_NO_BACKTRACE=1" TIMEOUT 600 PROCESSORS ${threads}
                             FIXTURES_REQUIRED record.${key})
    endfunction()
    foreach(sample sample1 sample2 sample3)
        foreach(ops few default almost-all)
            wsp_e2e_accel(${sample} ${ops} 1 transcribe)
        endforeach()
    endforeach()
    wsp_e2e_accel(sample1 default 1 transcribe-shared)
    wsp_e2e_accel(sample1 default 2 transcribe)
    wsp_e2e_accel(sample2 few 2 transcribe-shared)

    # whisper's decoder on ACCEL + CPU under memcheck (model loading, the prompt and 5 tokens,
    # about 20 s; a whole transcription would run the encoder under valgrind for many minutes)
    find_program(VALGRIND valgrind)
    if(VALGRIND AND NOT GGMLRS_SANITIZE AND NOT CMAKE_CROSSCOMPILING)
        add_test(NAME memcheck.whisper_decode.accel
                 COMMAND "${VALGRIND}" --tool=memcheck --error-exitcode=99 --leak-check=full
                         --errors-for-leak-kinds=definite --suppressions=${PROJECT_SOURCE_DIR}/ctests/valgrind.supp
                         $<TARGET_FILE:whisper_decode> "${WSP_MODEL}" accel:default 3)
        set_tests_properties(memcheck.whisper_decode.accel PROPERTIES ENVIRONMENT "WSP_GGML_NO_BACKTRACE=1" TIMEOUT 600)
    endif()

    # An accelerator whose memory the CPU cannot use and that refuses whisper's V cache update (a
    # CPY from a transposed view; ACCEL in device memory with every op but NORM, so that the
    # weights' ops all run there): the reference aborts; through this library whisper_init returns
    # NULL, and without the accelerator the same process transcribes as the CPU alone
    # (wsp_refused_then_cpu). Flash attention off: with it (0.5.5 and 0.7 default to on) V is
    # stored as it comes. A 0.64 s window and 8 tokens keep each run under memcheck short.
    foreach(build transcribe transcribe-shared)
        wsp_refused_then_cpu(${build} transcribe-ref ACCEL --accel-fixture almost-all:device-memory --fail-then-cpu
                             ARGS -q -t 1 --audio-ctx 32 --no-fallback --max-tokens 8 --flash-attn off ${WSP_MODEL}
                                  ${WSP_SAMPLE_DIR}/sample1.wav
                             REQUIRE ${WSP_MODEL} ENVIRONMENT ${_e2e_env})
    endforeach()

    # Parakeet: the three samples, then the first again on the context's own state (see
    # examples/parakeet), with the synthetic model of scripts/models/make-parakeet-model.py: the
    # Rust-linked builds must print exactly the reference build's tokens and probabilities, at 1
    # and 2 threads (parakeet-tokens itself fails when a clip yields no token).
    if(WSP_WHISPER_RN_HAS_PARAKEET)
        set(WSP_PARAKEET_MODEL "${_model_dir}/parakeet-synthetic.bin" CACHE FILEPATH
            "synthetic Parakeet model for the end-to-end tests (scripts/models/make-parakeet-model.py)")
        set(_parakeet_clips "${WSP_SAMPLE_DIR}/sample1.wav;${WSP_SAMPLE_DIR}/sample2.wav;${WSP_SAMPLE_DIR}/sample3.wav")
        foreach(threads 1 2)
            set(args -q -t ${threads} ${WSP_PARAKEET_MODEL} ${_parakeet_clips})
            wsp_record(parakeet.t${threads} $<TARGET_FILE:parakeet-tokens-ref> ARGS ${args} ENVIRONMENT ${_e2e_env}
                       PROCESSORS ${threads} REQUIRE ${WSP_PARAKEET_MODEL})
            foreach(build parakeet-tokens parakeet-tokens-shared)
                wsp_compare_with_record(parakeet.t${threads}.${build} parakeet.t${threads} $<TARGET_FILE:${build}>
                                        ARGS ${args} ENVIRONMENT ${_e2e_env} PROCESSORS ${threads}
                                        REQUIRE ${WSP_PARAKEET_MODEL})
            endforeach()
        endforeach()
        # the library's static build under memcheck: a clip that fits the model's audio context
        # and one that needs the dynamic encoder graph (about 15 s)
        if(VALGRIND AND NOT GGMLRS_SANITIZE AND NOT CMAKE_CROSSCOMPILING)
            add_test(NAME memcheck.parakeet
                     COMMAND "${VALGRIND}" --tool=memcheck --error-exitcode=99 --leak-check=full
                             --errors-for-leak-kinds=definite --suppressions=${PROJECT_SOURCE_DIR}/ctests/valgrind.supp
                             $<TARGET_FILE:parakeet-tokens> -q "${WSP_PARAKEET_MODEL}"
                             "${WSP_SAMPLE_DIR}/sample1.wav" "${WSP_SAMPLE_DIR}/sample2.wav")
            set_tests_properties(memcheck.parakeet PROPERTIES ENVIRONMENT "WSP_GGML_NO_BACKTRACE=1" TIMEOUT 600)
        endif()
    endif()
endif()

# The out-of-memory sweep (ctests/oom/whisper_faults.cpp, ctests/fixtures/fault_sweep.h): whisper's
# decode with each of the library's allocations failing in turn, linked with the library's
# count-allocations build (which can fail them).
if(GGMLRS_TESTS)
    wsp_example(whisper-faults ../ctests/oom/whisper_faults.cpp
        "$<LINK_GROUP:RESCAN,wsp_whisper_rn_whisper,wsp_ggml_backend_alloc_count_static,wsp_package_core>")
    # its functions named in a crash's backtrace (fault_sweep.h tells the caller's crashes apart)
    set_target_properties(whisper-faults PROPERTIES ENABLE_EXPORTS ON)
    add_test(NAME oom.whisper COMMAND whisper-faults "${WSP_MODEL}" "${WSP_SAMPLE_DIR}/sample1.wav")
    set_tests_properties(oom.whisper PROPERTIES ENVIRONMENT "WSP_GGML_NO_BACKTRACE=1" TIMEOUT 1200)
endif()
