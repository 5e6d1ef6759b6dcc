// The forward pass against an independent float64 NumPy transcription of transformers' Qwen3,
// Qwen2, Llama, Mistral, Phi-3 and Gemma 1/2/3 code (scripts/reference/make_reference_models.py), and the cached paths
// (chunked prefill, decode steps, frozen spans) against the full forward.

#include <catch2/catch.hpp>

#include <fstream>

#include "core/common/error.h"
#include "core/model/checkpoint_writer.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/model/model_loader.h"
#include "model_test_helpers.h"

using namespace studio;
using studio::model_test::fixtureModel;

namespace {

struct Reference {
  std::vector<std::int64_t> ids;
  torch::Tensor logits;  // [T, vocab] float64
};

Reference readReference(const std::string& dir) {
  std::ifstream file(dir + "/reference.json");
  REQUIRE(file);
  const nlohmann::json json = nlohmann::json::parse(file);
  Reference reference;
  reference.ids = json.at("ids").get<std::vector<std::int64_t>>();
  std::vector<double> flat;
  for (const auto& row : json.at("logits")) {
    for (const auto& value : row) flat.push_back(value.get<double>());
  }
  const auto rows = static_cast<std::int64_t>(json.at("logits").size());
  reference.logits = torch::tensor(flat, torch::kFloat64).reshape({rows, -1});
  return reference;
}

}  // namespace

TEST_CASE("forward: logits match the float64 reference of every fixture architecture",
          "[model]") {
  const auto name = GENERATE(as<std::string>{}, "qwen3-tiny", "qwen3-tiny-bf16", "qwen2-tiny",
                             "llama3-tiny", "llama-linear-tiny", "qwen2-yarn-tiny",
                             "mistral-tiny", "phi3-tiny", "gemma-tiny", "gemma2-tiny",
                             "gemma3-tiny", "qwen2-sliding-tiny");
  INFO(name);
  const std::string dir = fixtureModel(name);
  const Reference reference = readReference(dir);
  const auto loaded = model::loadModel(dir);
  CHECK(loaded->dtype == torch::kFloat32);  // bf16 weights are upcast on the CPU
  const torch::Tensor logits =
      model_test::fullLogits(*loaded->lm, reference.ids).to(torch::kFloat64);
  REQUIRE(logits.sizes() == reference.logits.sizes());
  const double error = (logits - reference.logits).abs().max().item<double>();
  INFO("max abs error " << error);
  CHECK(error < 1e-4);
}

TEST_CASE("forward: chunked prefill and decode steps give the full forward's logits", "[model]") {
  // Gemma 2 and 3's fixtures slide windows of 7 and 9 over the 40 tokens, soft-capped (2) or not (3).
  const auto name = GENERATE(as<std::string>{}, "qwen3-tiny", "gemma2-tiny", "gemma3-tiny");
  INFO(name);
  const auto loaded = model::loadModel(fixtureModel(name));
  const Reference reference = readReference(fixtureModel(name));
  const torch::Tensor full = model_test::fullLogits(*loaded->lm, reference.ids);  // [T, V]
  const auto T = static_cast<std::int64_t>(reference.ids.size());

  torch::NoGradGuard no_grad;
  model::ModelState cache(loaded->lm->numLayers());
  const std::vector<std::int64_t> head(reference.ids.begin(), reference.ids.end() - 5);
  model::PrefillOptions options;
  options.chunk = 7;  // several chunks, the last one partial
  std::vector<std::int64_t> progress;
  options.progress = [&](std::int64_t done, std::int64_t total) {
    progress.push_back(done);
    CHECK(total == T - 5);
    return true;
  };
  torch::Tensor logits = model::prefill(*loaded->lm, cache, head, options);
  CHECK(progress.back() == T - 5);
  CHECK(progress.size() == 5);  // 35 tokens in chunks of 7
  CHECK(cache.length() == T - 5);
  CHECK(torch::allclose(logits, full[T - 6], 1e-5, 1e-5));
  for (std::int64_t i = T - 5; i < T; ++i) {
    logits = model::decodeStep(*loaded->lm, cache, reference.ids[i]);
    INFO("step " << i << ", max difference " << (logits - full[i]).abs().max().item<double>());
    CHECK(torch::allclose(logits, full[i], 1e-5, 1e-5));
  }
  CHECK(cache.length() == T);
}

TEST_CASE("forward: a cancelled prefill throws Cancelled", "[model]") {
  const auto loaded = model_test::tinyModel();
  model::ModelState cache(loaded->lm->numLayers());
  model::PrefillOptions options;
  options.chunk = 4;
  options.progress = [](std::int64_t done, std::int64_t) { return done < 8; };
  const std::vector<std::int64_t> ids(20, 3);
  try {
    model::prefill(*loaded->lm, cache, ids, options);
    FAIL("prefill was not cancelled");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Cancelled);
  }
}

TEST_CASE("forward: frozen spans over the cache give the full forward's logits", "[model]") {
  // gemma2-tiny: the span reads windows of 7 keys, soft-capped, on its even layers.
  const bool gemma = GENERATE(false, true);
  INFO((gemma ? "gemma2-tiny" : "tiny qwen3"));
  const auto loaded = gemma ? model::loadModel(fixtureModel("gemma2-tiny")) : model_test::tinyModel(3);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 30; ++i) ids.push_back((i * 7 + 3) % 64);
  const torch::Tensor full = model_test::fullLogits(*loaded->lm, ids);

  torch::NoGradGuard no_grad;
  model::ModelState cache(loaded->lm->numLayers());
  model::prefill(*loaded->lm, cache, ids);
  const std::int64_t start = 11, k = 9;
  model::ForwardContext context;
  context.mode = model::AttentionMode::Frozen;
  context.state = &cache;
  context.positions = torch::arange(start, start + k, torch::kInt64);
  const std::vector<std::int64_t> span(ids.begin() + start, ids.begin() + start + k);
  const torch::Tensor input = torch::tensor(span, torch::kInt64).unsqueeze(0);
  const torch::Tensor logits = loaded->lm->logits(loaded->lm->forward(input, context)).squeeze(0);
  CHECK(torch::allclose(logits, full.slice(0, start, start + k), 1e-4, 1e-4));
  CHECK(cache.length() == 30);  // frozen: nothing appended
}

TEST_CASE("forward: a frozen span past the cache's end is refused, naming the last position",
          "[model]") {
  const auto loaded = model_test::tinyModel(3);
  std::vector<std::int64_t> ids(20, 5);
  torch::NoGradGuard no_grad;
  model::ModelState cache(loaded->lm->numLayers());
  model::prefill(*loaded->lm, cache, ids);
  // A run of positions (its last read on the host) and scattered ones (their maximum).
  for (const auto& positions : {torch::arange(15, 21, torch::kInt64), torch::tensor({3, 22, 7})}) {
    model::ForwardContext context;
    context.mode = model::AttentionMode::Frozen;
    context.state = &cache;
    context.positions = positions;
    const torch::Tensor input = torch::full({1, positions.numel()}, 5, torch::kInt64);
    const std::string last = std::to_string(positions.max().item<std::int64_t>());
    INFO("last position " << last);
    CHECK_THROWS_WITH(loaded->lm->forward(input, context),
                      Catch::Contains("positions") && Catch::Contains("up to position " + last) &&
                          Catch::Contains("holds 20"));
  }
  model::ForwardContext inside;
  inside.mode = model::AttentionMode::Frozen;
  inside.state = &cache;
  inside.positions = torch::arange(14, 20, torch::kInt64);  // ends at the last position held
  CHECK_NOTHROW(loaded->lm->forward(torch::full({1, 6}, 5, torch::kInt64), inside));
}

TEST_CASE("forward: changing token j leaves every earlier position's logits bit-identical",
          "[model]") {
  const auto loaded = model_test::tinyModel(4);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 24; ++i) ids.push_back((i * 5 + 1) % 64);
  const torch::Tensor before = model_test::fullLogits(*loaded->lm, ids);
  for (const std::int64_t j : {0, 9, 23}) {
    std::vector<std::int64_t> changed = ids;
    changed[j] = (changed[j] + 17) % 64;
    const torch::Tensor after = model_test::fullLogits(*loaded->lm, changed);
    CHECK(torch::equal(after.slice(0, 0, j), before.slice(0, 0, j)));
    CHECK_FALSE(torch::equal(after[j], before[j]));
  }
}

TEST_CASE("forward: GQA equals the same model with its key-value heads repeated", "[model]") {
  const model::ModelConfig config = model_test::tinyQwen3Config();
  const auto tensors = model::randomTensors(config, 8);
  nlohmann::json repeated_json = config.toJson();
  repeated_json["num_key_value_heads"] = config.num_attention_heads;
  const model::ModelConfig repeated = model::ModelConfig::fromJson(repeated_json);
  const std::int64_t groups = config.num_attention_heads / config.num_key_value_heads;
  auto repeated_tensors = tensors;
  for (auto& [name, tensor] : repeated_tensors) {
    if (name.find("k_proj.weight") != std::string::npos ||
        name.find("v_proj.weight") != std::string::npos) {
      // [Hkv·D, hidden] -> [Hkv, D, hidden] -> each head `groups` times -> [Hq·D, hidden]
      tensor = tensor.reshape({config.num_key_value_heads, config.head_dim, -1})
                   .repeat_interleave(groups, 0)
                   .reshape({config.num_attention_heads * config.head_dim, -1});
    }
  }
  const auto gqa = model::buildModel(config, tensors);
  const auto mha = model::buildModel(repeated, repeated_tensors);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 20; ++i) ids.push_back((i * 3 + 2) % 64);
  CHECK(torch::allclose(model_test::fullLogits(*gqa->lm, ids), model_test::fullLogits(*mha->lm, ids),
                        1e-5, 1e-5));
}

TEST_CASE("forward: the prefill chunk defaults to the device's (512 on the CPU, 8192 on CUDA)",
          "[model]") {
  CHECK(model::defaultPrefillChunk(torch::Device(torch::kCPU)) == 512);
  CHECK(model::defaultPrefillChunk(torch::Device(torch::kCUDA, 0)) == 8192);
  const auto loaded = model::loadModel(fixtureModel("qwen3-tiny"));
  const Reference reference = readReference(fixtureModel("qwen3-tiny"));
  torch::NoGradGuard no_grad;
  model::ModelState by_default(loaded->lm->numLayers()), explicit_chunk(loaded->lm->numLayers());
  model::PrefillOptions options;
  std::int64_t chunks = 0;
  options.progress = [&](std::int64_t, std::int64_t) { return ++chunks > 0; };
  const auto logits = model::prefill(*loaded->lm, by_default, reference.ids, options);
  CHECK(chunks == (static_cast<std::int64_t>(reference.ids.size()) + 511) / 512);
  options.chunk = 5;
  CHECK(torch::allclose(model::prefill(*loaded->lm, explicit_chunk, reference.ids, options), logits,
                        1e-5, 1e-5));
}
