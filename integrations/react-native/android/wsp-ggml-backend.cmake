# Swaps the ggml backend layer of whisper.rn or llama.rn for wsp-ggml-backend in the package's
# Android build. android/apply.sh adds a block at the end of the CMakeLists that builds the layer
# (whisper.rn's android/src/main/CMakeLists.txt, llama.rn's android/src/main/rnllama/CMakeLists.txt:
# the release table's android_cmake) that includes this file from the wsp-ggml-backend package a
# node_modules folder above it holds, and does nothing when none does.
# It reads the package and its release from the package's package.json (the nearest above the
# including folder) and picks the family that serves it from the release table, releases.txt (an
# unserved release stops the configure step, naming the served ones). For every library that
# folder defines from the package's sources (rnwhisper or rnllama and their per-arch variants),
# it removes the backend layer (ggml-backend.cpp, ggml-backend-reg.cpp and, where the release
# has them, ggml-backend-meta.cpp and ggml-backend-dl.cpp; in cpp/, or from llama.rn 0.13 in
# vendor/llama.cpp/ggml/src/, which cmake/rnllama-sources.cmake lists) and links the library's
# static archive for ANDROID_ABI (mapped to the Rust triple as cargo-ndk does: arm64-v8a -> aarch64-linux-android,
# armeabi-v7a -> armv7-linux-androideabi, x86 -> i686-linux-android, x86_64 ->
# x86_64-linux-android): the npm package's prebuilt archive when it has one for the family, the
# triple and the library's built-in backends (scripts/release/npm-prebuilt.sh), else one cargo builds with
# the family's feature (Rust and the target's standard library needed, not the NDK's linker: a
# staticlib is not linked), from the crates the npm package vendors (its .cargo/config.toml).
get_filename_component(GGMLRS_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
include("${GGMLRS_SOURCE_DIR}/cmake/old_option_names.cmake")
ggmlrs_take_old_option_names(RUST_TARGET CARGO_TARGET_DIR)
set(GGMLRS_RUST_TARGET "" CACHE STRING "Rust target triple (default: mapped from ANDROID_ABI)")
set(GGMLRS_CARGO_TARGET_DIR "${CMAKE_BINARY_DIR}/wsp-ggml-backend" CACHE PATH
    "cargo --target-dir for the library (a folder per family below it)")

# The package: the nearest package.json above this folder, its top-level "name" and "version"
# (string(JSON) from CMake 3.19; older CMake, as some Android Gradle plugins bring, gets the first
# such keys, which package.json puts first).
set(_wsp_package "${CMAKE_CURRENT_SOURCE_DIR}")
while(NOT EXISTS "${_wsp_package}/package.json")
    get_filename_component(_wsp_parent "${_wsp_package}" DIRECTORY)
    if(_wsp_parent STREQUAL _wsp_package)
        message(FATAL_ERROR "wsp-ggml-backend: no package.json above ${CMAKE_CURRENT_SOURCE_DIR}; include this file from whisper.rn's or llama.rn's Android CMakeLists")
    endif()
    set(_wsp_package "${_wsp_parent}")
endwhile()
file(READ "${_wsp_package}/package.json" _wsp_json)
foreach(key name version)
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
        string(JSON _wsp_${key} ERROR_VARIABLE _wsp_error GET "${_wsp_json}" ${key})
    elseif(_wsp_json MATCHES "\"${key}\"[ \t\r\n]*:[ \t\r\n]*\"([^\"]*)\"")
        set(_wsp_${key} "${CMAKE_MATCH_1}")
    endif()
    if(NOT _wsp_${key})
        message(FATAL_ERROR "wsp-ggml-backend: no ${key} in ${_wsp_package}/package.json")
    endif()
endforeach()

# Off without uninstalling: the Gradle property wspGgmlBackendEnabled=false in the app's
# android/gradle.properties (the app is the folder holding the node_modules the package is in);
# the package then builds its own backend layer.
get_filename_component(_wsp_modules "${_wsp_package}" DIRECTORY)
get_filename_component(_wsp_app "${_wsp_modules}" DIRECTORY)
get_filename_component(_wsp_modules_name "${_wsp_modules}" NAME)
if(_wsp_modules_name STREQUAL "node_modules" AND EXISTS "${_wsp_app}/android/gradle.properties")
    file(STRINGS "${_wsp_app}/android/gradle.properties" _wsp_off REGEX "^[ \t]*wspGgmlBackendEnabled[ \t]*=[ \t]*false[ \t]*$")
    if(_wsp_off)
        message(STATUS "wsp-ggml-backend: off (wspGgmlBackendEnabled=false in ${_wsp_app}/android/gradle.properties): ${_wsp_name} builds its own backend layer")
        return()
    endif()
endif()

# The family that serves it (cmake/release_table.cmake reads releases.txt).
include("${GGMLRS_SOURCE_DIR}/cmake/release_table.cmake")
wsp_release_facts("${_wsp_name}@${_wsp_version}" _wsp)
if(NOT _wsp_FAMILY)
    wsp_served_releases("${_wsp_name}" _wsp_served)
    list(JOIN _wsp_served ", " _wsp_served)
    message(FATAL_ERROR "wsp-ggml-backend: ${_wsp_name} ${_wsp_version} is not served; served releases: ${_wsp_served}")
endif()
find_program(CARGO cargo HINTS "$ENV{HOME}/.cargo/bin")
include("${GGMLRS_SOURCE_DIR}/cmake/rust_target.cmake")
if(NOT WSP_RUST_TARGET)
    message(FATAL_ERROR "wsp-ggml-backend: not a cross build; set GGMLRS_RUST_TARGET")
endif()
# The npm package's prebuilt archives for the family, named after its newest release as
# scripts/release/npm-prebuilt.sh names them (release.sh's wsp_prebuilt_dir)
set(_wsp_prebuilt "${GGMLRS_SOURCE_DIR}/prebuilt/${_wsp_name}-${_wsp_NEWEST}/${WSP_RUST_TARGET}")

# The built-in backends of each library are those its compile flags name, as the package's own
# registry reads them (<PREFIX>GGML_USE_<NAME>: the CPU everywhere, OpenCL in llama.rn's
# *_opencl variant), among those the family's registry knows; one archive per set, built with
# those cargo features. A folder per family and set: upgrading the package to another family
# changes the archive's path, so the archive is rebuilt.
string(REPLACE "." "-" _wsp_package_dir "${_wsp_name}")
file(GLOB_RECURSE _wsp_sources CONFIGURE_DEPENDS "${GGMLRS_SOURCE_DIR}/src/*.rs"
     "${GGMLRS_SOURCE_DIR}/macros/src/*.rs")
add_custom_target(wsp_ggml_backend_archive)

# _wsp_require_rust(): stops the configure step, saying what to install, unless cargo and the
# Rust target's standard library are there (asked only for an archive the package has not prebuilt)
function(_wsp_require_rust)
    file(GLOB prebuilt LIST_DIRECTORIES true RELATIVE "${GGMLRS_SOURCE_DIR}/prebuilt" "${GGMLRS_SOURCE_DIR}/prebuilt/*")
    list(JOIN prebuilt ", " prebuilt)
    set(why "wsp-ggml-backend: ${_wsp_name} ${_wsp_version} for ${WSP_RUST_TARGET} is built from source (this package's prebuilt libraries are for the families of ${prebuilt}), which needs Rust")
    if(NOT CARGO)
        message(FATAL_ERROR "${why}: install it (https://rustup.rs), then run: rustup target add ${WSP_RUST_TARGET}")
    endif()
    get_filename_component(bin "${CARGO}" DIRECTORY)
    find_program(WSP_RUSTC rustc HINTS "${bin}")
    execute_process(COMMAND "${WSP_RUSTC}" --print target-libdir --target "${WSP_RUST_TARGET}"
                    OUTPUT_VARIABLE libdir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    file(GLOB std "${libdir}/libstd-*.rlib")
    if(NOT std)
        message(FATAL_ERROR "${why} and its target ${WSP_RUST_TARGET}: run: rustup target add ${WSP_RUST_TARGET}")
    endif()
endfunction()

# _wsp_archive(<target> <var>): the archive for the target's built-in backends: the prebuilt one,
# or one cargo builds (made once a set); appends "<set>: prebuilt|cargo" to _wsp_how
function(_wsp_archive target var)
    get_target_property(options ${target} COMPILE_OPTIONS)
    get_target_property(definitions ${target} COMPILE_DEFINITIONS)
    string(REGEX MATCHALL "${_wsp_MACRO_PREFIX}GGML_USE_[A-Z0-9_]+" uses "${options};${definitions}")
    set(builtins "")
    foreach(use IN LISTS uses)
        string(REGEX REPLACE "^${_wsp_MACRO_PREFIX}GGML_USE_" "" name "${use}")
        string(TOLOWER "${name}" name)
        if(name IN_LIST _wsp_BUILTINS AND NOT name IN_LIST builtins)
            list(APPEND builtins ${name})
        endif()
    endforeach()
    list(SORT builtins)
    list(JOIN builtins "-" set)
    list(JOIN builtins "," features)
    if(EXISTS "${_wsp_prebuilt}/${set}/libwsp_ggml_backend.a")
        set(${var} "${_wsp_prebuilt}/${set}/libwsp_ggml_backend.a" PARENT_SCOPE)
        set(_wsp_how "${_wsp_how};${set}: prebuilt" PARENT_SCOPE)
        return()
    endif()
    _wsp_require_rust()
    set(dir "${GGMLRS_CARGO_TARGET_DIR}/${_wsp_package_dir}-${_wsp_FAMILY}/${set}")
    set(archive "${dir}/${WSP_RUST_PROFILE_DIR}/libwsp_ggml_backend.a")
    set(_wsp_how "${_wsp_how};${set}: cargo" PARENT_SCOPE)
    if(NOT TARGET wsp_ggml_backend_archive_${set})
        set(feature_args --no-default-features)
        if(features)
            list(APPEND feature_args --features ${features})
        endif()
        add_custom_command(
            OUTPUT "${archive}"
            COMMAND ${WSP_CARGO} rustc --release --lib --quiet ${WSP_CARGO_TARGET_ARGS} ${feature_args} ${_wsp_FEATURES}
                    --crate-type staticlib --manifest-path "${GGMLRS_SOURCE_DIR}/Cargo.toml" --target-dir "${dir}"
            DEPENDS ${_wsp_sources} "${GGMLRS_SOURCE_DIR}/Cargo.toml" "${GGMLRS_SOURCE_DIR}/build.rs"
                    "${GGMLRS_SOURCE_DIR}/releases.txt"
            COMMENT "cargo rustc --crate-type staticlib --target ${WSP_RUST_TARGET} (wsp-ggml-backend for ${_wsp_name} ${_wsp_version}, family ${_wsp_FAMILY}, built in: ${features})"
            # (in the package's folder: its .cargo/config.toml points cargo at the vendored crates)
            WORKING_DIRECTORY "${GGMLRS_SOURCE_DIR}"
            VERBATIM)
        add_custom_target(wsp_ggml_backend_archive_${set} DEPENDS "${archive}")
        add_dependencies(wsp_ggml_backend_archive wsp_ggml_backend_archive_${set})
    endif()
    add_dependencies(${target} wsp_ggml_backend_archive_${set})
    set(${var} "${archive}" PARENT_SCOPE)
endfunction()

get_directory_property(_wsp_targets BUILDSYSTEM_TARGETS)
set(_wsp_swapped "")
set(_wsp_how "")
foreach(target IN LISTS _wsp_targets)
    get_target_property(_sources ${target} SOURCES)
    if(NOT _sources MATCHES "ggml-backend\\.cpp")
        continue()
    endif()
    list(FILTER _sources EXCLUDE REGEX "/ggml-backend(-reg|-meta|-dl)?\\.cpp$")
    set_property(TARGET ${target} PROPERTY SOURCES ${_sources})
    _wsp_archive(${target} _wsp_archive)
    # The package's objects are linked whole, so the archive's calls back into ggml resolve. (The
    # property, not target_link_libraries: whisper.rn's CMakeLists links these targets with the
    # plain signature, llama.rn's with the keyword one, and CMake refuses a mix.)
    set_property(TARGET ${target} APPEND PROPERTY LINK_LIBRARIES "${_wsp_archive}" dl)
    list(APPEND _wsp_swapped ${target})
endforeach()
if(NOT _wsp_swapped)
    message(FATAL_ERROR "wsp-ggml-backend: no library here is built from ggml-backend.cpp; include this file at the end of ${_wsp_name}'s Android CMakeLists that builds it")
endif()
list(REMOVE_DUPLICATES _wsp_how)
list(REMOVE_ITEM _wsp_how "")
list(JOIN _wsp_how ", " _wsp_how)
message(STATUS "wsp-ggml-backend: ${_wsp_name} ${_wsp_version}, ${WSP_RUST_TARGET} backend layer linked into ${_wsp_swapped} (archives: ${_wsp_how})")
