# The release table (releases.txt) for CMake: which family serves a release of whisper.rn or
# llama.rn, and that family's facts. Also included by integrations/react-native/android/wsp-ggml-backend.cmake.
#
#   wsp_served_releases(<package> <var>)   every release of the package a family serves, in the
#                                          table's order
#   wsp_release_facts(<release> <prefix>)  <release>: <package>@<version> (whisper.rn@0.7.4,
#                                          llama.rn@0.12.9), or a bare version of whisper.rn's
#       <prefix>_FAMILY            the family that serves it (empty: none does)
#       <prefix>_PACKAGE           the package (whisper.rn, llama.rn)
#       <prefix>_VERSION           the package's version
#       <prefix>_NEWEST            the family's newest release (the version its tests build against)
#       <prefix>_SYMBOL_PREFIX     the package's prefix of ggml's symbols (wsp_, lm_)
#       <prefix>_MACRO_PREFIX      and of its macros and environment variables (WSP_, LM_)
#       <prefix>_FEATURES          cargo arguments that build the family (--features X, or none)
#       <prefix>_CAPABILITIES      its capabilities
#       <prefix>_DEFINITIONS       <MACRO_PREFIX>GGML_BACKEND_<CAPABILITY> for each (the header's
#                                  macros; under whisper.rn's prefix too, which the C suite's
#                                  programs are written with)
#       <prefix>_BUILTINS          the built-in backends its registry knows, in order
#       <prefix>_IOS_BUILTINS      the backends the package's iOS build builds in (the package's
#                                  ios_builtins)
#       <prefix>_PODSPEC           the package's podspec, in the package's folder
#       <prefix>_SYMBOLS           the file under ctests/ that lists its functions
#       <prefix>_RPC               the llama-cpp-python release whose ggml-rpc builds against it
#       <prefix>_VULKAN            the llama-cpp-python release whose ggml-vulkan builds against it

set(_wsp_release_table "${CMAKE_CURRENT_LIST_DIR}/../releases.txt")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_wsp_release_table}")
file(STRINGS "${_wsp_release_table}" _wsp_release_lines REGEX "^[^# ]")

# _wsp_release_fact(<subject> <key> <var>): a family's (or a package's) values for key, as a list
function(_wsp_release_fact subject key var)
    set(values "")
    foreach(line IN LISTS _wsp_release_lines)
        if(line MATCHES "^([^ ]+) +([^ ]+) +(.*)$" AND CMAKE_MATCH_1 STREQUAL subject AND CMAKE_MATCH_2 STREQUAL key)
            string(REGEX REPLACE " +" ";" words "${CMAKE_MATCH_3}")
            list(REMOVE_ITEM words "-")
            list(APPEND values ${words})
        endif()
    endforeach()
    set(${var} "${values}" PARENT_SCOPE)
endfunction()

# _wsp_package_families(<package> <var>): the families that serve the package
function(_wsp_package_families package var)
    set(families "")
    foreach(line IN LISTS _wsp_release_lines)
        if(line MATCHES "^([^ ]+) +package +([^ ]+) *$" AND CMAKE_MATCH_2 STREQUAL package)
            list(APPEND families "${CMAKE_MATCH_1}")
        endif()
    endforeach()
    set(${var} "${families}" PARENT_SCOPE)
endfunction()

function(wsp_served_releases package var)
    _wsp_package_families("${package}" families)
    set(served "")
    foreach(family IN LISTS families)
        _wsp_release_fact("${family}" releases releases)
        list(APPEND served ${releases})
    endforeach()
    set(${var} "${served}" PARENT_SCOPE)
endfunction()

function(wsp_release_facts release prefix)
    set(package whisper.rn)
    set(version "${release}")
    if(release MATCHES "^([^@]+)@(.+)$")
        set(package "${CMAKE_MATCH_1}")
        set(version "${CMAKE_MATCH_2}")
    endif()
    _wsp_package_families("${package}" families)
    set(family "")
    set(newest "")
    foreach(candidate IN LISTS families)
        _wsp_release_fact("${candidate}" releases releases)
        if(version IN_LIST releases)
            set(family "${candidate}")
            list(GET releases -1 newest)
        endif()
    endforeach()
    _wsp_release_fact("${package}" prefix symbol_prefix)
    string(TOUPPER "${symbol_prefix}" macro_prefix)
    _wsp_release_fact("${package}" ios_builtins ios_builtins)
    _wsp_release_fact("${package}" podspec podspec)
    _wsp_release_fact("${family}" feature feature)
    _wsp_release_fact("${family}" capabilities capabilities)
    _wsp_release_fact("${family}" builtins builtins)
    _wsp_release_fact("${family}" symbols symbols)
    _wsp_release_fact("${family}" rpc rpc)
    _wsp_release_fact("${family}" vulkan vulkan)
    set(features "")
    if(feature)
        set(features --features ${feature})
    endif()
    set(definitions "")
    foreach(capability IN LISTS capabilities)
        string(TOUPPER "${capability}" macro)
        list(APPEND definitions ${macro_prefix}GGML_BACKEND_${macro})
        if(NOT macro_prefix STREQUAL "WSP_")
            list(APPEND definitions WSP_GGML_BACKEND_${macro})
        endif()
    endforeach()
    set(${prefix}_FAMILY "${family}" PARENT_SCOPE)
    set(${prefix}_PACKAGE "${package}" PARENT_SCOPE)
    set(${prefix}_VERSION "${version}" PARENT_SCOPE)
    set(${prefix}_NEWEST "${newest}" PARENT_SCOPE)
    set(${prefix}_SYMBOL_PREFIX "${symbol_prefix}" PARENT_SCOPE)
    set(${prefix}_MACRO_PREFIX "${macro_prefix}" PARENT_SCOPE)
    set(${prefix}_FEATURES "${features}" PARENT_SCOPE)
    set(${prefix}_CAPABILITIES "${capabilities}" PARENT_SCOPE)
    set(${prefix}_DEFINITIONS "${definitions}" PARENT_SCOPE)
    set(${prefix}_BUILTINS "${builtins}" PARENT_SCOPE)
    set(${prefix}_IOS_BUILTINS "${ios_builtins}" PARENT_SCOPE)
    set(${prefix}_PODSPEC "${podspec}" PARENT_SCOPE)
    set(${prefix}_SYMBOLS "${symbols}" PARENT_SCOPE)
    set(${prefix}_RPC "${rpc}" PARENT_SCOPE)
    set(${prefix}_VULKAN "${vulkan}" PARENT_SCOPE)
endfunction()
