// The decode prologue kernel (core/model/decode_prologue.h) against the composition it replaces
// on CUDA: the RMSNorm and rotary kernels, then index_copy_ into the tails (hidden: run on purpose
// on a GPU machine with `build-cuda/tests/test_model "[.gpu]"`). The kernel shares those kernels'
// arithmetic, so every query and every cache row must be bit for bit theirs; the rows it must not
// write must keep their bits.

#include <catch2/catch.hpp>

#include <optional>

#include "core/common/torch_compat.h"
#include "core/model/decode_prologue.h"
#include "core/model/layers_basic.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"
#include "model_test_helpers.h"
#include "support/scoped_environment.h"

using namespace studio;

namespace {

struct PrologueCase {
  std::int64_t batch, heads, kv_heads, dim;
  torch::ScalarType dtype;
  bool norms, rotate;
  double yarn_factor;  // 0: no rope_scaling
  std::int64_t frozen, position, capacity;
  bool strided;  // projections as views of one q|k|v row, tails as narrows of a longer buffer
};

const std::vector<PrologueCase> kCases = {
    {1, 16, 8, 128, torch::kBFloat16, true, true, 0, 0, 8191, 9000, false},  // Qwen3-1.7B
    {2, 32, 8, 128, torch::kFloat16, true, true, 0, 3000, 3037, 300, true},  // 4B, a forked cache
    {1, 14, 2, 64, torch::kBFloat16, true, true, 0, 0, 140001, 140002, false},  // a large angle
    {1, 16, 8, 256, torch::kBFloat16, false, true, 0, 0, 17, 64, true},         // Llama: no norms
    {1, 6, 2, 80, torch::kBFloat16, true, true, 4.0, 0, 5000, 6000, false},     // idle lanes, Yarn
    {1, 8, 4, 128, torch::kFloat32, true, true, 0, 10, 700, 800, true},         // float32
    {1, 4, 2, 512, torch::kBFloat16, true, true, 0, 0, 33, 40, false},     // two vectors a lane
    {1, 16, 8, 128, torch::kBFloat16, true, false, 0, 0, 99, 128, false},  // the No-RoPE ablation
    {3, 4, 4, 8, torch::kFloat16, true, true, 0, 0, 1, 2, true},           // one vector a row
    {1, 4, 2, 72, torch::kBFloat16, true, true, 0, 0, 250, 260, false},    // half not in vectors
};

model::ModelConfig rotaryConfig(const PrologueCase& c) {
  nlohmann::json json = model_test::tinyQwen3Config(64).toJson();
  json["head_dim"] = c.dim;
  json["rope_theta"] = 1000000.0;
  if (c.yarn_factor > 0) {
    json["rope_scaling"] = {{"rope_type", "yarn"},
                            {"factor", c.yarn_factor},
                            {"original_max_position_embeddings", 4096}};
  }
  return model::ModelConfig::fromJson(json);
}

// The same bits (NaN included), shapes equal.
bool sameBits(const torch::Tensor& a, const torch::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const auto bits = a.element_size() == 4 ? torch::kInt32 : torch::kInt16;
  return torch::equal(a.contiguous().view(bits), b.contiguous().view(bits));
}

// The inputs of one case on CUDA, its tails filled with values the kernel must leave alone.
struct PrologueInputs {
  model::RMSNorm q_norm{nullptr}, k_norm{nullptr};
  std::optional<model::Rotary> rotary;
  torch::Tensor q, k, v, position, k_buffer, v_buffer;
};

PrologueInputs prologueInputs(const PrologueCase& c) {
  torch::manual_seed(static_cast<std::uint64_t>(c.dim * 1000 + c.position));
  const auto options = torch::TensorOptions(c.dtype).device(torch::kCUDA);
  PrologueInputs in;
  if (c.norms) {
    in.q_norm = model::RMSNorm(c.dim, 1e-6, options);
    in.k_norm = model::RMSNorm(c.dim, 1e-6, options);
    in.q_norm->weight.copy_(torch::rand({c.dim}) + 0.5);
    in.k_norm->weight.copy_(torch::rand({c.dim}) + 0.5);
  }
  in.rotary.emplace(rotaryConfig(c), torch::kCUDA);
  in.rotary->setEnabled(c.rotate);
  const std::int64_t q_width = c.heads * c.dim, kv_width = c.kv_heads * c.dim;
  if (c.strided) {
    const auto row = torch::randn({c.batch, 1, q_width + 2 * kv_width}, torch::kFloat32) * 3;
    const auto qkv = row.to(options);
    in.q = qkv.narrow(2, 0, q_width);
    in.k = qkv.narrow(2, q_width, kv_width);
    in.v = qkv.narrow(2, q_width + kv_width, kv_width);
  } else {
    in.q = (torch::randn({c.batch, 1, q_width}) * 3).to(options);
    in.k = (torch::randn({c.batch, 1, kv_width}) * 3).to(options);
    in.v = (torch::randn({c.batch, 1, kv_width}) * 3).to(options);
  }
  const auto int64_cuda = torch::TensorOptions(torch::kInt64).device(torch::kCUDA);
  in.position = torch::full({1}, c.position, int64_cuda);
  const std::int64_t rows = c.capacity + (c.strided ? 37 : 0);
  in.k_buffer = torch::randn({c.batch, c.kv_heads, rows, c.dim}).to(options);
  in.v_buffer = torch::randn({c.batch, c.kv_heads, rows, c.dim}).to(options);
  return in;
}

// The tails of a buffer: its first `capacity` rows.
torch::Tensor tailOf(const torch::Tensor& buffer, std::int64_t capacity) {
  return buffer.narrow(2, 0, capacity);
}

// The kernel's call on the tails of k_buffer and v_buffer.
std::optional<torch::Tensor> prologue(const PrologueInputs& in, const PrologueCase& c,
                                      const torch::Tensor& q, const torch::Tensor& k_buffer,
                                      const torch::Tensor& v_buffer) {
  return model::fusedDecodePrologue(
      {q, in.k, in.v, c.heads, c.kv_heads, c.dim, in.q_norm ? in.q_norm.get() : nullptr,
       in.k_norm ? in.k_norm.get() : nullptr, &*in.rotary, in.position,
       tailOf(k_buffer, c.capacity), tailOf(v_buffer, c.capacity), c.frozen});
}

}  // namespace

TEST_CASE("the decode prologue kernel gives the composition's queries and cache rows bit for bit",
          "[model][decode-prologue-gpu][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  for (const PrologueCase& c : kCases) {
    INFO(c10::toString(c.dtype) << ", batch " << c.batch << ", heads " << c.heads << "/"
                                << c.kv_heads << ", D " << c.dim << ", position " << c.position
                                << ", frozen " << c.frozen << (c.norms ? "" : ", no norms")
                                << (c.rotate ? "" : ", not rotated")
                                << (c.strided ? ", strided" : ""));
    const PrologueInputs in = prologueInputs(c);
    // The composition, as AttentionMixer's in-place forward runs it without the kernel.
    auto q = in.q.view({c.batch, 1, c.heads, c.dim});
    auto k = in.k.view({c.batch, 1, c.kv_heads, c.dim});
    if (c.norms) {
      q = in.q_norm->forward(q);
      k = in.k_norm->forward(k);
    }
    const auto q_expected = in.rotary->apply(q.transpose(1, 2), in.position);  // [B, Hq, 1, D]
    const auto k_rotated = in.rotary->apply(k.transpose(1, 2), in.position);   // [B, Hkv, 1, D]
    const auto v_heads = in.v.view({c.batch, 1, c.kv_heads, c.dim}).transpose(1, 2);
    const auto k_expected = in.k_buffer.clone(), v_expected = in.v_buffer.clone();
    const auto row = in.position - c.frozen;
    tailOf(k_expected, c.capacity).index_copy_(2, row, k_rotated);
    tailOf(v_expected, c.capacity).index_copy_(2, row, v_heads);

    const auto k_got = in.k_buffer.clone(), v_got = in.v_buffer.clone();
    REQUIRE_FALSE(prologue(in, c, in.q, k_got, v_got).has_value());  // the switch is off
    CHECK(sameBits(k_got, in.k_buffer));
    const test::ScopedEnvironment on("STUDIO_DECODE_PROLOGUE", "fused");
    const auto q_got = prologue(in, c, in.q, k_got, v_got);
    REQUIRE(q_got.has_value());
    CHECK(q_got->sizes() == torch::IntArrayRef({c.batch, c.heads, 1, c.dim}));
    CHECK(sameBits(*q_got, q_expected));
    CHECK(sameBits(k_got, k_expected));  // the token's row, and every other row untouched
    CHECK(sameBits(v_got, v_expected));
  }
}

TEST_CASE("the decode prologue kernel declines what the composition must compute",
          "[model][decode-prologue-gpu][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  const test::ScopedEnvironment on("STUDIO_DECODE_PROLOGUE", "fused");
  const PrologueCase& c = kCases.front();
  const PrologueInputs in = prologueInputs(c);
  const auto k_buffer = in.k_buffer.clone(), v_buffer = in.v_buffer.clone();
  SECTION("queries of another type than the cache (qTTT's float32 W_Q)") {
    CHECK_FALSE(prologue(in, c, in.q.to(torch::kFloat32), k_buffer, v_buffer).has_value());
  }
  SECTION("Gemma's 1 + weight norms") {
    const model::RMSNorm offset(c.dim, 1e-6, in.q_norm->weight.options(), true);
    CHECK_FALSE(model::fusedDecodePrologue({in.q, in.k, in.v, c.heads, c.kv_heads, c.dim,
                                            offset.get(), in.k_norm.get(), &*in.rotary, in.position,
                                            tailOf(k_buffer, c.capacity),
                                            tailOf(v_buffer, c.capacity), c.frozen})
                    .has_value());
  }
  SECTION("the fused element-wise kernels turned off") {
    const test::ScopedEnvironment off("STUDIO_FUSED_ELEMENTWISE", "off");
    CHECK_FALSE(prologue(in, c, in.q, k_buffer, v_buffer).has_value());
  }
  SECTION("a head size that is not whole 16-byte vectors") {
    PrologueCase odd = c;
    odd.dim = 100;
    const PrologueInputs odd_in = prologueInputs(odd);
    const auto k_odd = odd_in.k_buffer.clone(), v_odd = odd_in.v_buffer.clone();
    CHECK_FALSE(prologue(odd_in, odd, odd_in.q, k_odd, v_odd).has_value());
  }
  CHECK(sameBits(k_buffer, in.k_buffer));  // nothing written by a call that declined
  CHECK(sameBits(v_buffer, in.v_buffer));
}
