# Swaps whisper.rn's backend layer for wsp-ggml-backend in its Android build. Include it at the end
# of whisper.rn's android/src/main/CMakeLists.txt (android/apply.sh adds the line):
#   include(/path/to/wsp-ggml-backend/integrations/whisper.rn/android/wsp-ggml-backend.cmake)
# It reads the release from whisper.rn's package.json (beside android/) and picks the family that
# serves it from the release table, releases.txt (an unserved release stops the configure step,
# naming the served ones). For every library that file defines from whisper.rn's sources
# (rnwhisper and its per-arch variants), it removes the backend layer (cpp/ggml-backend.cpp,
# ggml-backend-reg.cpp and, where the release has them, ggml-backend-meta.cpp and
# ggml-backend-dl.cpp) and links the library's static archive, built by cargo with that family's
# feature for ANDROID_ABI (mapped to the Rust triple as cargo-ndk does: arm64-v8a ->
# aarch64-linux-android, armeabi-v7a -> armv7-linux-androideabi, x86 -> i686-linux-android,
# x86_64 -> x86_64-linux-android). Only a staticlib is built, so cargo needs the Rust target
# (rustup target add ...) but not the NDK's linker.
get_filename_component(WSP_GGML_BACKEND_DIR "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(WSP_GGML_BACKEND_RUST_TARGET "" CACHE STRING "Rust target triple (default: mapped from ANDROID_ABI)")
set(WSP_GGML_BACKEND_CARGO_TARGET_DIR "${CMAKE_BINARY_DIR}/wsp-ggml-backend" CACHE PATH
    "cargo --target-dir for the library (a folder per whisper.rn family below it)")

# The release: package.json's top-level "version" (string(JSON) from CMake 3.19; older CMake, as
# some Android Gradle plugins bring, gets the first "version" key, which package.json puts first).
get_filename_component(_wsp_package "${CMAKE_CURRENT_SOURCE_DIR}/../../.." ABSOLUTE)
if(NOT EXISTS "${_wsp_package}/package.json")
    message(FATAL_ERROR "wsp-ggml-backend: ${_wsp_package}/package.json not found; include this file from whisper.rn's android/src/main/CMakeLists.txt")
endif()
file(READ "${_wsp_package}/package.json" _wsp_json)
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.19)
    string(JSON _wsp_version ERROR_VARIABLE _wsp_error GET "${_wsp_json}" version)
elseif(_wsp_json MATCHES "\"version\"[ \t\r\n]*:[ \t\r\n]*\"([^\"]*)\"")
    set(_wsp_version "${CMAKE_MATCH_1}")
endif()
if(NOT _wsp_version)
    message(FATAL_ERROR "wsp-ggml-backend: no version in ${_wsp_package}/package.json")
endif()

# The family that serves it (cmake/release_table.cmake reads releases.txt).
include("${WSP_GGML_BACKEND_DIR}/cmake/release_table.cmake")
wsp_release_facts("${_wsp_version}" _wsp)
if(NOT _wsp_FAMILY)
    wsp_served_releases(whisper.rn _wsp_served)
    list(JOIN _wsp_served ", " _wsp_served)
    message(FATAL_ERROR "wsp-ggml-backend: whisper.rn ${_wsp_version} is not served; served releases: ${_wsp_served}")
endif()
# The built-in backends are whisper.rn's Android build's (WSP_GGML_USE_CPU): the CPU alone.
set(_wsp_cargo_features --no-default-features --features cpu ${_wsp_FEATURES})

find_program(CARGO cargo REQUIRED HINTS "$ENV{HOME}/.cargo/bin")
include("${WSP_GGML_BACKEND_DIR}/cmake/rust_target.cmake")
if(NOT WSP_RUST_TARGET)
    message(FATAL_ERROR "wsp-ggml-backend: not a cross build; set WSP_GGML_BACKEND_RUST_TARGET")
endif()

# A folder per family: upgrading whisper.rn to another family changes the archive's path, so the
# archive is rebuilt.
set(_wsp_cargo_dir "${WSP_GGML_BACKEND_CARGO_TARGET_DIR}/whisper-rn-${_wsp_FAMILY}")
set(_wsp_archive "${_wsp_cargo_dir}/${WSP_RUST_PROFILE_DIR}/libwsp_ggml_backend.a")
file(GLOB_RECURSE _wsp_sources CONFIGURE_DEPENDS "${WSP_GGML_BACKEND_DIR}/src/*.rs"
     "${WSP_GGML_BACKEND_DIR}/macros/src/*.rs")
add_custom_command(
    OUTPUT "${_wsp_archive}"
    COMMAND ${WSP_CARGO} rustc --release --lib --quiet ${WSP_CARGO_TARGET_ARGS} ${_wsp_cargo_features}
            --crate-type staticlib --manifest-path "${WSP_GGML_BACKEND_DIR}/Cargo.toml"
            --target-dir "${_wsp_cargo_dir}"
    DEPENDS ${_wsp_sources} "${WSP_GGML_BACKEND_DIR}/Cargo.toml" "${WSP_GGML_BACKEND_DIR}/build.rs"
            "${WSP_GGML_BACKEND_DIR}/releases.txt"
    COMMENT "cargo rustc --crate-type staticlib --target ${WSP_RUST_TARGET} (wsp-ggml-backend for whisper.rn ${_wsp_version}, family ${_wsp_FAMILY})"
    VERBATIM)
add_custom_target(wsp_ggml_backend_archive DEPENDS "${_wsp_archive}")

get_directory_property(_wsp_targets BUILDSYSTEM_TARGETS)
set(_wsp_swapped "")
foreach(target IN LISTS _wsp_targets)
    get_target_property(_sources ${target} SOURCES)
    if(NOT _sources MATCHES "ggml-backend\\.cpp")
        continue()
    endif()
    list(FILTER _sources EXCLUDE REGEX "/ggml-backend(-reg|-meta|-dl)?\\.cpp$")
    set_property(TARGET ${target} PROPERTY SOURCES ${_sources})
    add_dependencies(${target} wsp_ggml_backend_archive)
    # whisper.rn's objects are linked whole, so the archive's calls back into ggml resolve.
    # (The plain signature, as whisper.rn's CMakeLists uses for these targets.)
    target_link_libraries(${target} "${_wsp_archive}" dl)
    list(APPEND _wsp_swapped ${target})
endforeach()
if(NOT _wsp_swapped)
    message(FATAL_ERROR "wsp-ggml-backend: no library here is built from ggml-backend.cpp; include this file at the end of whisper.rn's android/src/main/CMakeLists.txt")
endif()
message(STATUS "wsp-ggml-backend: whisper.rn ${_wsp_version}, ${WSP_RUST_TARGET} backend layer linked into ${_wsp_swapped}")
