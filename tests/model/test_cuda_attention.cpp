// The CUDA attention paths against the chunked CPU-style composition they replace (hidden: run
// on purpose on a GPU machine with `build-cuda/tests/test_model "[.gpu]"`): libtorch's fused flash
// attention with its bottom-right mask, the dQ-only span backward kernel, and the probe kernel.
// Several shapes, odd lengths included; bf16 inputs, so tolerances are bf16's.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/common/torch_compat.h"
#include "core/model/attention_kernel.h"
#include "core/model/cudnn_attention.h"
#include "core/model/fused_attention.h"
#include "core/model/span_attention_backward.h"
#include "core/probe/probe_math.h"
#include "support/scoped_environment.h"

using namespace studio;

namespace {

struct AttentionShape {
  std::int64_t batch, q_heads, kv_heads, queries, keys, dim, run_start;
};

torch::TensorOptions cudaOptions(torch::ScalarType type) {
  return torch::TensorOptions(type).device(torch::kCUDA);
}

double relativeError(const torch::Tensor& got, const torch::Tensor& expected) {
  const auto g = got.to(torch::kCPU, torch::kFloat64), e = expected.to(torch::kCPU, torch::kFloat64);
  return ((g - e).norm() / e.norm().clamp_min(1e-30)).item<double>();
}

torch::Tensor runPositions(const AttentionShape& s) {
  return torch::arange(s.run_start, s.run_start + s.queries, torch::kInt64);
}

// Random bf16 queries, keys and values of shape `s` on CUDA, drawn in that order from `seed`.
struct AttentionInputs {
  torch::Tensor q, k, v;  // [B, Hq, T, D], [B, Hkv, S, D], [B, Hkv, S, D]
};

AttentionInputs randomInputs(const AttentionShape& s, std::uint64_t seed) {
  torch::manual_seed(seed);
  return {torch::randn({s.batch, s.q_heads, s.queries, s.dim}, cudaOptions(torch::kBFloat16)),
          torch::randn({s.batch, s.kv_heads, s.keys, s.dim}, cudaOptions(torch::kBFloat16)),
          torch::randn({s.batch, s.kv_heads, s.keys, s.dim}, cudaOptions(torch::kBFloat16))};
}

const std::vector<AttentionShape> kShapes = {
    {1, 4, 2, 37, 150, 64, 100},      // a span inside the cache, odd lengths
    {2, 8, 1, 16, 1000, 128, 984},    // multi-query, span at the end
    {1, 16, 8, 128, 4099, 128, 2000}, // Qwen3-1.7B's heads, k = 128
    {1, 6, 6, 5, 77, 32, 0},          // no GQA, a prefill from position 0 (T < S)
    {1, 32, 8, 1, 3001, 128, 3000},   // a decode step
};

}  // namespace

TEST_CASE("flash attention on CUDA equals the chunked attention, bottom-right causal", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  for (const AttentionShape& s : kShapes) {
    INFO("heads " << s.q_heads << "/" << s.kv_heads << ", queries " << s.queries << " at "
                  << s.run_start << ", keys " << s.keys << ", D " << s.dim);
    const auto [q, k, v] = randomInputs(s, static_cast<std::uint64_t>(s.keys));
    const double scale = 1 / std::sqrt(static_cast<double>(s.dim));
    torch::NoGradGuard no_grad;
    REQUIRE(std::string(model::attentionPathName(q, k, v, s.run_start)) == "flash");
    const auto fused = model::fusedAttention(q, k, v, s.run_start, scale);
    REQUIRE(fused.has_value());
    const auto reference = model::causalAttention(q.to(torch::kFloat32), k.to(torch::kFloat32),
                                                  v.to(torch::kFloat32), runPositions(s), scale);
    CHECK(relativeError(fused->out, reference.out) < 1e-2);
    CHECK((fused->lse.to(torch::kFloat32) - reference.lse).abs().max().item<float>() < 2e-3);
  }
}

TEST_CASE("cuDNN attention equals the chunked attention, bottom-right causal", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  if (!model::cudnnAttentionBuilt()) {
    WARN("this build has no cuDNN attention (libtorch < 2.5 or STUDIO_CUDNN_ATTENTION=OFF)");
    return;
  }
  // The shapes above with two or more queries (cuDNN only when asked), and prefill chunks, which
  // take it by default: from position 0 (one causal call) and after a prefix (two calls merged by
  // their log-sum-exps), their queries padded to a multiple of 1,024 (of 64 below it).
  std::vector<AttentionShape> shapes;
  for (const AttentionShape& s : kShapes) {
    if (s.queries >= 2) shapes.push_back(s);
  }
  shapes.push_back({1, 16, 8, 1021, 1021, 128, 0});
  shapes.push_back({1, 16, 8, 777, 3001, 128, 2224});
  shapes.push_back({2, 8, 8, 300, 700, 64, 400});
  shapes.push_back({1, 16, 8, 2048, 5120, 128, 3072});  // a whole bucket after a prefix
  shapes.push_back({1, 16, 8, 1500, 1500, 128, 0});     // padded to 2,048
  shapes.push_back({1, 8, 2, 1100, 3200, 64, 2048});    // padded, GQA 4, D 64, keys after the queries
  torch::NoGradGuard no_grad;
  for (const AttentionShape& s : shapes) {
    INFO("heads " << s.q_heads << "/" << s.kv_heads << ", queries " << s.queries << " at "
                  << s.run_start << ", keys " << s.keys << ", D " << s.dim);
    const auto [q, k, v] = randomInputs(s, static_cast<std::uint64_t>(s.keys + s.queries));
    const double scale = 1 / std::sqrt(static_cast<double>(s.dim));
    const bool prefill_chunk = s.queries >= 1024 && s.run_start % 1024 == 0;
    CHECK(std::string(model::attentionPathName(q, k, v, s.run_start)) == (prefill_chunk ? "cudnn" : "flash"));
    ::setenv("STUDIO_ATTENTION", "flash", 1);
    CHECK(std::string(model::attentionPathName(q, k, v, s.run_start)) == "flash");
    ::setenv("STUDIO_ATTENTION", "cudnn", 1);
    const std::string path = model::attentionPathName(q, k, v, s.run_start);
    const auto fused = model::fusedAttention(q, k, v, s.run_start, scale);
    const auto direct = model::cudnnCausalAttention(
        q, k.narrow(2, 0, s.run_start + s.queries), v.narrow(2, 0, s.run_start + s.queries),
        s.run_start, scale);
    ::unsetenv("STUDIO_ATTENTION");
    CHECK(path == "cudnn");
    REQUIRE(direct.has_value());  // nullopt: cuDNN refused the shape (its message is on stderr)
    REQUIRE(fused.has_value());
    const auto reference = model::causalAttention(q.to(torch::kFloat32), k.to(torch::kFloat32),
                                                  v.to(torch::kFloat32), runPositions(s), scale);
    for (const auto* result : {&*direct, &*fused}) {
      CHECK(result->out.sizes() == reference.out.sizes());
      CHECK(result->lse.sizes() == reference.lse.sizes());
      CHECK(relativeError(result->out, reference.out) < 1e-2);
      CHECK((result->lse.to(torch::kFloat32) - reference.lse).abs().max().item<float>() < 2e-3);
    }
  }
}

namespace {

// The span dQ kernel at one shape: on its own, through the fused path, and flash's full backward,
// each against the chunked attention's float32 autograd.
void checkSpanKernel(const AttentionShape& s) {
  INFO("heads " << s.q_heads << "/" << s.kv_heads << ", queries " << s.queries << " at "
                << s.run_start << ", keys " << s.keys << ", D " << s.dim);
  const auto [q, k, v] = randomInputs(s, static_cast<std::uint64_t>(s.queries));
  const auto d_out =
      torch::randn({s.batch, s.q_heads, s.queries, s.dim}, cudaOptions(torch::kBFloat16));
  const double scale = 1 / std::sqrt(static_cast<double>(s.dim));
  REQUIRE(model::spanBackwardAvailable(q, k));

  // Reference: the chunked attention's autograd in float32, keys and values frozen.
  const auto q32 = q.to(torch::kFloat32).detach().requires_grad_(true);
  const auto reference = model::causalAttention(q32, k.to(torch::kFloat32), v.to(torch::kFloat32),
                                                runPositions(s), scale);
  reference.out.backward(d_out.to(torch::kFloat32));

  // The kernel on its own, from the reference forward's output and lse.
  const auto positions = runPositions(s).to(torch::kCUDA);
  const auto dq = model::spanAttentionDq(q, k, v, reference.out.detach().to(torch::kBFloat16),
                                         reference.lse, d_out, positions, scale);
  CHECK(relativeError(dq, q32.grad()) < 2e-2);

  // Through the fused path with the kernel chosen: flash forward, the kernel as backward.
  const auto q_train = q.detach().requires_grad_(true);
  CHECK(std::string(model::attentionPathName(q_train, k, v, s.run_start)) == "flash");
  ::setenv("STUDIO_SPAN_BACKWARD", "kernel", 1);
  REQUIRE(std::string(model::attentionPathName(q_train, k, v, s.run_start)) ==
          "flash + span dQ kernel");
  const auto fused = model::fusedAttention(q_train, k, v, s.run_start, scale);
  ::unsetenv("STUDIO_SPAN_BACKWARD");
  REQUIRE(fused.has_value());
  fused->out.backward(d_out);
  CHECK(relativeError(q_train.grad(), q32.grad()) < 2e-2);

  // libtorch's full flash backward (dK and dV too) gives the same dQ.
  const auto q_full = q.detach().requires_grad_(true);
  const auto k_full = k.detach().requires_grad_(true);
  const auto v_full = v.detach().requires_grad_(true);
  const auto full = model::fusedAttention(q_full, k_full, v_full, s.run_start, scale);
  REQUIRE(full.has_value());
  full->out.backward(d_out);
  CHECK(relativeError(q_full.grad(), q32.grad()) < 2e-2);
}

}  // namespace

TEST_CASE("the span dQ kernel equals the chunked backward and flash's full backward", "[model][.gpu][span-kernel]") {
  REQUIRE(compat::cudaAvailable());
  for (const AttentionShape& s : kShapes) checkSpanKernel(s);
}

TEST_CASE("the span dQ kernel in long caches and at D 256", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  const std::vector<AttentionShape> shapes = {
      {1, 8, 4, 19, 2500, 256, 2481},     // a span at the end
      {1, 16, 8, 128, 20011, 128, 7000},  // inside a long cache: the later key splits idle
      {1, 24, 8, 200, 9000, 64, 8800},    // GQA 3: 39 tiles a KV head, the last block's warp idle
  };
  for (const AttentionShape& s : shapes) checkSpanKernel(s);
}

TEST_CASE("the probe kernel gives the CPU probe's statistics", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  for (const torch::ScalarType key_type : {torch::kFloat32, torch::kBFloat16}) {
    for (const std::int64_t dim : {std::int64_t{64}, std::int64_t{128}}) {
      INFO("keys " << c10::toString(key_type) << ", D " << dim);
      torch::manual_seed(static_cast<std::uint64_t>(dim));
      const std::int64_t Hq = 8, Hkv = 2, n = 3, S = 3001;
      const auto q = torch::randn({Hq, n, dim}) * 0.5;
      const auto keys = torch::randn({Hkv, S, dim}).to(key_type);
      const std::vector<std::int64_t> positions{40, 1777, 3000};  // before, inside and after targets
      const std::vector<Span> targets{{500, 520}, {1700, 1701}};
      const double scale = 1 / std::sqrt(static_cast<double>(dim));
      // The lse the attention itself would report, from the float32 logits.
      const auto logits = torch::matmul(q.view({Hkv, Hq / Hkv * n, dim}), keys.to(torch::kFloat32).transpose(1, 2))
                              .view({Hq, n, S}) * scale;
      const auto mask = torch::arange(S).unsqueeze(0) > torch::tensor(positions).unsqueeze(1);
      const auto lse = torch::logsumexp(logits.masked_fill(mask, -INFINITY), -1);  // [Hq, n]
      probe::ProbeOptions options;
      // Two segments, as a forked cache has.
      const std::vector<torch::Tensor> host_segments{keys.narrow(1, 0, 1234), keys.narrow(1, 1234, S - 1234)};
      const std::vector<torch::Tensor> cuda_segments{host_segments[0].to(torch::kCUDA),
                                                     host_segments[1].to(torch::kCUDA)};
      const auto expected = probe::queryStats(q, lse, host_segments, positions, targets, scale, options);
      const auto got = probe::queryStats(q, lse, cuda_segments, positions, targets, scale, options);
      for (std::int64_t h = 0; h < Hq; ++h) {
        for (std::int64_t i = 0; i < n; ++i) {
          const auto& e = expected[h][i];
          const auto& g = got[h][i];
          INFO("head " << h << ", query at " << e.pos);
          CHECK(g.target_keys == e.target_keys);
          CHECK(g.mass == Approx(e.mass).epsilon(1e-5).margin(1e-12));
          CHECK(g.max_target_logit == Approx(e.max_target_logit).epsilon(1e-6));
          CHECK(g.margin_best == Approx(e.margin_best).epsilon(1e-5));
          CHECK(g.min_gap == Approx(e.min_gap).epsilon(1e-5));
          CHECK(g.near_ties == e.near_ties);
          CHECK(g.best_target_weight == Approx(e.best_target_weight).epsilon(1e-5).margin(1e-12));
        }
      }
    }
  }
}

TEST_CASE("flash's variable-length span attention, its key count read on the device, equals the "
          "chunked attention and its dQ, with flash's backward and with the dQ kernel",
          "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  for (const bool dq_kernel : {false, true}) {
    for (const AttentionShape& s : kShapes) {
      if (s.batch != 1) continue;  // one sequence: qTTT's span
      INFO((dq_kernel ? "the dQ kernel" : "flash's backward")
           << "; heads " << s.q_heads << "/" << s.kv_heads << ", queries " << s.queries << " at "
           << s.run_start << ", keys " << s.keys << ", D " << s.dim);
      auto [q, k, v] = randomInputs(s, static_cast<std::uint64_t>(s.keys) + 1);
      const std::int64_t seen = s.run_start + s.queries;
      // Keys past the span's last position must not count. Flash never reads them: NaN there
      // would show in every output. The dQ kernel reads the rest of a block and masks it: large
      // values there would show where the mask failed.
      if (seen < s.keys) {
        const double poison = dq_kernel ? 50.0 : std::nan("");
        k.narrow(2, seen, s.keys - seen).fill_(poison);
        v.narrow(2, seen, s.keys - seen).fill_(poison);
      }
      const auto d_out =
          torch::randn({1, s.q_heads, s.queries, s.dim}, cudaOptions(torch::kBFloat16));
      const double scale = 1 / std::sqrt(static_cast<double>(s.dim));
      const auto q32 = q.to(torch::kFloat32).detach().requires_grad_(true);
      const auto reference =
          model::causalAttention(q32, k.narrow(2, 0, seen).to(torch::kFloat32),
                                 v.narrow(2, 0, seen).to(torch::kFloat32), runPositions(s), scale);
      reference.out.backward(d_out.to(torch::kFloat32));

      const auto bounds = [](std::int64_t n) {
        return torch::tensor({0, static_cast<int>(n)}, torch::kInt32).to(torch::kCUDA);
      };
      std::optional<test::ScopedEnvironment> kernel;
      if (dq_kernel) kernel.emplace("STUDIO_SPAN_BACKWARD", "kernel");
      const auto q_train = q.detach().requires_grad_(true);
      const auto span = model::fusedSpanAttention(q_train, k, v, runPositions(s).to(torch::kCUDA),
                                                  bounds(s.queries), bounds(seen), scale);
      REQUIRE(span.has_value());
      CHECK(span->out.sizes() == q.sizes());
      CHECK(span->lse.sizes() == torch::IntArrayRef({1, s.q_heads, s.queries}));
      CHECK(relativeError(span->out, reference.out) < 1e-2);
      CHECK((span->lse.to(torch::kFloat32) - reference.lse).abs().max().item<float>() < 2e-3);
      span->out.backward(d_out);
      CHECK(relativeError(q_train.grad(), q32.grad()) < 2e-2);
    }
  }
}
