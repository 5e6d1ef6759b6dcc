#pragma once
// A fresh folder under the system's temp folder (mkdtemp, so parallel test processes never share
// one), removed with everything in it on destruction.

#include <filesystem>
#include <string>

namespace studio::test {

class TempDir {
 public:
  explicit TempDir(const std::string& tag = "test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  std::string str() const { return m_path.string(); }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }
  // The path of `name` inside the folder, as a string (for APIs that take one).
  std::string file(const std::string& name) const { return (m_path / name).string(); }
  // Writes `bytes` to `relative` inside the folder (its folders created) and returns its path.
  std::string write(const std::string& relative, const std::string& bytes) const;

 private:
  std::filesystem::path m_path;
};

}  // namespace studio::test
