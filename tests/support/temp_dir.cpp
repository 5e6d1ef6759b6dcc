#include "support/temp_dir.h"

#include <stdlib.h>

#include <fstream>
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

std::string TempDir::write(const std::string& relative, const std::string& bytes) const {
  const std::filesystem::path file = m_path / relative;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("could not write " + file.string());
  return file.string();
}

TempDir::~TempDir() {
  try {
    removeTree(m_path.string());
  } catch (const Error&) {  // a folder left in the temp folder must not end the test run
  }
}

}  // namespace studio::test
