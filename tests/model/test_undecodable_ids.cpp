// A checkpoint whose embedding is padded past its tokenizer's vocabulary: generation never
// samples an id the tokenizer cannot decode, so the run keeps its answer.

#include <catch2/catch.hpp>

#include <filesystem>

#include "core/model/checkpoint_writer.h"
#include "core/model/generation.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/undecodable_ids.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

using namespace studio;

namespace {

constexpr std::int64_t kPaddedVocab = 320;  // the tokenizer has 259 ids (a multiple of 64 above)

// The tiny model with its embedding and LM head padded to 320 rows; the padded rows of the LM
// head are made to dominate, so that an unmasked greedy step would pick one.
void writePaddedModel(const test::TinyModelFolder& tiny, const std::string& dir) {
  nlohmann::json json = tiny.config().toJson();
  json["vocab_size"] = kPaddedVocab;
  json["tie_word_embeddings"] = false;
  const model::ModelConfig config = model::ModelConfig::fromJson(json);
  auto tensors = model::randomTensors(config, 3);
  auto& head = tensors.at("lm_head.weight");  // [320, hidden]
  head.narrow(0, 259, kPaddedVocab - 259).mul_(50.0);
  model::writeCheckpoint(dir, config, tensors);
  std::filesystem::copy_file(std::filesystem::path(tiny.path()) / "tokenizer.json",
                             std::filesystem::path(dir) / "tokenizer.json");
}

}  // namespace

TEST_CASE("undecodable ids: past the tokenizer's vocabulary, masked to -inf", "[model]") {
  const test::TinyModelFolder tiny("undecodable-mask");
  const auto tokenizer = tokenizer::Tokenizer::fromFile(tiny.path() + "/tokenizer.json");
  REQUIRE(tokenizer->vocabSize() == 259);
  CHECK_FALSE(model::undecodableIds(*tokenizer, 259, torch::kCPU).defined());
  const auto mask = model::undecodableIds(*tokenizer, kPaddedVocab, torch::kCPU);
  REQUIRE(mask.defined());
  CHECK(mask.sum().item<std::int64_t>() == kPaddedVocab - 259);
  CHECK_FALSE(mask[258].item<bool>());
  CHECK(mask[259].item<bool>());
  auto logits = torch::zeros({kPaddedVocab});
  logits[300] = 100.0;
  logits[12] = 1.0;
  CHECK(model::withoutUndecodable(logits, mask).argmax().item<std::int64_t>() == 12);
  CHECK(model::withoutUndecodable(logits, torch::Tensor()).argmax().item<std::int64_t>() == 300);
}

TEST_CASE("undecodable ids: a padded checkpoint generates decodable text to the end", "[model]") {
  const test::TinyModelFolder tiny("undecodable-tiny");
  const test::TempDir dir("undecodable-padded");
  writePaddedModel(tiny, dir.str());
  const auto loaded = model::loadModel(dir.str());
  const auto tokenizer = tokenizer::Tokenizer::fromFile(dir.file("tokenizer.json"));
  const std::vector<std::int64_t> prompt{72, 105, 33};
  model::ModelState state(loaded->lm->numLayers());
  const torch::Tensor logits = model::prefill(*loaded->lm, state, prompt);
  // Unmasked, the first greedy step would already be an id the tokenizer does not have.
  REQUIRE(logits.argmax().item<std::int64_t>() >= 259);
  model::Sampler sampler(model::SamplingParams{});
  model::StopCriteria stop;
  stop.max_tokens = 24;
  const model::Generation out = model::generate(*loaded->lm, state, logits, sampler, stop, tokenizer);
  REQUIRE(out.ids.size() == 24);
  for (const std::int64_t id : out.ids) CHECK(tokenizer->knows(id));
  CHECK(out.text == tokenizer->decode(out.ids));
}
