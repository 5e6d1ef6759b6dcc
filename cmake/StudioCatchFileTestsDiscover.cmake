# Run after a test executable is built (StudioCatchFileTests.cmake): lists the files that hold
# visible test cases and writes one CTest test per file into CTEST_FILE.
#
# Inputs: TEST_EXECUTABLE, TEST_PREFIX, TEST_LABELS, TEST_TIMEOUT, TEST_ENVIRONMENT, CTEST_FILE.

execute_process(COMMAND "${TEST_EXECUTABLE}" --filenames-as-tags --list-tags
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE result)
# Catch2 2.x exits with the number of tags it listed, so success is read from the output.
if(NOT result MATCHES "^[0-9]+$" OR NOT listing MATCHES "All available tags:")
  message(FATAL_ERROR "${TEST_EXECUTABLE} --filenames-as-tags --list-tags failed (${result}):\n${listing}${errors}")
endif()

# Lines such as "   9  [#test_attention_kernel]": the count of visible cases, then the file's tag.
string(REGEX MATCHALL "\\[#[A-Za-z0-9_.-]+\\]" file_tags "${listing}")
if(NOT file_tags)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no test files:\n${listing}")
endif()

set(content "# Written by StudioCatchFileTestsDiscover.cmake after ${TEST_EXECUTABLE} was built.\n")
foreach(tag IN LISTS file_tags)
  string(REGEX REPLACE "^\\[#(.*)\\]$" "\\1" file "${tag}")
  set(name "${TEST_PREFIX} ${file}")
  string(APPEND content
         "add_test([==[${name}]==] [==[${TEST_EXECUTABLE}]==] --filenames-as-tags --warn NoTests"
         " [==[${tag}~[.]]==])\n"
         "set_tests_properties([==[${name}]==] PROPERTIES LABELS [==[${TEST_LABELS}]==]"
         " TIMEOUT ${TEST_TIMEOUT} ENVIRONMENT [==[${TEST_ENVIRONMENT}]==])\n")
endforeach()
file(WRITE "${CTEST_FILE}" "${content}")
