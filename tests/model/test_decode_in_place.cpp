// In-place decoding (AttentionMode::InPlace), what a captured CUDA graph replays at every decode
// step (core/model/decode_graph.h), checked on the CPU through the composed decode attention: the
// cache's room for in-place writes, the decode attention over a count held in a tensor, and the
// in-place forward against decodeStep, from a plain and from a forked state. The CUDA kernel and
// the graph itself are checked in test_cuda_decode_graph.cpp ([.gpu]).

#include <catch2/catch.hpp>

#include <cmath>

#include "core/common/error.h"
#include "core/model/decode_attention.h"
#include "core/model/decode_graph.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "model_test_helpers.h"
#include "ttt_test_helpers.h"

using namespace studio;

namespace {

double inPlaceDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

// Every layer's keys and values in one tensor each, [B, Hkv, length, D] per layer.
std::vector<torch::Tensor> cacheContents(const model::KVCache& kv) {
  std::vector<torch::Tensor> out;
  for (int i = 0; i < kv.numLayers(); ++i) {
    auto [k, v] = kv.contiguous(i);
    out.push_back(k.clone());
    out.push_back(v.clone());
  }
  return out;
}

// One in-place step: the token at the state's next position, then the state records it.
torch::Tensor inPlaceStep(model::CausalLMImpl& lm, model::ModelState& state, std::int64_t token) {
  model::ForwardContext context;
  context.mode = model::AttentionMode::InPlace;
  context.state = &state;
  context.positions = torch::full({1}, state.length(), torch::kInt64);
  context.key_count = torch::full({1}, state.length() + 1, torch::kInt64);
  const auto hidden = lm.forward(torch::full({1, 1}, token, torch::kInt64), context);
  state.kv().grow(1);
  state.advance(1);
  return lm.logits(hidden[0][0]);
}

}  // namespace

TEST_CASE("kv cache: room for in-place writes keeps what is cached and the shared prefix",
          "[model][decode-graph]") {
  torch::manual_seed(3);
  model::KVCache parent(1);
  const auto k0 = torch::randn({1, 2, 5, 4}), v0 = torch::randn({1, 2, 5, 4});
  parent.append(0, k0, v0);
  model::KVCache child = parent.fork();
  const auto k1 = torch::randn({1, 2, 2, 4}), v1 = torch::randn({1, 2, 2, 4});
  child.append(0, k1, v1);

  SECTION("a forked cache keeps its shared prefix and gets room in its tail") {
    child.prepareInPlace(12, 8);
    CHECK(child.layerLength(0) == 7);
    CHECK(child.frozenLength(0) == 5);
    const auto segments = child.inPlaceSegments(0);
    REQUIRE(segments.size() == 2);
    CHECK(segments[0].first.size(2) == 5);
    CHECK(segments[1].first.size(2) >= 7);  // the tail whole: 2 rows cached, room after them
    CHECK(torch::equal(segments[1].first.narrow(2, 0, 2), k1));
    // Written in place at row 2 of the tail (position 7), then recorded.
    const auto k2 = torch::randn({1, 2, 1, 4}), v2 = torch::randn({1, 2, 1, 4});
    segments[1].first.narrow(2, 2, 1).copy_(k2);
    segments[1].second.narrow(2, 2, 1).copy_(v2);
    child.grow(1);
    CHECK(child.length() == 8);
    auto [k, v] = child.contiguous(0);
    CHECK(torch::equal(k, torch::cat({k0, k1, k2}, 2)));
    CHECK(torch::equal(v, torch::cat({v0, v1, v2}, 2)));
    CHECK(parent.length() == 5);
  }
  SECTION("more segments than the kernel reads: one copy into a tail of the cache's own") {
    child.prepareInPlace(9, 1);
    CHECK(child.frozenLength(0) == 0);
    const auto segments = child.inPlaceSegments(0);
    REQUIRE(segments.size() == 1);
    CHECK(segments[0].first.size(2) >= 9);
    segments[0].first.zero_();  // the room and the copied rows are the child's alone
    auto [k, v] = parent.contiguous(0);
    CHECK(torch::equal(k, k0));
  }
  SECTION("growing past the room is refused") {
    child.prepareInPlace(8, 8);
    const auto capacity = child.inPlaceSegments(0).back().first.size(2);
    CHECK_THROWS_AS(child.grow(capacity), Error);
    CHECK(child.length() == 7);
  }
}

TEST_CASE("decode attention over a count held in a tensor equals causal attention",
          "[model][decode-graph]") {
  torch::manual_seed(5);
  const double scale = 1 / std::sqrt(8.0);
  const auto q = torch::randn({2, 4, 1, 8});
  const auto prefix_k = torch::randn({2, 2, 6, 8}), prefix_v = torch::randn({2, 2, 6, 8});
  // The tail's room past the count holds NaN: a read of it would show.
  auto tail_k = torch::full({2, 2, 10, 8}, NAN), tail_v = torch::full({2, 2, 10, 8}, NAN);
  tail_k.narrow(2, 0, 3).normal_();
  tail_v.narrow(2, 0, 3).normal_();
  const auto count = torch::full({1}, 9, torch::kInt64);  // 6 + 3 keys; the query at position 8
  const auto got = model::decodeAttention(q, {{prefix_k, prefix_v}, {tail_k, tail_v}}, count, scale);
  const auto keys = torch::cat({prefix_k, tail_k.narrow(2, 0, 3)}, 2);
  const auto values = torch::cat({prefix_v, tail_v.narrow(2, 0, 3)}, 2);
  const auto expected =
      model::causalAttention(q, keys, values, torch::full({1}, 8, torch::kInt64), scale);
  CHECK(inPlaceDifference(got.out, expected.out) < 1e-6);
  CHECK(inPlaceDifference(got.lse, expected.lse) < 1e-6);
  CHECK(got.lse.scalar_type() == torch::kFloat32);
  // A split size is the kernel's alone: the composition checks it and gives the same result.
  for (const int split_keys : {16, 64, 1024}) {
    const auto split = model::decodeAttention(q, {{prefix_k, prefix_v}, {tail_k, tail_v}}, count,
                                              scale, split_keys);
    CHECK(torch::equal(split.out, got.out));
  }
  for (const int split_keys : {-16, 24, 1}) {
    CHECK_THROWS_WITH(model::decodeAttention(q, {{prefix_k, prefix_v}, {tail_k, tail_v}}, count,
                                             scale, split_keys),
                      Catch::Contains("split_keys") &&
                          Catch::Contains(std::to_string(split_keys) + " is not 0 or a positive "
                                                                       "multiple of 16"));
  }
  // More keys counted than the segments hold is an internal error, not a read past them.
  CHECK_THROWS_AS(model::decodeAttention(q, {{prefix_k, prefix_v}, {tail_k, tail_v}},
                                         torch::full({1}, 17, torch::kInt64), scale),
                  Error);
}

TEST_CASE("in-place decode steps give decodeStep's logits and cache", "[model][decode-graph]") {
  const auto loaded = model_test::tinyModel(7);
  model::CausalLMImpl& lm = *loaded->lm;
  const std::vector<std::int64_t> prompt{3, 9, 27, 17, 50, 4, 33};
  const std::vector<std::int64_t> fed{12, 40, 5, 61, 8};
  torch::NoGradGuard no_grad;

  for (const bool forked : {false, true}) {
    INFO((forked ? "from a forked state" : "from a plain state"));
    model::ModelState base(lm.numLayers());
    model::prefill(lm, base, prompt);
    model::ModelState eager = forked ? base.fork() : base.copy();
    model::ModelState in_place = forked ? base.fork() : base.copy();
    // Room for two tokens: the third grows the tails (what a recapture follows on CUDA).
    in_place.kv().prepareInPlace(in_place.length() + 2, model::kDecodeAttentionMaxSegments);
    for (std::size_t i = 0; i < fed.size(); ++i) {
      if (static_cast<std::int64_t>(i) == 2) {
        in_place.kv().prepareInPlace(in_place.length() + 8, model::kDecodeAttentionMaxSegments);
      }
      const auto expected = model::decodeStep(lm, eager, fed[i]);
      const auto got = inPlaceStep(lm, in_place, fed[i]);
      CHECK(inPlaceDifference(got, expected) < 1e-5);
    }
    CHECK(in_place.length() == eager.length());
    const auto a = cacheContents(in_place.kv()), b = cacheContents(eager.kv());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(inPlaceDifference(a[i], b[i]) < 1e-6);
  }
}

TEST_CASE("decode graphs say why they do not apply", "[model][decode-graph]") {
  const auto loaded = model_test::tinyModel(7);
  model::ModelState state(loaded->lm->numLayers());
  CHECK(model::DecodeGraph::refusal(*loaded->lm, state) == "the model is not on CUDA");
  try {
    model::DecodeGraph graph(*loaded->lm, state, 4);
    FAIL("a decode graph was made for a model on the CPU");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Unsupported);
    CHECK_THAT(error.what(), Catch::Contains("CUDA"));
  }
  // TTT layers keep fast weights, not a cache to write in place: named by layer.
  auto ttt = ttt_test::tinyTttModel(false, false, torch::kFloat32, 1, {"attention", "ttt"});
  CHECK(ttt->inPlaceRefusal() == "layer 1 is a TTT-Linear layer, not attention");
  CHECK(loaded->lm->inPlaceRefusal().empty());
  // An in-place forward of such a model is refused before it reads anything.
  model::ModelState ttt_state(ttt->numLayers());
  model::ForwardContext context;
  context.mode = model::AttentionMode::InPlace;
  context.state = &ttt_state;
  context.positions = torch::zeros({1}, torch::kInt64);
  context.key_count = torch::ones({1}, torch::kInt64);
  CHECK_THROWS_AS(ttt->forward(torch::zeros({1, 1}, torch::kInt64), context), Error);
}
