#pragma once
// A folder under the system temp directory that removes itself, for tests that build files.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "core/common/error.h"
#include "core/common/remove_tree.h"

namespace studio::testing {

class TempFolder {
 public:
  TempFolder() {
    static std::atomic<int> counter{0};
    m_path = std::filesystem::temp_directory_path() /
             ("studio-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    studio::removeTree(m_path.string());
    std::filesystem::create_directories(m_path);
  }
  ~TempFolder() {
    try {
      studio::removeTree(m_path.string());
    } catch (const studio::Error&) {  // a folder left in the temp folder must not end the test run
    }
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;

  const std::filesystem::path& path() const { return m_path; }

  // Writes `bytes` to `relative` (folders created), returns the full path.
  std::string write(const std::string& relative, const std::string& bytes) const {
    const std::filesystem::path file = m_path / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return file.string();
  }

 private:
  std::filesystem::path m_path;
};

}  // namespace studio::testing
