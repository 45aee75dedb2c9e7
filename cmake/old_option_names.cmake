# The project's options were named WSP_GGML_BACKEND_<NAME> and WSP_WHISPER_RN_RELEASE until
# 2026-12, which read as whisper.rn's own ggml names (its WSP_GGML_BACKEND_DL macro, its
# WSP_GGML_BACKEND_PATH variable) and said "whisper.rn" in llama.rn's builds. They are GGMLRS_<NAME>
# now. An old name given still works, for a while: its value goes to the new name (unless that is
# given too) with a deprecation message, and the old cache entry is dropped.
#
#   ggmlrs_take_old_option_names(<NAME>...)    NAME: the new name without GGMLRS_
function(ggmlrs_take_old_option_names)
    foreach(name IN LISTS ARGN)
        if(name STREQUAL "WHISPER_RN_RELEASE")
            set(old WSP_WHISPER_RN_RELEASE)
        else()
            set(old WSP_GGML_BACKEND_${name})
        endif()
        if(NOT DEFINED CACHE{${old}})
            continue()
        endif()
        # (read as ${...}, so that CMake does not call it unused)
        set(value "${${old}}")
        get_property(type CACHE ${old} PROPERTY TYPE)
        if(type STREQUAL "UNINITIALIZED")
            set(type STRING)
        endif()
        if(NOT DEFINED CACHE{GGMLRS_${name}})
            set(GGMLRS_${name} "${value}" CACHE ${type} "")
        endif()
        message(DEPRECATION "${old} is now GGMLRS_${name} (the old name is read for a while)")
        unset(${old} CACHE)
    endforeach()
endfunction()
