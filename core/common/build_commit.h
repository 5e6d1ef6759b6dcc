#pragma once
// The git commit this build was made from ("<sha>", "<sha>-dirty" with changed tracked files, or
// "unknown" outside a git checkout), refreshed at every build (cmake/StudioBuildCommit.cmake).

namespace studio {

const char* buildCommit();

}  // namespace studio
