// Provenance in run results (core/engine/provenance.h): the build, libtorch, device, dtype and the
// model's config and weights-header hashes, in what executeRun returns, for failed runs too once
// the model is loaded; the weights hash follows the safetensors headers, not the tensor values.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include "core/common/build_commit.h"
#include "core/common/error.h"
#include "core/common/file_fingerprint.h"
#include "core/common/versions.h"
#include "core/engine/provenance.h"
#include "core/engine/run_executor.h"
#include "methods_test_helpers.h"
#include "plugins/builtin_plugins.h"
#include "support/scoped_environment.h"

using namespace studio;

namespace {

std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The model's folder copied to a fresh temporary folder, to edit.
std::filesystem::path copiedFolder(const methods_test::TinyModelFolder& folder, const std::string& tag) {
  const auto copy = methods_test::tempPath(tag);
  std::filesystem::copy(folder.path(), copy, std::filesystem::copy_options::recursive);
  return copy;
}

}  // namespace

TEST_CASE("a run's result says which build, device, dtype and model it came from", "[provenance]") {
  plugins::registerBuiltinPlugins();
  methods_test::TinyModelFolder folder("provenance-run");
  engine::ModelCache models;
  methods_test::CollectingSink sink;
  const auto result = engine::executeRun(methods_test::tinySpec(folder.path(), "in_context"), models,
                                         sink, [] { return false; });
  REQUIRE(result.status == engine::RunStatus::Completed);
  const nlohmann::json& p = result.provenance;
  REQUIRE(p.is_object());
  CHECK(p["studio_version"] == versionInfo().studio);
  CHECK(p["commit"] == std::string(buildCommit()));
  CHECK(p["libtorch"] == versionInfo().torch);
  CHECK(p["device"] == "cpu");
  // The CPU's product name as /proc/cpuinfo gives it (a CUDA device: the runtime's).
  std::string cpu_model = "unknown";
  {
    std::ifstream cpuinfo("/proc/cpuinfo");
    for (std::string line; std::getline(cpuinfo, line);) {
      if (line.rfind("model name", 0) == 0) {
        cpu_model = line.substr(line.find_first_not_of(" \t", line.find(':') + 1));
        break;
      }
    }
  }
  CHECK(p["device_name"] == cpu_model);
  CHECK(p["dtype"] == "f32");
  CHECK(p["config_hash"] == filesFingerprint({folder.path() + "/config.json"}));
  CHECK(std::regex_match(p["weights_header_hash"].get<std::string>(), std::regex("[0-9a-f]{32}")));
  CHECK(result.toJson()["provenance"] == p);

  SECTION("a run that fails after loading its model still says where it came from") {
    // An unknown parameter is refused once the model is loaded (resolveSpec).
    const auto spec = methods_test::tinySpec(folder.path(), "in_context", {{"bogus", 1}});
    const auto failed = engine::executeRun(spec, models, sink, [] { return false; });
    CHECK(failed.status == engine::RunStatus::Failed);
    CHECK_THAT(failed.error, Catch::Contains("bogus"));
    CHECK(failed.provenance == p);
  }
  SECTION("a run whose model cannot be loaded has none") {
    auto spec = methods_test::tinySpec(folder.path() + "/missing", "in_context");
    const auto failed = engine::executeRun(spec, models, sink, [] { return false; });
    CHECK(failed.status == engine::RunStatus::Failed);
    CHECK(failed.provenance.is_null());
  }
}

TEST_CASE("a run's provenance lists the kernel switches set while it ran", "[provenance]") {
  plugins::registerBuiltinPlugins();
  methods_test::TinyModelFolder folder("provenance-switches");
  engine::ModelCache models;
  methods_test::CollectingSink sink;
  const auto spec = methods_test::tinySpec(folder.path(), "in_context");
  {
    // Neither changes a CPU run; the provenance says they were set all the same.
    const test::ScopedEnvironment gemv("STUDIO_DECODE_GEMV", "fused");
    const test::ScopedEnvironment attention("STUDIO_DECODE_ATTENTION", "staged");
    const auto result = engine::executeRun(spec, models, sink, [] { return false; });
    REQUIRE(result.status == engine::RunStatus::Completed);
    const nlohmann::json& switches = result.provenance["kernel_switches"];
    CHECK(switches["STUDIO_DECODE_GEMV"] == "fused");
    CHECK(switches["STUDIO_DECODE_ATTENTION"] == "staged");
  }
  // The model stays cached from the run above; the switches are those of this run.
  const auto result = engine::executeRun(spec, models, sink, [] { return false; });
  REQUIRE(result.status == engine::RunStatus::Completed);
  const nlohmann::json& switches = result.provenance["kernel_switches"];
  CHECK(switches.is_object());
  CHECK_FALSE(switches.contains("STUDIO_DECODE_GEMV"));
  CHECK_FALSE(switches.contains("STUDIO_DECODE_ATTENTION"));
}

TEST_CASE("the weights header hash follows the safetensors headers and not the values",
          "[provenance]") {
  methods_test::TinyModelFolder folder("provenance-hash");
  const auto loaded = folder.load();
  const std::string original = engine::provenanceOf(*loaded).weights_header_hash;
  model::LoadedModel copy = *loaded;

  SECTION("another tensor value: the same hash") {
    const auto dir = copiedFolder(folder, "provenance-values");
    std::string bytes = readBytes(dir / "model.safetensors");
    bytes.back() = static_cast<char>(bytes.back() ^ 0x55);  // the last tensor's last byte
    writeBytes(dir / "model.safetensors", bytes);
    copy.dir = dir.string();
    CHECK(engine::provenanceOf(copy).weights_header_hash == original);
    std::filesystem::remove_all(dir);
  }
  SECTION("another header: another hash") {
    const auto dir = copiedFolder(folder, "provenance-header");
    std::string bytes = readBytes(dir / "model.safetensors");
    const auto at = bytes.find("\"F32\"");
    REQUIRE(at != std::string::npos);
    bytes.replace(at, 5, "\"I32\"");
    writeBytes(dir / "model.safetensors", bytes);
    copy.dir = dir.string();
    CHECK(engine::provenanceOf(copy).weights_header_hash != original);
    std::filesystem::remove_all(dir);
  }
  SECTION("another config.json: another config hash") {
    const auto dir = copiedFolder(folder, "provenance-config");
    writeBytes(dir / "config.json", readBytes(dir / "config.json") + "\n");
    copy.dir = dir.string();
    const auto changed = engine::provenanceOf(copy);
    CHECK(changed.config_hash != engine::provenanceOf(*loaded).config_hash);
    CHECK(changed.weights_header_hash == original);
    std::filesystem::remove_all(dir);
  }
  SECTION("a header longer than its file is refused, naming the file") {
    const auto dir = copiedFolder(folder, "provenance-truncated");
    writeBytes(dir / "model.safetensors", readBytes(dir / "model.safetensors").substr(0, 20));
    copy.dir = dir.string();
    try {
      engine::provenanceOf(copy);
      FAIL("a truncated header was hashed");
    } catch (const Error& error) {
      CHECK(error.kind() == ErrorKind::Format);
      CHECK_THAT(error.what(), Catch::Contains("model.safetensors"));
    }
    std::filesystem::remove_all(dir);
  }
  SECTION("a model built in memory hashes its config and has no weights files") {
    copy.dir.clear();
    const auto built = engine::provenanceOf(copy);
    CHECK(built.config_hash == bytesFingerprint({loaded->config.toJson().dump()}));
    CHECK(built.weights_header_hash == "none");
  }
}
