#include "core/common/build_commit.h"

#include "studio/build_commit.h"

namespace studio {

const char* buildCommit() { return STUDIO_BUILD_COMMIT; }

}  // namespace studio
