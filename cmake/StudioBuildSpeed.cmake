# How the studio keeps its build fast (CONTRIBUTING.md, "Build time").
#
# libtorch's <torch/torch.h> costs 25-45 s to parse in every translation unit that includes it, so
# the units that do share one precompiled header (built once, in studio_core). Loading that
# header is not free either: its .gch is ~570 MB and costs ~10 s per unit, more than most units
# that never touch a tensor take to compile on their own. So each target's sources are split:
#
#   - units that include torch (directly or through the project's own headers) use the
#     precompiled header and are compiled in unity groups of a few, so that the load and the
#     template instantiations they share are paid once per group;
#   - every other unit compiles alone, without the precompiled header.
#
# The split is computed at configure time by following `#include "..."` lines through the
# project's headers. It only decides speed, never correctness: a unit put on the wrong side still
# compiles (it parses torch itself, or loads a header it does not need).

set(STUDIO_TORCH_UNITY_GROUP_SIZE 4 CACHE STRING
    "Translation units that include torch compiled together in one unity source (1: no unity)")

# Sets `out` to TRUE when `file` includes torch, ATen or c10 headers, directly or through project
# headers (quoted includes resolved against the source root or the including file's folder).
function(_studio_includes_torch file out)
  get_property(known GLOBAL PROPERTY "STUDIO_TORCH_SCAN:${file}" SET)
  if(known)
    get_property(result GLOBAL PROPERTY "STUDIO_TORCH_SCAN:${file}")
    set(${out} ${result} PARENT_SCOPE)
    return()
  endif()
  # Marked first, so that headers including each other end the recursion.
  set_property(GLOBAL PROPERTY "STUDIO_TORCH_SCAN:${file}" FALSE)
  set(result FALSE)
  file(STRINGS "${file}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  get_filename_component(folder "${file}" DIRECTORY)
  foreach(line IN LISTS lines)
    if(line MATCHES "#[ \t]*include[ \t]*<(torch|ATen|c10)/")
      set(result TRUE)
      break()
    endif()
    if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      set(header "${CMAKE_MATCH_1}")
      set(found "")
      foreach(base IN ITEMS "${CMAKE_SOURCE_DIR}" "${folder}")
        if(EXISTS "${base}/${header}" AND NOT IS_DIRECTORY "${base}/${header}")
          set(found "${base}/${header}")
          break()
        endif()
      endforeach()
      if(found)
        _studio_includes_torch("${found}" nested)
        if(nested)
          set(result TRUE)
          break()
        endif()
      endif()
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY "STUDIO_TORCH_SCAN:${file}" ${result})
  set(${out} ${result} PARENT_SCOPE)
endfunction()

# Applies the split above to `target`'s C++ sources. The target must already have its precompiled
# header (target_precompile_headers(... <torch/torch.h>) or REUSE_FROM studio_core).
function(studio_split_torch_units target)
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(torch_units "")
  foreach(source IN LISTS sources)
    if(source MATCHES "^\\$<" OR NOT source MATCHES "\\.(cpp|cc|cxx)$")
      continue()
    endif()
    if(IS_ABSOLUTE "${source}")
      set(path "${source}")
    else()
      set(path "${source_dir}/${source}")
    endif()
    _studio_includes_torch("${path}" uses_torch)
    if(uses_torch)
      list(APPEND torch_units "${path}")
    else()
      set_source_files_properties("${path}" TARGET_DIRECTORY ${target}
                                  PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endif()
  endforeach()
  if(STUDIO_TORCH_UNITY_GROUP_SIZE GREATER 1 AND torch_units)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
    list(SORT torch_units)
    set(index 0)
    foreach(path IN LISTS torch_units)
      math(EXPR group "${index} / ${STUDIO_TORCH_UNITY_GROUP_SIZE}")
      set_source_files_properties("${path}" TARGET_DIRECTORY ${target}
                                  PROPERTIES UNITY_GROUP "torch_${group}")
      math(EXPR index "${index} + 1")
    endforeach()
  endif()
endfunction()
