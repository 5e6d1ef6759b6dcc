#pragma once
// A Hugging Face hub cache laid out on disk as huggingface_hub lays it out, for the tests of
// Org/Name resolution: models--Org--Name/blobs/ holding the files, snapshots/<commit>/ linking to
// them, refs/<name> files holding the commit.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace studio::test {

// Adds one snapshot of `repo_folder` (models--Org--Name) under `cache` with `files` (name ->
// content), each stored as a blob and linked from the snapshot, and each of `refs` naming
// `commit`. Returns the snapshot folder.
inline std::filesystem::path addHubSnapshot(const std::filesystem::path& cache,
                                            const std::string& repo_folder, const std::string& commit,
                                            const std::map<std::string, std::string>& files,
                                            const std::vector<std::string>& refs) {
  namespace fs = std::filesystem;
  const fs::path repo = cache / repo_folder;
  const fs::path snapshot = repo / "snapshots" / commit;
  fs::create_directories(snapshot);
  fs::create_directories(repo / "blobs");
  for (const auto& [name, text] : files) {
    const std::string blob = "blob-" + commit.substr(0, 8) + "-" + name;
    std::ofstream(repo / "blobs" / blob, std::ios::binary) << text;
    fs::create_symlink(fs::path("../../blobs") / blob, snapshot / name);
  }
  fs::create_directories(repo / "refs");
  for (const std::string& ref : refs) {
    fs::create_directories((repo / "refs" / ref).parent_path());
    std::ofstream(repo / "refs" / ref, std::ios::binary) << commit;
  }
  return snapshot;
}

// The files of a model folder (name -> content), to cache it with addHubSnapshot.
inline std::map<std::string, std::string> folderFiles(const std::filesystem::path& folder) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    std::ifstream in(entry.path(), std::ios::binary);
    files[entry.path().filename().string()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return files;
}

}  // namespace studio::test
