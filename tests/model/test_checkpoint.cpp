// Loading Hugging Face folders: safetensors validation, shards, configs, and the errors a
// researcher gets for broken or unsupported checkpoints (each naming the file and the field or
// tensor).

#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>

#include "core/common/error.h"
#include "core/model/checkpoint.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/safetensors.h"
#include "model_test_helpers.h"

using namespace studio;
using model_test::TempDir;

namespace {

// Writes a safetensors file by hand: `header` as given, then `data_bytes` zero bytes.
void writeRaw(const std::string& path, const std::string& header, std::size_t data_bytes) {
  std::ofstream file(path, std::ios::binary);
  const std::uint64_t length = header.size();
  char prefix[8];
  std::memcpy(prefix, &length, 8);  // little-endian on every machine we build on
  file.write(prefix, 8);
  file << header;
  file << std::string(data_bytes, '\0');
}

std::string openError(const std::string& path) {
  try {
    model::SafetensorsFile::open(path);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

void writeConfig(const std::string& dir, const nlohmann::json& json) {
  std::ofstream(dir + "/config.json") << json.dump();
}

std::string loadError(const std::string& dir) {
  try {
    model::loadCheckpoint(dir);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

std::string configError(const std::string& dir) {
  try {
    model::readModelConfig(dir);
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("safetensors: write, map and read back every float dtype", "[model]") {
  TempDir dir("st");
  const std::string path = dir.str() + "/t.safetensors";
  const torch::Tensor a = torch::randn({3, 5});
  const torch::Tensor b = torch::randn({7}).to(torch::kBFloat16);
  const torch::Tensor c = torch::randn({2, 2}).to(torch::kFloat16);
  const torch::Tensor d = torch::arange(6, torch::kInt64);
  model::writeSafetensors(path, {{"a", a}, {"b", b}, {"c", c}, {"d", d}}, {{"note", "x"}});
  const auto file = model::SafetensorsFile::open(path);
  CHECK(file.names() == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(file.info("b").dtype == "BF16");
  CHECK(torch::equal(file.tensor("a"), a));
  CHECK(torch::equal(file.tensor("b"), b));
  CHECK(torch::equal(file.tensor("c"), c));
  CHECK(torch::equal(file.tensor("d"), d));
  CHECK(file.metadata().at("note") == "x");
  // Writing into a view never changes the file.
  file.tensor("a").fill_(0);
  CHECK(torch::equal(model::SafetensorsFile::open(path).tensor("a"), a));
}

TEST_CASE("safetensors: malformed files are refused with the file and tensor named", "[model]") {
  TempDir dir("bad");
  const std::string path = dir.str() + "/model.safetensors";
  SECTION("header longer than the file") {
    std::ofstream file(path, std::ios::binary);
    const std::uint64_t length = 1000;
    file.write(reinterpret_cast<const char*>(&length), 8);
    file << "{}";
    file.close();
    CHECK_THAT(openError(path), Catch::Contains("model.safetensors") && Catch::Contains("header"));
  }
  SECTION("header is not JSON") {
    writeRaw(path, "{not json", 0);
    CHECK_THAT(openError(path), Catch::Contains("model.safetensors"));
  }
  SECTION("deeply nested JSON is bounded") {
    writeRaw(path, std::string(5000, '[') + std::string(5000, ']'), 0);
    CHECK_FALSE(openError(path).empty());
  }
  SECTION("unknown dtype") {
    writeRaw(path, R"({"w":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", 8);
    CHECK_THAT(openError(path), Catch::Contains("w") && Catch::Contains("F33"));
  }
  SECTION("shape times dtype size differs from the byte count") {
    writeRaw(path, R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8);
    CHECK_THAT(openError(path), Catch::Contains("w"));
  }
  SECTION("offsets outside the data section") {
    writeRaw(path, R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8);
    CHECK_THAT(openError(path), Catch::Contains("w"));
  }
  SECTION("overlapping tensors") {
    writeRaw(path,
             R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
             R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
             12);
    CHECK_FALSE(openError(path).empty());
  }
  SECTION("a missing file is an Io error") {
    try {
      model::SafetensorsFile::open(dir.str() + "/absent.safetensors");
      FAIL("opened a missing file");
    } catch (const Error& error) {
      CHECK(error.kind() == ErrorKind::Io);
      CHECK_THAT(error.what(), Catch::Contains("absent.safetensors"));
    }
  }
}

TEST_CASE("checkpoint: a written folder loads back, in one file and in shards", "[model]") {
  const model::ModelConfig config = model_test::tinyQwen3Config();
  const auto tensors = model::randomTensors(config, 7);
  for (const std::uint64_t shard_bytes : {std::uint64_t{0}, std::uint64_t{20000}}) {
    TempDir dir("ckpt");
    model::CheckpointWriteOptions options;
    options.max_shard_bytes = shard_bytes;
    model::writeCheckpoint(dir.str(), config, tensors, options);
    if (shard_bytes > 0) {
      CHECK(std::filesystem::exists(dir.path() / "model.safetensors.index.json"));
      CHECK_FALSE(std::filesystem::exists(dir.path() / "model.safetensors"));
    }
    const model::Checkpoint checkpoint = model::loadCheckpoint(dir.str());
    REQUIRE(checkpoint.tensors.size() == tensors.size());
    for (const auto& [name, tensor] : tensors) {
      INFO(name);
      CHECK(torch::equal(checkpoint.tensors.at(name), tensor));
    }
    CHECK(checkpoint.config.toJson() == config.toJson());
  }
}

TEST_CASE("checkpoint: tensors that do not fit the config are named with both shapes",
          "[model]") {
  TempDir dir("shape");
  const model::ModelConfig config = model_test::tinyQwen3Config();
  auto tensors = model::randomTensors(config, 1);
  std::vector<std::pair<std::string, torch::Tensor>> list(tensors.begin(), tensors.end());
  for (auto& [name, tensor] : list) {
    if (name == "model.layers.1.self_attn.q_proj.weight") tensor = torch::zeros({16, 32});
  }
  model::writeSafetensors(dir.str() + "/model.safetensors", list, {{"format", "pt"}});
  writeConfig(dir.str(), config.toJson());
  const std::string message = loadError(dir.str());
  CHECK_THAT(message, Catch::Contains("model.safetensors") &&
                          Catch::Contains("model.layers.1.self_attn.q_proj.weight") &&
                          Catch::Contains("[16,32]") && Catch::Contains("[32,32]"));

  list.erase(std::remove_if(list.begin(), list.end(),
                            [](const auto& entry) { return entry.first == "model.norm.weight"; }),
             list.end());
  for (auto& [name, tensor] : list) {
    if (name == "model.layers.1.self_attn.q_proj.weight") tensor = torch::zeros({32, 32});
  }
  model::writeSafetensors(dir.str() + "/model.safetensors", list, {{"format", "pt"}});
  CHECK_THAT(loadError(dir.str()), Catch::Contains("model.norm.weight"));
}

TEST_CASE("checkpoint: config.json errors name the field", "[model]") {
  TempDir dir("config");
  nlohmann::json json = model_test::tinyQwen3Config().toJson();
  SECTION("unknown model type") {
    json["model_type"] = "mamba";
    writeConfig(dir.str(), json);
    CHECK_THAT(configError(dir.str()), Catch::Contains("config.json") && Catch::Contains("mamba"));
  }
  SECTION("unknown rope scaling") {
    json["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 2.0}};
    writeConfig(dir.str(), json);
    CHECK_THAT(configError(dir.str()), Catch::Contains("rope_scaling") && Catch::Contains("dynamic"));
  }
  SECTION("heads that do not divide") {
    json["num_key_value_heads"] = 3;
    writeConfig(dir.str(), json);
    CHECK_THAT(configError(dir.str()), Catch::Contains("num_key_value_heads"));
  }
  SECTION("a missing field") {
    json.erase("hidden_size");
    writeConfig(dir.str(), json);
    CHECK_THAT(configError(dir.str()), Catch::Contains("hidden_size"));
  }
  SECTION("not JSON") {
    std::ofstream(dir.str() + "/config.json") << "{\"model_type\": ";
    CHECK_THAT(configError(dir.str()), Catch::Contains("config.json"));
  }
}

TEST_CASE("checkpoint: pickle files are refused because loading them runs code", "[model]") {
  TempDir dir("pickle");
  writeConfig(dir.str(), model_test::tinyQwen3Config().toJson());
  std::ofstream(dir.str() + "/pytorch_model.bin") << "not really a pickle";
  try {
    model::loadCheckpoint(dir.str());
    FAIL("loaded a pickle checkpoint");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Unsupported);
    CHECK_THAT(error.what(), Catch::Contains("pytorch_model.bin") &&
                                 Catch::Contains("arbitrary code"));
  }
}

TEST_CASE("checkpoint: a folder without weights or config says which file is missing",
          "[model]") {
  TempDir dir("empty");
  CHECK_THAT(loadError(dir.str()), Catch::Contains("config.json"));
  writeConfig(dir.str(), model_test::tinyQwen3Config().toJson());
  CHECK_THAT(loadError(dir.str()), Catch::Contains("safetensors"));
}
