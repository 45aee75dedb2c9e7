# The C/C++ sources of the release WSP_RELEASE (a whisper.rn or llama.rn release, fetched from npm
# by scripts/fetch/fetch-reference.sh, checked against npm's integrity, never committed) as CMake
# targets for tests and examples:
#   wsp_package_core       ggml core, ggml-alloc, ggml-opt, gguf, CPU backend (static)
#   wsp_package_reference  the package's own backend layer, the reference we compare with
#   wsp_package_base       the core WITHOUT the CPU backend, shared (libggml-core.so)
#   wsp_package_cpu_module the CPU backend's entry compiled for a loadable module (objects;
#                          a module links it with wsp_package_cpu_objects)
#   wsp_reference_layer(<name>) another build of the reference, from the same objects except
#                          ggml-backend-reg.cpp, the one source that reads <PREFIX>GGML_USE_<NAME>
# The package's macros carry its prefix (WSP_GGML_USE_CPU, LM_GGML_USE_CPU): WSP_PACKAGE_MACRO
# is it (WSP_, LM_).
set(WSP_PACKAGE_MACRO "${WSP_RELEASE_MACRO_PREFIX}")

execute_process(
    COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch/fetch-reference.sh" "${WSP_RELEASE_PACKAGE}@${WSP_RELEASE_VERSION}"
    RESULT_VARIABLE _fetch_result)
if(NOT _fetch_result EQUAL 0)
    message(FATAL_ERROR "fetching ${WSP_RELEASE} failed (npm must be reachable)")
endif()
# where scripts/fetch/fetch-reference.sh unpacks each release (whisper.rn 0.4.3 keeps its historical
# folder)
if(WSP_RELEASE STREQUAL "whisper.rn@0.4.3")
    set(_package_folder whisper.rn)
else()
    set(_package_folder ${WSP_RELEASE_PACKAGE}-${WSP_RELEASE_VERSION})
endif()
set(WSP_PACKAGE_CPP "${PROJECT_SOURCE_DIR}/third_party/${_package_folder}/cpp" CACHE INTERNAL "")

# The per-arch kernel folder and flags of the target (the "arch" lines of ggml-core-sources.txt).
file(STRINGS "${PROJECT_SOURCE_DIR}/ctests/ggml-core-sources.txt" _arch_lines REGEX "^arch +${WSP_RUST_ARCH} ")
if(NOT _arch_lines)
    message(FATAL_ERROR "ctests/ggml-core-sources.txt has no flags for the architecture '${WSP_RUST_ARCH}'")
endif()
string(REGEX REPLACE "^arch +[^ ]+ +" "" _arch_fields "${_arch_lines}")
separate_arguments(_arch_fields UNIX_COMMAND "${_arch_fields}")
list(POP_FRONT _arch_fields WSP_PACKAGE_ARCH_DIR)
set(WSP_PACKAGE_ARCH_FLAGS ${_arch_fields})

# Compile options for the package's objects: repacking buffer type on, the target's per-arch
# flags; wsp_package_options also registers the CPU backend statically.
function(wsp_package_common_options target)
    target_include_directories(${target} PUBLIC "${WSP_PACKAGE_CPP}" "${WSP_PACKAGE_CPP}/ggml-cpu")
    target_compile_definitions(${target} PRIVATE ${WSP_PACKAGE_MACRO}GGML_USE_CPU_REPACK _GNU_SOURCE)
    separate_arguments(_package_flags UNIX_COMMAND "${GGMLRS_PACKAGE_FLAGS}")
    target_compile_options(${target} PRIVATE ${_package_flags} ${WSP_PACKAGE_ARCH_FLAGS})
    set_target_properties(${target} PROPERTIES C_STANDARD 11 CXX_STANDARD 17 POSITION_INDEPENDENT_CODE ON)
    if(GGMLRS_SANITIZE)
        # AddressSanitizer (not UBSan: the package's own code is not under test), so that
        # ggml-alloc and the CPU kernels reading or writing past what this library allocated
        # are caught where it happens.
        target_compile_options(${target} PRIVATE -fsanitize=address -fno-omit-frame-pointer)
        target_link_options(${target} PUBLIC -fsanitize=address)
    endif()
endfunction()

function(wsp_package_options target)
    wsp_package_common_options(${target})
    target_compile_definitions(${target} PUBLIC ${WSP_PACKAGE_MACRO}GGML_USE_CPU)
endfunction()

file(STRINGS "${PROJECT_SOURCE_DIR}/ctests/ggml-core-sources.txt" _core_lines REGEX "^(c|cxx) ")
set(_core_sources "")
foreach(line IN LISTS _core_lines)
    string(REGEX REPLACE "^(c|cxx) +" "" _file "${line}")
    string(REPLACE "/arch/ARCH/" "/arch/${WSP_PACKAGE_ARCH_DIR}/" _file "${_file}")
    # (The list is every family's: a source this package does not have is left out.)
    if(EXISTS "${WSP_PACKAGE_CPP}/${_file}")
        list(APPEND _core_sources "${WSP_PACKAGE_CPP}/${_file}")
    endif()
endforeach()

set(_base_sources "")
set(_cpu_sources "")
foreach(source IN LISTS _core_sources)
    if(source MATCHES "/ggml-cpu/")
        list(APPEND _cpu_sources "${source}")
    else()
        list(APPEND _base_sources "${source}")
    endif()
endforeach()

# Each source is compiled once where its variants would compile to the same object: of the
# defines that tell the variants apart, WSP_GGML_USE_<NAME> is read by ggml-backend-reg.cpp
# alone, and WSP_GGML_BACKEND_DL by ggml-cpu/ggml-cpu.cpp alone (WSP_GGML_BACKEND_SHARED and
# _BUILD only mark declarations with the default visibility, which they have anyway). This
# saves a minute of compiling per build. -fno-gnu-unique: g++ otherwise emits a STB_GNU_UNIQUE
# symbol (a libstdc++ template static), and glibc never unmaps a library that has one, so the
# CPU module could not be unloaded; in a static program it changes nothing (clang has no such
# symbols, nor the flag).
# wsp_unknown_version(<target> <source> <header> <NAME>): the source reports its version and commit
# as <NAME>_VERSION and <NAME>_COMMIT, which upstream's own CMake build defines (from plain ggml
# 0.3.36 in a generated <header> the source includes); the npm packages' copies fall back to
# "unknown" without them, as they are given here either way.
function(wsp_unknown_version target source header name)
    file(STRINGS "${source}" included REGEX "^#include \"${header}\"")
    if(included)
        set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}-version")
        file(WRITE "${dir}/${header}" "#pragma once\n#define ${name}_VERSION \"unknown\"\n#define ${name}_COMMIT \"unknown\"\n")
        target_include_directories(${target} PRIVATE "${dir}")
    else()
        target_compile_definitions(${target} PRIVATE ${name}_VERSION="unknown" ${name}_COMMIT="unknown")
    endif()
endfunction()

set(_cpu_entry "${WSP_PACKAGE_CPP}/ggml-cpu/ggml-cpu.cpp")
list(REMOVE_ITEM _cpu_sources "${_cpu_entry}")
add_library(wsp_package_base_objects OBJECT ${_base_sources})
wsp_unknown_version(wsp_package_base_objects "${WSP_PACKAGE_CPP}/ggml.c" ggml-version.h ${WSP_PACKAGE_MACRO}GGML)
add_library(wsp_package_cpu_objects OBJECT ${_cpu_sources})
add_library(wsp_package_cpu_module OBJECT "${_cpu_entry}")
foreach(target wsp_package_base_objects wsp_package_cpu_objects wsp_package_cpu_module)
    wsp_package_common_options(${target})
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-fno-gnu-unique>)
endforeach()
# WSP_GGML_BACKEND_DL makes ggml-cpu.cpp export wsp_ggml_backend_init
target_compile_definitions(wsp_package_cpu_module PRIVATE
    ${WSP_PACKAGE_MACRO}GGML_BACKEND_DL ${WSP_PACKAGE_MACRO}GGML_BACKEND_SHARED ${WSP_PACKAGE_MACRO}GGML_BACKEND_BUILD)

add_library(wsp_package_core STATIC "${_cpu_entry}" $<TARGET_OBJECTS:wsp_package_base_objects>
            $<TARGET_OBJECTS:wsp_package_cpu_objects>)
wsp_package_options(wsp_package_core)
target_link_libraries(wsp_package_core PUBLIC m pthread dl stdc++)

# the package's backend layer: ggml-backend-reg.cpp compiled for each build, the rest once
# (0.7 adds the meta backend and the dlopen helpers to the layer)
set(_reference_reg "${WSP_PACKAGE_CPP}/ggml-backend-reg.cpp")
set(_reference_rest "${WSP_PACKAGE_CPP}/ggml-backend.cpp")
foreach(source ggml-backend-meta.cpp ggml-backend-dl.cpp)
    if(EXISTS "${WSP_PACKAGE_CPP}/${source}")
        list(APPEND _reference_rest "${WSP_PACKAGE_CPP}/${source}")
    endif()
endforeach()
add_library(wsp_package_reference_objects OBJECT ${_reference_rest})
wsp_package_common_options(wsp_package_reference_objects)
# wsp_reference_layer(<name>): the reference as a static library <name>, whose
# ggml-backend-reg.cpp the caller gives its defines
function(wsp_reference_layer name)
    add_library(${name} STATIC "${_reference_reg}" $<TARGET_OBJECTS:wsp_package_reference_objects>)
    wsp_package_common_options(${name})
endfunction()
wsp_reference_layer(wsp_package_reference)
wsp_package_options(wsp_package_reference)

# For dynamic loading: the core without the CPU backend as a shared library, which a program and
# the backend modules it loads share (its backend-layer imports resolve to the backend layer
# loaded beside it), and the CPU backend as a module (wsp_package_cpu_module with
# wsp_package_cpu_objects).
add_library(wsp_package_base SHARED $<TARGET_OBJECTS:wsp_package_base_objects>)
set_target_properties(wsp_package_base PROPERTIES OUTPUT_NAME ggml-core)
target_link_libraries(wsp_package_base PUBLIC m pthread stdc++)
wsp_package_common_options(wsp_package_base)
