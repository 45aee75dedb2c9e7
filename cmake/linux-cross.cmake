# CMake toolchain for Debian's GNU/Linux cross compilers (gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf, gcc-i686-linux-gnu), as scripts/cross.sh uses it:
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/linux-cross.cmake -DWSP_CROSS_GNU=aarch64-linux-gnu
#         [-DCMAKE_CROSSCOMPILING_EMULATOR="qemu-aarch64;-L;/usr/aarch64-linux-gnu"] ...
# The Rust target follows from CMAKE_SYSTEM_PROCESSOR (cmake/rust_target.cmake).
set(CMAKE_SYSTEM_NAME Linux)
if(NOT WSP_CROSS_GNU)
    message(FATAL_ERROR "linux-cross.cmake: set WSP_CROSS_GNU to the compilers' prefix (e.g. aarch64-linux-gnu)")
endif()
# try_compile projects read this file again: hand them the prefix.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WSP_CROSS_GNU)

string(REGEX REPLACE "-.*" "" CMAKE_SYSTEM_PROCESSOR "${WSP_CROSS_GNU}")
if(WSP_CROSS_GNU MATCHES "^arm-.*gnueabihf$")
    set(CMAKE_SYSTEM_PROCESSOR armv7)
endif()
set(CMAKE_C_COMPILER "${WSP_CROSS_GNU}-gcc")
set(CMAKE_CXX_COMPILER "${WSP_CROSS_GNU}-g++")
set(CMAKE_FIND_ROOT_PATH "/usr/${WSP_CROSS_GNU}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
