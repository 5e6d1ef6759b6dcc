// generation_config.json's sampling defaults (decoding=model): read as transformers' GenerationConfig
// reads them, with its defaults for what is absent, bad values named by file and field, and turned
// into the sampler's settings only when decoding=model asks for them.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/common/error.h"
#include "core/model/checkpoint.h"
#include "model_test_helpers.h"
#include "plugins/method_support/method_support.h"
#include "support/test_paths.h"

using namespace studio;
using model_test::fixtureModel;
using model_test::TempDir;

namespace {

// qwen3-tiny's config.json and weights with `generation` as generation_config.json (none: absent).
void copyTinyModel(const TempDir& dir, const std::string& generation) {
  for (const char* name : {"config.json", "model.safetensors"}) {
    std::filesystem::copy_file(std::filesystem::path(fixtureModel("qwen3-tiny")) / name, dir / name);
  }
  if (!generation.empty()) std::ofstream(dir / "generation_config.json") << generation;
}

std::string readError(const TempDir& dir) {
  try {
    model::readModelConfig(dir.str());
  } catch (const Error& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("generation_config.json: Qwen3's sampling defaults and end-of-turn ids", "[model]") {
  TempDir dir("generation");
  std::ifstream fixture(std::filesystem::path(test_paths::kFixturesDir) / "generation" /
                        "qwen3-generation_config.json");
  copyTinyModel(dir, std::string(std::istreambuf_iterator<char>(fixture), {}));
  const model::ModelConfig config = model::readModelConfig(dir.str());
  CHECK(config.generation.from_file);
  CHECK(config.generation.do_sample);
  CHECK(config.generation.temperature == Approx(0.6));
  CHECK(config.generation.top_p == Approx(0.95));
  CHECK(config.generation.top_k == 20);
  // config.json's eos id first, then the file's that are new.
  CHECK(config.eos_token_ids == std::vector<std::int64_t>{1, 151645, 151643});

  const model::SamplingParams sampled =
      plugins::samplingOf({{"decoding", "model"}}, 7, false, config.generation);
  CHECK(sampled.temperature == Approx(0.6));
  CHECK(sampled.top_p == Approx(0.95));
  CHECK(sampled.top_k == 20);
  CHECK(sampled.seed == 7);
  CHECK(plugins::samplingOf({{"decoding", "greedy"}}, 7, false, config.generation).greedy());
  // The paper's settings stay the paper's, whatever the checkpoint says.
  CHECK(plugins::samplingOf({{"decoding", "paper"}}, 7, false, config.generation).top_p ==
        Approx(0.8));
}

TEST_CASE("generation_config.json: absent fields and files are transformers' defaults", "[model]") {
  TempDir absent("generation-absent");
  copyTinyModel(absent, "");
  const model::ModelConfig none = model::readModelConfig(absent.str());
  CHECK_FALSE(none.generation.from_file);
  CHECK(plugins::samplingOf({{"decoding", "model"}}, 1, false, none.generation).greedy());

  TempDir partial("generation-partial");
  copyTinyModel(partial, R"({"do_sample": true, "temperature": 0.8})");
  const model::ModelConfig some = model::readModelConfig(partial.str());
  CHECK(some.generation.top_p == 1.0);
  CHECK(some.generation.top_k == 50);
  // do_sample false: greedy, as generate() is, whatever the temperature says.
  TempDir greedy("generation-greedy");
  copyTinyModel(greedy, R"({"do_sample": false, "temperature": 0.8})");
  CHECK(plugins::samplingOf({{"decoding", "model"}}, 1, false,
                            model::readModelConfig(greedy.str()).generation)
            .greedy());
}

TEST_CASE("generation_config.json: bad values are named by file and field", "[model]") {
  struct Case {
    std::string json, field;
  };
  for (const Case& c : {Case{R"({"top_p": 1.5})", "top_p"}, Case{R"({"temperature": "hot"})", "temperature"},
                        Case{R"({"temperature": -1})", "temperature"}, Case{R"({"top_k": -3})", "top_k"},
                        Case{R"({"do_sample": "yes"})", "do_sample"}, Case{R"([1, 2])", ""}}) {
    INFO(c.json);
    TempDir dir("generation-bad");
    copyTinyModel(dir, c.json);
    const std::string error = readError(dir);
    CHECK_THAT(error, Catch::Contains("generation_config.json") && Catch::Contains(c.field));
  }
}
