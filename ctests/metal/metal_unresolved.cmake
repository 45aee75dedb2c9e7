# cmake -DCXX=<compiler> -DOBJECTS=<the package's Metal C++ objects (and BLAS's)> -DLAYER=<backend
#       layer archive> -DCORE=<ggml core archive> -DHEADERS=<ggml-metal-device.h;ggml-metal-context.h>
#       -DWORK=<dir> -DSYMBOL_PREFIX=<the package's, wsp_> [-DLINK_FLAGS=<what the objects need, such
#       as -fsanitize=address, the CBLAS library>] -P metal_unresolved.cmake
# The package's Metal C++ without the stand-in (ctests/metal/metal_standin.c), linked with a backend
# layer and the core into a shared object that may leave nothing undefined: what the linker reports
# undefined must be exactly functions of Metal's Objective-C half (those HEADERS declare), never a
# function of the backend layer or of the core. So the layer gives the Metal backend all it needs
# but what Apple's .m files would.
foreach(var CXX OBJECTS LAYER CORE HEADERS WORK SYMBOL_PREFIX)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "metal_unresolved.cmake: -D${var}=... is missing")
    endif()
endforeach()

set(objc "")
foreach(header IN LISTS HEADERS)
    file(READ "${header}" text)
    string(REGEX MATCHALL "${SYMBOL_PREFIX}ggml_metal_[a-z0-9_]+ *\\(" declared "${text}")
    list(TRANSFORM declared REPLACE " *\\($" "")
    list(APPEND objc ${declared})
endforeach()
list(REMOVE_DUPLICATES objc)

file(MAKE_DIRECTORY "${WORK}")
execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C
            "${CXX}" -shared -o "${WORK}/metal-without-objc.so" ${OBJECTS} -Wl,--no-undefined
            -Wl,--start-group "${LAYER}" "${CORE}" -Wl,--end-group -lpthread -ldl -lm ${LINK_FLAGS}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0)
    message(FATAL_ERROR "the Metal C++ linked without its Objective-C half: the stand-in is not what it replaces")
endif()
string(REGEX MATCHALL "undefined reference to `[^']+'" unresolved "${out}${err}")
if(NOT unresolved)
    message(FATAL_ERROR "the link failed without undefined references:\n${out}${err}")
endif()
list(TRANSFORM unresolved REPLACE "^undefined reference to `([^']+)'$" "\\1")
list(REMOVE_DUPLICATES unresolved)
list(SORT unresolved)
set(foreign ${unresolved})
list(REMOVE_ITEM foreign ${objc})
if(foreign)
    string(REPLACE ";" "\n  " foreign "${foreign}")
    message(FATAL_ERROR "undefined beyond Metal's Objective-C half:\n  ${foreign}")
endif()
list(LENGTH unresolved count)
list(LENGTH objc declared_count)
string(REPLACE ";" " " names "${unresolved}")
message(STATUS "${count} undefined, all Objective-C functions (of the ${declared_count} the headers declare): ${names}")
