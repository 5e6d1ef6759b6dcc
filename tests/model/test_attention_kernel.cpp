// The chunked attention kernel against a brute-force softmax: outputs, log-sum-exp, GQA head
// mapping, causal positions, gradients, and attention over a forked cache's segments.

#include <catch2/catch.hpp>

#include <cmath>

#include "core/model/attention_kernel.h"
#include "core/model/fused_attention.h"
#include "core/model/kv_cache.h"
#include "core/probe/probe_math.h"

using namespace studio;

namespace {

// q [B,Hq,Tq,D], k/v [B,Hkv,S,D] -> out and lse by materialising the scores.
model::AttentionOutput bruteForce(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v, const torch::Tensor& positions,
                                  double scale) {
  const auto groups = q.size(1) / k.size(1);
  const torch::Tensor kk = k.repeat_interleave(groups, 1);
  const torch::Tensor vv = v.repeat_interleave(groups, 1);
  torch::Tensor scores = torch::matmul(q, kk.transpose(-1, -2)) * scale;  // [B,Hq,Tq,S]
  const torch::Tensor key_pos = torch::arange(k.size(2), torch::kInt64);
  const torch::Tensor masked = key_pos.unsqueeze(0) > positions.unsqueeze(1);  // [Tq,S]
  scores = scores.masked_fill(masked, -INFINITY);
  return {torch::matmul(torch::softmax(scores, -1), vv), torch::logsumexp(scores, -1)};
}

// The same under a sliding window and soft-capping, written out: c·tanh(s/c), then the keys
// j ≤ p − window hidden as well as the later ones.
model::AttentionOutput bruteForceRule(const torch::Tensor& q, const torch::Tensor& k,
                                      const torch::Tensor& v, const torch::Tensor& positions,
                                      double scale, std::int64_t window, double softcap) {
  const auto groups = q.size(1) / k.size(1);
  const torch::Tensor kk = k.repeat_interleave(groups, 1);
  const torch::Tensor vv = v.repeat_interleave(groups, 1);
  torch::Tensor scores = torch::matmul(q, kk.transpose(-1, -2)) * scale;  // [B,Hq,Tq,S]
  scores = softcap * torch::tanh(scores / softcap);
  const torch::Tensor key_pos = torch::arange(k.size(2), torch::kInt64).unsqueeze(0);  // [1,S]
  const torch::Tensor query_pos = positions.unsqueeze(1);                             // [Tq,1]
  const torch::Tensor masked = (key_pos > query_pos).logical_or(key_pos <= query_pos - window);
  scores = scores.masked_fill(masked, -INFINITY);
  return {torch::matmul(torch::softmax(scores, -1), vv), torch::logsumexp(scores, -1)};
}

}  // namespace

TEST_CASE("attention kernel: a sliding window and soft-capping match brute force, with gradients",
          "[model]") {
  torch::manual_seed(7);
  const torch::Tensor q0 = torch::randn({1, 4, 7, 8}, torch::kFloat64) * 2;
  const torch::Tensor k0 = torch::randn({1, 2, 20, 8}, torch::kFloat64) * 2;
  const torch::Tensor v0 = torch::randn({1, 2, 20, 8}, torch::kFloat64);
  const torch::Tensor positions = torch::tensor({0, 2, 3, 9, 10, 16, 19}, torch::kInt64);
  const torch::Tensor weights = torch::randn({1, 4, 7, 8}, torch::kFloat64);
  const model::ScoreRule rule(0.35, 4, 1.5);
  auto run = [&](std::int64_t chunk) {  // chunk 0: brute force
    torch::Tensor q = q0.clone().requires_grad_(true);
    torch::Tensor k = k0.clone().requires_grad_(true);
    torch::Tensor v = v0.clone().requires_grad_(true);
    const auto out = chunk == 0 ? bruteForceRule(q, k, v, positions, 0.35, 4, 1.5)
                                : model::causalAttention(q, k, v, positions, rule, chunk);
    (out.out * weights).sum().backward();
    return std::vector<torch::Tensor>{out.out.detach(), out.lse.to(torch::kFloat64), q.grad(),
                                      k.grad(), v.grad()};
  };
  const auto expected = run(0);
  for (const std::int64_t chunk : {std::int64_t{1} << 24, std::int64_t{24}, std::int64_t{1}}) {
    INFO("chunk " << chunk);
    const auto got = run(chunk);
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("output " << i << " (out, lse, dq, dk, dv)");
      CHECK(torch::allclose(got[i], expected[i], 1e-9, 1e-9));
    }
  }
  // A key out of every query's view gets no gradient: from 16 and 19, the window of 4 sees 13 … 19.
  const torch::Tensor only_late = positions.index({torch::indexing::Slice(5, 7)});  // 16, 19
  torch::Tensor k = k0.clone().requires_grad_(true);
  model::causalAttention(q0.narrow(2, 5, 2), k, v0, only_late, rule).out.sum().backward();
  CHECK(k.grad().narrow(2, 0, 13).abs().max().item<double>() == 0);  // keys ≤ 12 are out of view
  CHECK(k.grad().narrow(2, 13, 7).abs().max().item<double>() > 0);
}

TEST_CASE("attention kernel: forked segments under a window match one cache", "[model]") {
  torch::manual_seed(8);
  const torch::Tensor q = torch::randn({1, 4, 3, 8}, torch::kFloat64);
  const torch::Tensor k = torch::randn({1, 2, 15, 8}, torch::kFloat64);
  const torch::Tensor v = torch::randn({1, 2, 15, 8}, torch::kFloat64);
  const torch::Tensor positions = torch::tensor({6, 11, 14}, torch::kInt64);
  const model::ScoreRule rule(0.4, 5, 3.0);
  const auto expected = bruteForceRule(q, k, v, positions, 0.4, 5, 3.0);
  const std::vector<std::pair<torch::Tensor, torch::Tensor>> segments = {
      {k.narrow(2, 0, 9), v.narrow(2, 0, 9)}, {k.narrow(2, 9, 6), v.narrow(2, 9, 6)}};
  const auto got = model::causalAttentionSegments(q, segments, positions, rule);
  CHECK(torch::allclose(got.out, expected.out, 1e-9, 1e-9));
  CHECK(torch::allclose(got.lse.to(torch::kFloat64), expected.lse, 1e-9, 1e-9));
}

TEST_CASE("attention kernel: matches brute force with GQA, chunks and arbitrary positions",
          "[model]") {
  torch::manual_seed(0);
  const torch::Tensor q = torch::randn({2, 6, 9, 8}, torch::kFloat64);
  const torch::Tensor k = torch::randn({2, 2, 20, 8}, torch::kFloat64);
  const torch::Tensor v = torch::randn({2, 2, 20, 8}, torch::kFloat64);
  const torch::Tensor positions = torch::tensor({0, 3, 4, 10, 11, 12, 17, 18, 19}, torch::kInt64);
  const double scale = 1 / std::sqrt(8.0);
  const auto expected = bruteForce(q, k, v, positions, scale);
  for (const std::int64_t chunk : {std::int64_t{1} << 24, std::int64_t{40}, std::int64_t{1}}) {
    INFO("chunk " << chunk);
    const auto got = model::causalAttention(q, k, v, positions, scale, chunk);
    CHECK(torch::allclose(got.out, expected.out, 1e-9, 1e-9));
    CHECK(torch::allclose(got.lse.to(torch::kFloat64), expected.lse, 1e-9, 1e-9));
  }
}

TEST_CASE("attention kernel: a key after the query contributes nothing", "[model]") {
  torch::manual_seed(1);
  const torch::Tensor q = torch::randn({1, 2, 1, 4});
  torch::Tensor k = torch::randn({1, 2, 6, 4});
  torch::Tensor v = torch::randn({1, 2, 6, 4});
  const torch::Tensor positions = torch::tensor({3}, torch::kInt64);
  const auto before = model::causalAttention(q, k, v, positions, 0.5);
  k.slice(2, 4, 6).fill_(100);
  v.slice(2, 4, 6).fill_(-100);
  const auto after = model::causalAttention(q, k, v, positions, 0.5);
  CHECK(torch::equal(before.out, after.out));
  CHECK(torch::equal(before.lse, after.lse));
}

TEST_CASE("attention kernel: gradients match brute force in q, k and v", "[model]") {
  torch::manual_seed(2);
  const torch::Tensor q0 = torch::randn({1, 4, 5, 8}, torch::kFloat64);
  const torch::Tensor k0 = torch::randn({1, 2, 12, 8}, torch::kFloat64);
  const torch::Tensor v0 = torch::randn({1, 2, 12, 8}, torch::kFloat64);
  const torch::Tensor positions = torch::tensor({2, 5, 7, 8, 11}, torch::kInt64);
  const torch::Tensor weights = torch::randn({1, 4, 5, 8}, torch::kFloat64);
  auto gradients = [&](bool brute) {
    torch::Tensor q = q0.clone().requires_grad_(true);
    torch::Tensor k = k0.clone().requires_grad_(true);
    torch::Tensor v = v0.clone().requires_grad_(true);
    const auto out = brute ? bruteForce(q, k, v, positions, 0.3)
                           : model::causalAttention(q, k, v, positions, 0.3, 16);
    (out.out * weights).sum().backward();
    return std::vector<torch::Tensor>{q.grad(), k.grad(), v.grad()};
  };
  const auto expected = gradients(true);
  const auto got = gradients(false);
  for (int i = 0; i < 3; ++i) {
    INFO("input " << i);
    CHECK(torch::allclose(got[i], expected[i], 1e-9, 1e-9));
  }
}

TEST_CASE("KV cache: forks share the prefix and diverge independently; truncate and copy",
          "[model]") {
  torch::manual_seed(3);
  model::KVCache cache(1);
  const torch::Tensor k1 = torch::randn({1, 2, 5, 4}), v1 = torch::randn({1, 2, 5, 4});
  cache.append(0, k1, v1);
  model::KVCache fork = cache.fork();
  const torch::Tensor k2 = torch::randn({1, 2, 2, 4}), v2 = torch::randn({1, 2, 2, 4});
  const torch::Tensor k3 = torch::randn({1, 2, 3, 4}), v3 = torch::randn({1, 2, 3, 4});
  cache.append(0, k2, v2);
  fork.append(0, k3, v3);
  CHECK(cache.length() == 7);
  CHECK(fork.length() == 8);
  CHECK(torch::equal(cache.contiguous(0).first, torch::cat({k1, k2}, 2)));
  CHECK(torch::equal(fork.contiguous(0).second, torch::cat({v1, v3}, 2)));

  // Attention over the fork's segments equals attention over its contiguous keys.
  const torch::Tensor q = torch::randn({1, 4, 2, 4});
  const torch::Tensor positions = torch::tensor({6, 7}, torch::kInt64);
  const auto [k, v] = fork.contiguous(0);
  const auto whole = model::causalAttention(q, k, v, positions, 0.5);
  const auto segmented = model::causalAttentionSegments(q, fork.segments(0), positions, 0.5);
  CHECK(torch::allclose(whole.out, segmented.out, 1e-6, 1e-6));
  CHECK(torch::allclose(whole.lse, segmented.lse, 1e-6, 1e-6));

  model::KVCache copy = fork.copy();
  fork.truncate(5);
  CHECK(fork.length() == 5);
  CHECK(copy.length() == 8);
  CHECK(torch::equal(copy.contiguous(0).first, torch::cat({k1, k3}, 2)));
  CHECK(torch::equal(cache.contiguous(0).first, torch::cat({k1, k2}, 2)));
  CHECK(cache.bytes() > 0);
}

TEST_CASE("KV cache: its layout changes exactly when its segments move or change length",
          "[model]") {
  // What a captured qTTT step keys its graph on (query_adapter.h).
  torch::manual_seed(4);
  model::KVCache cache(2);
  for (int layer = 0; layer < 2; ++layer) {
    cache.append(layer, torch::randn({1, 2, 5, 4}), torch::randn({1, 2, 5, 4}));
  }
  const auto layout = cache.layout();
  CHECK(layout.size() == 2 * 3);  // one tail a layer: keys, values, rows
  CHECK(cache.layout() == layout);
  const model::KVCache copy = cache.copy();  // the same rows elsewhere
  CHECK(copy.layout() != layout);
  model::KVCache fork = cache.fork();  // the tail becomes a shared segment, a new tail follows
  CHECK(cache.layout() != layout);
  CHECK(fork.layout().size() == 2 * 6);
  fork.append(0, torch::randn({1, 2, 1, 4}), torch::randn({1, 2, 1, 4}));
  const auto grown = fork.layout();
  fork.truncate(5);
  CHECK(fork.layout() != grown);
}

TEST_CASE("attention kernel: q, k and v of different dtypes run in the widest, gradients in each "
          "input's own", "[model]") {
  // Under CUDA autocast the projections come out bf16, but q/k-norm's float32 weight promotes q
  // and k back to float32 while v stays bf16; the backward runs outside autocast and multiplies
  // the saved tensors with each other.
  torch::manual_seed(3);
  const torch::Tensor q0 = torch::randn({1, 4, 5, 8});                                  // f32
  const torch::Tensor k0 = torch::randn({1, 2, 12, 8}).to(torch::kBFloat16);
  const torch::Tensor v0 = torch::randn({1, 2, 12, 8}).to(torch::kBFloat16);
  const torch::Tensor positions = torch::tensor({2, 5, 7, 8, 11}, torch::kInt64);
  const torch::Tensor weights = torch::randn({1, 4, 5, 8}, torch::kFloat64);

  torch::Tensor q = q0.clone().requires_grad_(true);
  torch::Tensor k = k0.clone().requires_grad_(true);
  torch::Tensor v = v0.clone().requires_grad_(true);
  const auto got = model::causalAttention(q, k, v, positions, 0.3, 16);
  CHECK(got.out.scalar_type() == torch::kFloat32);
  (got.out.to(torch::kFloat64) * weights).sum().backward();
  CHECK(q.grad().scalar_type() == torch::kFloat32);
  CHECK(k.grad().scalar_type() == torch::kBFloat16);
  CHECK(v.grad().scalar_type() == torch::kBFloat16);

  // Reference: the same (bf16-rounded) values in float64.
  torch::Tensor qr = q0.to(torch::kFloat64).requires_grad_(true);
  torch::Tensor kr = k0.to(torch::kFloat64).requires_grad_(true);
  torch::Tensor vr = v0.to(torch::kFloat64).requires_grad_(true);
  const auto expected = bruteForce(qr, kr, vr, positions, 0.3);
  (expected.out * weights).sum().backward();
  CHECK(torch::allclose(got.out.to(torch::kFloat64), expected.out, 1e-5, 1e-5));
  CHECK(torch::allclose(q.grad().to(torch::kFloat64), qr.grad(), 1e-4, 1e-4));
  // k and v's gradients are rounded to bf16 (8 bits of mantissa).
  CHECK(torch::allclose(k.grad().to(torch::kFloat64), kr.grad(), 2e-2, 2e-2));
  CHECK(torch::allclose(v.grad().to(torch::kFloat64), vr.grad(), 2e-2, 2e-2));
}

TEST_CASE("attention path: consecutive host positions are a run; the CPU takes the chunked path",
          "[model]") {
  CHECK(model::positionRunStart(torch::arange(7, 12, torch::kInt64)) == std::optional<std::int64_t>(7));
  CHECK(model::positionRunStart(torch::tensor({3}, torch::kInt64)) == std::optional<std::int64_t>(3));
  CHECK_FALSE(model::positionRunStart(torch::tensor({0, 3, 4}, torch::kInt64)).has_value());
  CHECK_FALSE(model::positionRunStart(torch::tensor({1.0, 2.0})).has_value());
  CHECK_FALSE(model::positionRunStart(torch::Tensor()).has_value());
  const auto q = torch::randn({1, 2, 4, 8}).to(torch::kBFloat16);
  const auto kv = torch::randn({1, 1, 10, 8}).to(torch::kBFloat16);
  CHECK(std::string(model::attentionPathName(q, kv, kv, 6)) == "chunked");
  CHECK_FALSE(model::fusedAttention(q, kv, kv, 6, 0.3).has_value());
}

TEST_CASE("attention kernel: bf16 inputs get float32 scores, so the probe's weights sum to 1",
          "[model]") {
  torch::manual_seed(5);
  const auto q = (torch::randn({1, 4, 6, 32}) * 3).to(torch::kBFloat16);
  const auto k = (torch::randn({1, 2, 300, 32}) * 3).to(torch::kBFloat16);
  const auto v = torch::randn({1, 2, 300, 32}).to(torch::kBFloat16);
  const auto positions = torch::tensor({10, 50, 120, 200, 298, 299}, torch::kInt64);
  const double scale = 1 / std::sqrt(32.0);
  const auto got = model::causalAttention(q, k, v, positions, scale);
  // The lse of the float32 products of the same bf16 values.
  const auto exact = bruteForce(q.to(torch::kFloat32), k.to(torch::kFloat32), v.to(torch::kFloat32),
                                positions, scale);
  CHECK((got.lse.to(torch::kFloat32) - exact.lse).abs().max().item<float>() < 1e-4);
  // The probe recomputes float32 logits and weighs them with that lse: target + rest mass = 1.
  const std::vector<std::int64_t> where{10, 50, 120, 200, 298, 299};
  const auto stats = probe::queryStats(q[0], got.lse[0], {k[0]}, where, {{5, 9}, {100, 110}}, scale,
                                       probe::ProbeOptions{});
  for (const auto& head : stats) {
    for (const auto& query : head) {
      const double rest = query.mass * std::exp(-query.margin);
      CHECK(query.mass + rest == Approx(1.0).epsilon(1e-3));
    }
  }
}

TEST_CASE("attention kernel: repeatKvHeads gives query head h the KV head h / groups", "[model]") {
  const auto t = torch::randn({2, 3, 5, 4});  // [B, Hkv, S, D]
  CHECK(model::repeatKvHeads(t, 1).data_ptr() == t.data_ptr());  // nothing to repeat
  const auto repeated = model::repeatKvHeads(t, 4);
  REQUIRE(repeated.sizes() == torch::IntArrayRef({2, 12, 5, 4}));
  for (std::int64_t h = 0; h < 12; ++h) {
    INFO("query head " << h);
    CHECK(torch::equal(repeated.select(1, h), t.select(1, h / 4)));
  }
}

TEST_CASE("attention kernel: padTokens appends zero rows along the tokens", "[model]") {
  const auto t = torch::randn({2, 3, 5, 4}).to(torch::kBFloat16);  // [B, H, T, D]
  CHECK(model::padTokens(t, 5).data_ptr() == t.data_ptr());         // nothing to add
  const auto padded = model::padTokens(t, 16);
  REQUIRE(padded.sizes() == torch::IntArrayRef({2, 3, 16, 4}));
  CHECK(padded.scalar_type() == torch::kBFloat16);
  CHECK(torch::equal(padded.narrow(2, 0, 5), t));
  CHECK(torch::equal(padded.narrow(2, 5, 11), torch::zeros({2, 3, 11, 4}, t.options())));
  // lse-shaped [B, H, T, 1] rows too
  const auto lse = torch::randn({1, 2, 3, 1});
  CHECK(torch::equal(model::padTokens(lse, 4).narrow(2, 3, 1), torch::zeros({1, 2, 1, 1})));
}

TEST_CASE("attention kernel: mergeAttention joins attention over two key sets into one over both", "[model]") {
  torch::manual_seed(7);
  const std::int64_t B = 2, H = 4, T = 9, prefix = 13, D = 16;
  const double scale = 0.25;
  const auto q = torch::randn({B, H, T, D}, torch::kFloat64);
  const auto k = torch::randn({B, H, prefix + T, D}, torch::kFloat64);
  const auto v = torch::randn({B, H, prefix + T, D}, torch::kFloat64);
  // The queries sit at prefix … prefix+T−1 over all keys: every prefix key, and the square block
  // of the rest causally (as cuDNN's two calls split a prefill chunk).
  const auto whole = model::causalAttention(q, k, v, torch::arange(prefix, prefix + T), scale);
  const auto scores = torch::matmul(q, k.narrow(2, 0, prefix).transpose(-1, -2)) * scale;
  const model::AttentionOutput on_prefix{torch::matmul(scores.softmax(-1), v.narrow(2, 0, prefix)),
                                         torch::logsumexp(scores, -1).to(torch::kFloat32)};
  auto diagonal = model::causalAttention(q, k.narrow(2, prefix, T), v.narrow(2, prefix, T), torch::arange(T), scale);
  diagonal.lse = diagonal.lse.to(torch::kFloat32);
  const auto merged = model::mergeAttention(on_prefix, diagonal, torch::kFloat64);
  CHECK(merged.out.scalar_type() == torch::kFloat64);
  CHECK(merged.lse.scalar_type() == torch::kFloat32);
  CHECK(torch::allclose(merged.out, whole.out, 1e-5, 1e-6));
  CHECK(torch::allclose(merged.lse.to(torch::kFloat64), whole.lse.to(torch::kFloat64), 1e-5, 1e-5));

  // 16-bit outputs (cuDNN's) are weighted in float32 and rounded once.
  const model::AttentionOutput prefix16{on_prefix.out.to(torch::kBFloat16), on_prefix.lse};
  const model::AttentionOutput diagonal16{diagonal.out.to(torch::kBFloat16), diagonal.lse};
  const auto merged16 = model::mergeAttention(prefix16, diagonal16, torch::kBFloat16);
  CHECK(merged16.out.scalar_type() == torch::kBFloat16);
  CHECK((merged16.out.to(torch::kFloat64) - whole.out).abs().max().item<double>() < 2e-2);

  // A query that sees no key of one set takes the other's output and log-sum-exp.
  auto blind = on_prefix;
  blind.lse = blind.lse.clone();
  blind.lse.select(2, 0).fill_(-INFINITY);
  const auto one_sided = model::mergeAttention(blind, diagonal, torch::kFloat64);
  CHECK(torch::allclose(one_sided.out.select(2, 0), diagonal.out.select(2, 0)));
  CHECK(torch::equal(one_sided.lse.select(2, 0), diagonal.lse.select(2, 0)));
  CHECK_FALSE(torch::isnan(one_sided.out).any().item<bool>());
}
