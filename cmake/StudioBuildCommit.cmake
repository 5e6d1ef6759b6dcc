# Run at every build (cmake -P, from core/CMakeLists.txt): writes the commit the sources are at
# into OUT as a C++ header, and rewrites it only when that changes, so that only the one unit
# including it (core/common/build_commit.cpp) recompiles after a commit. "-dirty" marks tracked
# files changed since; "unknown" a tree that is not a git checkout (a tarball).
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE head_rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(head_rc EQUAL 0)
    set(commit "${head}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" status --porcelain
                            --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE status_rc ERROR_QUIET)
    if(status_rc EQUAL 0 AND NOT changes STREQUAL "")
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(content "#pragma once\n// Generated at build time by cmake/StudioBuildCommit.cmake.\n#define STUDIO_BUILD_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL content)
  file(WRITE "${OUT}" "${content}")
endif()
