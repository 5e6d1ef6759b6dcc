#include "support/temp_dir.h"

#include <stdlib.h>

#include <stdexcept>

#include "core/common/error.h"
#include "core/common/remove_tree.h"

namespace studio::test {

TempDir::TempDir(const std::string& tag) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("studio-" + tag + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed for " + pattern);
  }
  m_path = pattern;
}

TempDir::~TempDir() {
  try {
    removeTree(m_path.string());
  } catch (const Error&) {  // a folder left in the temp folder must not end the test run
  }
}

}  // namespace studio::test
