# Which Rust target the library is built for, and how cargo is called for it. A cross toolchain
# (the NDK's, or cmake/linux-cross.cmake) must not end up linking the host's library, so:
#   WSP_RUST_TARGET        the triple (empty: the host), from GGMLRS_RUST_TARGET or,
#                          when cross compiling, mapped from ANDROID_ABI / CMAKE_SYSTEM_PROCESSOR
#   WSP_RUST_ARCH          its architecture (the triple's first part; the host's when native),
#                          which picks whisper.rn's per-arch sources and flags
#   WSP_RUST_PROFILE_DIR   where cargo puts the release build under its target dir
#   WSP_CARGO              cargo, with the environment that links for the target
#   WSP_CARGO_TARGET_ARGS  --target <triple>, or nothing
#   WSP_CARGO_BUILD        the command that builds the library (release, --lib, --target)

set(WSP_RUST_TARGET "${GGMLRS_RUST_TARGET}")
if(NOT WSP_RUST_TARGET AND CMAKE_CROSSCOMPILING)
    # As cargo-ndk maps Android ABIs, and the GNU/Linux targets scripts/phones/cross.sh tests.
    set(_android_triples arm64-v8a:aarch64-linux-android armeabi-v7a:armv7-linux-androideabi
        x86:i686-linux-android x86_64:x86_64-linux-android)
    set(_linux_triples aarch64:aarch64-unknown-linux-gnu arm64:aarch64-unknown-linux-gnu
        armv7:armv7-unknown-linux-gnueabihf armv7-a:armv7-unknown-linux-gnueabihf
        armv7l:armv7-unknown-linux-gnueabihf i686:i686-unknown-linux-gnu i386:i686-unknown-linux-gnu
        x86_64:x86_64-unknown-linux-gnu)
    if(ANDROID)
        set(_key "${ANDROID_ABI}")
        set(_pairs ${_android_triples})
    else()
        set(_key "${CMAKE_SYSTEM_PROCESSOR}")
        set(_pairs ${_linux_triples})
    endif()
    foreach(pair IN LISTS _pairs)
        if(pair MATCHES "^([^:]+):(.+)$" AND CMAKE_MATCH_1 STREQUAL _key)
            set(WSP_RUST_TARGET "${CMAKE_MATCH_2}")
        endif()
    endforeach()
    if(NOT WSP_RUST_TARGET)
        message(FATAL_ERROR "no Rust target known for '${_key}': set GGMLRS_RUST_TARGET to its triple")
    endif()
endif()

set(WSP_CARGO "${CARGO}")
set(WSP_CARGO_TARGET_ARGS "")
if(WSP_RUST_TARGET)
    string(REGEX REPLACE "-.*" "" WSP_RUST_ARCH "${WSP_RUST_TARGET}")
    set(WSP_RUST_PROFILE_DIR "${WSP_RUST_TARGET}/release")
    # cargo links the cdylib with the C compiler of this toolchain (with its --target, for clang),
    # unless the environment already names a linker for the triple.
    string(TOUPPER "${WSP_RUST_TARGET}" _triple_env)
    string(REPLACE "-" "_" _triple_env "${_triple_env}")
    set(_env "")
    if(NOT DEFINED ENV{CARGO_TARGET_${_triple_env}_LINKER})
        list(APPEND _env "CARGO_TARGET_${_triple_env}_LINKER=${CMAKE_C_COMPILER}")
        if(CMAKE_C_COMPILER_TARGET AND CMAKE_C_COMPILER_ID MATCHES "Clang")
            list(APPEND _env "CARGO_TARGET_${_triple_env}_RUSTFLAGS=-Clink-arg=--target=${CMAKE_C_COMPILER_TARGET}")
        endif()
    endif()
    set(WSP_CARGO "${CMAKE_COMMAND}" -E env ${_env} "${CARGO}")
    set(WSP_CARGO_TARGET_ARGS --target "${WSP_RUST_TARGET}")
    message(STATUS "wsp-ggml-backend: Rust target ${WSP_RUST_TARGET}")
else()
    string(REGEX REPLACE "^(amd64|AMD64|x64)$" "x86_64" WSP_RUST_ARCH "${CMAKE_HOST_SYSTEM_PROCESSOR}")
    set(WSP_RUST_PROFILE_DIR "release")
endif()
set(WSP_CARGO_BUILD ${WSP_CARGO} build --release --lib --quiet ${WSP_CARGO_TARGET_ARGS})
