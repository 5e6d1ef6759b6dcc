# One CTest test per test source file, not per TEST_CASE (CONTRIBUTING.md, "Build and test time").
#
# Every test process loads libtorch, which costs ~0.4 s of CPU before the first test runs: with
# one process per TEST_CASE, starting 580 processes took about half of the suite's CPU time. A
# file's test cases share a process instead: `test_model -# "[#test_causality]~[.]"` runs the
# visible cases of tests/model/test_causality.cpp (-#, --filenames-as-tags, tags every case with
# its file's name; `~[.]` leaves the hidden [.slow] and [.gpu] ones out; `--warn NoTests` fails a
# run that matched nothing). Catch names each failing case in the output.
#
# The files are found after each build by asking the executable for its tags
# (StudioCatchFileTestsDiscover.cmake), so a file whose cases are all hidden gets no test and a new
# file needs no CMake change.

set(_STUDIO_CATCH_FILE_DISCOVER "${CMAKE_CURRENT_LIST_DIR}/StudioCatchFileTestsDiscover.cmake")

# studio_catch_file_tests(<target> PREFIX <joined to each file name by a space> LABELS <label>
#                         TIMEOUT <s>
#                         ENVIRONMENT <NAME=value>)
function(studio_catch_file_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "PREFIX;LABELS;TIMEOUT;ENVIRONMENT" "")
  set(ctest_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_file_tests.cmake")
  # Part of building the target (so `--target test_x` lists its files too); a change to the
  # discovery relinks the target and so runs it again.
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND "${CMAKE_COMMAND}"
            "-DTEST_EXECUTABLE=$<TARGET_FILE:${target}>"
            "-DTEST_PREFIX=${arg_PREFIX}"
            "-DTEST_LABELS=${arg_LABELS}"
            "-DTEST_TIMEOUT=${arg_TIMEOUT}"
            "-DTEST_ENVIRONMENT=${arg_ENVIRONMENT}"
            "-DCTEST_FILE=${ctest_file}"
            -P "${_STUDIO_CATCH_FILE_DISCOVER}"
    BYPRODUCTS "${ctest_file}"
    VERBATIM)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${_STUDIO_CATCH_FILE_DISCOVER}")
  # Until the target is built, CTest sees one failing test without labels in its place (a part of
  # the suite chosen by label, as scripts/sanitize runs, leaves it out).
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_file_tests_include.cmake")
  file(WRITE "${include_file}"
       "if(EXISTS \"${ctest_file}\")\n"
       "  include(\"${ctest_file}\")\n"
       "else()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
