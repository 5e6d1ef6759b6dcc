#pragma once
// Where the tests find their fixtures, the sources and the built programs. Defined in a file CMake
// generates (test_paths.cpp.in), so that no other test unit has an absolute path on its command
// line and ccache can reuse the units a checkout elsewhere compiled.

namespace studio::test_paths {

extern const char* const kFixturesDir;  // tests/fixtures
extern const char* const kBinaryDir;    // the build folder of tests/
extern const char* const kSourceDir;    // the source root

}  // namespace studio::test_paths
