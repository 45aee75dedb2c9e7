# Swaps whisper.rn's backend layer for wsp-ggml-backend in its Android build. Include it at the end
# of whisper.rn's android/src/main/CMakeLists.txt (android/apply.sh adds the line):
#   include(/path/to/wsp-ggml-backend/integrations/whisper.rn/android/wsp-ggml-backend.cmake)
# For every library that file defines from whisper.rn's sources (rnwhisper and its per-arch
# variants), it removes cpp/ggml-backend.cpp and cpp/ggml-backend-reg.cpp and links the
# library's static archive, built by cargo for ANDROID_ABI (mapped to the Rust triple as cargo-ndk
# does: arm64-v8a -> aarch64-linux-android, armeabi-v7a -> armv7-linux-androideabi,
# x86 -> i686-linux-android, x86_64 -> x86_64-linux-android). Only a staticlib is built, so
# cargo needs the Rust target (rustup target add ...) but not the NDK's linker.
get_filename_component(WSP_GGML_BACKEND_DIR "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(WSP_GGML_BACKEND_RUST_TARGET "" CACHE STRING "Rust target triple (default: mapped from ANDROID_ABI)")
find_program(CARGO cargo REQUIRED HINTS "$ENV{HOME}/.cargo/bin")
include("${WSP_GGML_BACKEND_DIR}/cmake/rust_target.cmake")
if(NOT WSP_RUST_TARGET)
    message(FATAL_ERROR "wsp-ggml-backend: not a cross build; set WSP_GGML_BACKEND_RUST_TARGET")
endif()

set(_wsp_cargo_dir "${CMAKE_BINARY_DIR}/wsp-ggml-backend")
set(_wsp_archive "${_wsp_cargo_dir}/${WSP_RUST_PROFILE_DIR}/libwsp_ggml_backend.a")
file(GLOB_RECURSE _wsp_sources CONFIGURE_DEPENDS "${WSP_GGML_BACKEND_DIR}/src/*.rs")
add_custom_command(
    OUTPUT "${_wsp_archive}"
    COMMAND ${WSP_CARGO} rustc --release --lib --quiet ${WSP_CARGO_TARGET_ARGS} --crate-type staticlib
            --manifest-path "${WSP_GGML_BACKEND_DIR}/Cargo.toml" --target-dir "${_wsp_cargo_dir}"
    DEPENDS ${_wsp_sources} "${WSP_GGML_BACKEND_DIR}/Cargo.toml" "${WSP_GGML_BACKEND_DIR}/build.rs"
    COMMENT "cargo rustc --crate-type staticlib --target ${WSP_RUST_TARGET} (wsp-ggml-backend)"
    VERBATIM)
add_custom_target(wsp_ggml_backend_archive DEPENDS "${_wsp_archive}")

get_directory_property(_wsp_targets BUILDSYSTEM_TARGETS)
set(_wsp_swapped "")
foreach(target IN LISTS _wsp_targets)
    get_target_property(_sources ${target} SOURCES)
    if(NOT _sources MATCHES "ggml-backend\\.cpp")
        continue()
    endif()
    list(FILTER _sources EXCLUDE REGEX "/ggml-backend(-reg)?\\.cpp$")
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
message(STATUS "wsp-ggml-backend: ${WSP_RUST_TARGET} backend layer linked into ${_wsp_swapped}")
