#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/common/remove_tree.h"
#include "support/temp_dir.h"

using namespace studio;
namespace fs = std::filesystem;

TEST_CASE("removeTree removes a folder with nested contents and never follows a link", "[common]") {
  test::TempDir temp("remove-tree");
  const fs::path tree = temp / "checkpoint-000250";
  fs::create_directories(tree / "nested" / "deeper");
  std::ofstream(tree / "model.safetensors") << "weights";
  std::ofstream(tree / "nested" / "deeper" / "optimizer.pt") << "state";
  const fs::path outside = temp / "kept";
  fs::create_directories(outside);
  std::ofstream(outside / "keep.txt") << "not inside the tree";
  fs::create_directory_symlink(outside, tree / "link-to-kept");

  removeTree(tree.string());
  CHECK_FALSE(fs::exists(fs::symlink_status(tree)));
  CHECK(fs::exists(outside / "keep.txt"));  // the link went, not what it pointed to

  std::ofstream(temp / "single.txt") << "a file";
  removeTree(temp.file("single.txt"));
  CHECK_FALSE(fs::exists(temp / "single.txt"));
}

TEST_CASE("removeTree accepts a missing path and names an entry it cannot remove", "[common]") {
  test::TempDir temp("remove-tree");
  CHECK_NOTHROW(removeTree(temp.file("never-made")));
  // /proc entries cannot be unlinked, not even by root, so this fails on every Linux machine.
  try {
    removeTree("/proc/self/status");
    FAIL("removing /proc/self/status should have failed");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Io);
    CHECK(error.where() == "/proc/self/status");
    CHECK_THAT(error.what(), Catch::Contains("cannot remove"));
  }
}
