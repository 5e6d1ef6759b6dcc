#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>

#include "core/common/error.h"
#include "core/common/versions.h"

using namespace studio;

TEST_CASE("an error names the file and the field before what went wrong", "[common]") {
  Error error(ErrorKind::Weights, "model.safetensors", "model.layers.3.self_attn.q_proj.weight",
              "has shape [64,128], config.json implies [128,128]");
  CHECK(std::string(error.what()) ==
        "model.safetensors: model.layers.3.self_attn.q_proj.weight: has shape [64,128], "
        "config.json implies [128,128]");
  CHECK(error.kind() == ErrorKind::Weights);
  CHECK(error.detail() == "has shape [64,128], config.json implies [128,128]");
  CHECK(std::string(Error(ErrorKind::Io, "cannot read").what()) == "cannot read");
}

TEST_CASE("the version report names torch, Qt, SQLite and CUDA", "[common]") {
  const auto rows = versionRows(versionInfo());
  std::vector<std::string> names;
  for (const auto& row : rows) names.push_back(row.first);
  CHECK(std::find(names.begin(), names.end(), "torch") != names.end());
  CHECK(std::find(names.begin(), names.end(), "Qt") != names.end());
  CHECK(std::find(names.begin(), names.end(), "SQLite") != names.end());
  CHECK(std::find(names.begin(), names.end(), "CUDA") != names.end());
  for (const auto& row : rows) CHECK_FALSE(row.second.empty());
  // The commit the build was made from: a checkout's sha (dirty when tracked files changed), or
  // "unknown" outside git.
  const std::string commit = versionInfo().commit;
  CHECK(std::regex_match(commit, std::regex("[0-9a-f]{40}(-dirty)?|unknown")));
}
