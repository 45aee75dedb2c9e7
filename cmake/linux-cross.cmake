# CMake toolchain for Debian's GNU/Linux cross compilers (gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf, gcc-i686-linux-gnu), as scripts/phones/cross.sh uses it:
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/linux-cross.cmake -DWSP_CROSS_GNU=aarch64-linux-gnu
#         [-DCMAKE_CROSSCOMPILING_EMULATOR="qemu-aarch64;-L;/usr/aarch64-linux-gnu"] ...
# With -DWSP_CROSS_CLANG=clang-14, that clang compiles for the same target over the GNU cross
# compiler's headers and libraries, as the NDK's clang does for Android (for a build with clang's
# own flags and LTO: llama.rn's), and lld links (-fuse-ld=lld-14: the linker flags' initial value;
# a build that sets its own linker flags adds it).
# The Rust target follows from CMAKE_SYSTEM_PROCESSOR (cmake/rust_target.cmake).
set(CMAKE_SYSTEM_NAME Linux)
if(NOT WSP_CROSS_GNU)
    message(FATAL_ERROR "linux-cross.cmake: set WSP_CROSS_GNU to the compilers' prefix (e.g. aarch64-linux-gnu)")
endif()
# try_compile projects read this file again: hand them the prefix.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WSP_CROSS_GNU WSP_CROSS_CLANG)

string(REGEX REPLACE "-.*" "" CMAKE_SYSTEM_PROCESSOR "${WSP_CROSS_GNU}")
if(WSP_CROSS_GNU MATCHES "^arm-.*gnueabihf$")
    set(CMAKE_SYSTEM_PROCESSOR armv7)
endif()
if(WSP_CROSS_CLANG)
    string(REPLACE "clang" "clang++" _clangxx "${WSP_CROSS_CLANG}")
    string(REPLACE "clang" "lld" _lld "${WSP_CROSS_CLANG}")
    set(CMAKE_C_COMPILER "${WSP_CROSS_CLANG}")
    set(CMAKE_CXX_COMPILER "${_clangxx}")
    set(CMAKE_C_COMPILER_TARGET "${WSP_CROSS_GNU}")
    set(CMAKE_CXX_COMPILER_TARGET "${WSP_CROSS_GNU}")
    set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=${_lld}")
    set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=${_lld}")
else()
    set(CMAKE_C_COMPILER "${WSP_CROSS_GNU}-gcc")
    set(CMAKE_CXX_COMPILER "${WSP_CROSS_GNU}-g++")
endif()
set(CMAKE_FIND_ROOT_PATH "/usr/${WSP_CROSS_GNU}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
