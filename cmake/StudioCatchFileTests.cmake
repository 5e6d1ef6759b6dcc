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
  # Written again whenever the executable or this discovery changes.
  add_custom_command(OUTPUT "${ctest_file}"
    COMMAND "${CMAKE_COMMAND}"
            "-DTEST_EXECUTABLE=$<TARGET_FILE:${target}>"
            "-DTEST_PREFIX=${arg_PREFIX}"
            "-DTEST_LABELS=${arg_LABELS}"
            "-DTEST_TIMEOUT=${arg_TIMEOUT}"
            "-DTEST_ENVIRONMENT=${arg_ENVIRONMENT}"
            "-DCTEST_FILE=${ctest_file}"
            -P "${_STUDIO_CATCH_FILE_DISCOVER}"
    DEPENDS ${target} "${_STUDIO_CATCH_FILE_DISCOVER}"
    VERBATIM)
  add_custom_target(${target}_file_tests ALL DEPENDS "${ctest_file}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${ctest_file}")
endfunction()
