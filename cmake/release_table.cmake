# The release table (releases.txt) for CMake: which family serves a whisper.rn release, and that
# family's facts. Also included by integrations/whisper.rn/android/wsp-ggml-backend.cmake.
#
#   WSP_SERVED_RELEASES            every release a family serves, in the table's order
#   wsp_release_facts(<release> <prefix>)
#       <prefix>_FAMILY            the family that serves it (empty: none does)
#       <prefix>_FEATURES          cargo arguments that build the family (--features X, or none)
#       <prefix>_CAPABILITIES      its capabilities
#       <prefix>_DEFINITIONS       WSP_GGML_BACKEND_<CAPABILITY> for each (the header's macros)
#       <prefix>_BUILTINS          the built-in backends its registry knows, in order
#       <prefix>_SYMBOLS           the file under ctests/ that lists its functions
#       <prefix>_RPC               the llama-cpp-python release whose ggml-rpc builds against it
#       <prefix>_VULKAN            the llama-cpp-python release whose ggml-vulkan builds against it

set(_wsp_release_table "${CMAKE_CURRENT_LIST_DIR}/../releases.txt")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_wsp_release_table}")
file(STRINGS "${_wsp_release_table}" _wsp_release_lines REGEX "^[^# ]")

# _wsp_release_fact(<family> <key> <var>): the family's values for key, as a list
function(_wsp_release_fact family key var)
    set(values "")
    foreach(line IN LISTS _wsp_release_lines)
        if(line MATCHES "^([^ ]+) +([^ ]+) +(.*)$" AND CMAKE_MATCH_1 STREQUAL family AND CMAKE_MATCH_2 STREQUAL key)
            string(REGEX REPLACE " +" ";" words "${CMAKE_MATCH_3}")
            list(REMOVE_ITEM words "-")
            list(APPEND values ${words})
        endif()
    endforeach()
    set(${var} "${values}" PARENT_SCOPE)
endfunction()

set(WSP_SERVED_RELEASES "")
foreach(line IN LISTS _wsp_release_lines)
    if(line MATCHES "^[^ ]+ +releases +(.*)$")
        string(REGEX REPLACE " +" ";" _releases "${CMAKE_MATCH_1}")
        list(APPEND WSP_SERVED_RELEASES ${_releases})
    endif()
endforeach()

function(wsp_release_facts release prefix)
    set(family "")
    foreach(line IN LISTS _wsp_release_lines)
        if(line MATCHES "^([^ ]+) +releases +(.*)$")
            set(candidate "${CMAKE_MATCH_1}")
            string(REGEX REPLACE " +" ";" releases "${CMAKE_MATCH_2}")
            if(release IN_LIST releases)
                set(family "${candidate}")
            endif()
        endif()
    endforeach()
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
        list(APPEND definitions WSP_GGML_BACKEND_${macro})
    endforeach()
    set(${prefix}_FAMILY "${family}" PARENT_SCOPE)
    set(${prefix}_FEATURES "${features}" PARENT_SCOPE)
    set(${prefix}_CAPABILITIES "${capabilities}" PARENT_SCOPE)
    set(${prefix}_DEFINITIONS "${definitions}" PARENT_SCOPE)
    set(${prefix}_BUILTINS "${builtins}" PARENT_SCOPE)
    set(${prefix}_SYMBOLS "${symbols}" PARENT_SCOPE)
    set(${prefix}_RPC "${rpc}" PARENT_SCOPE)
    set(${prefix}_VULKAN "${vulkan}" PARENT_SCOPE)
endfunction()
