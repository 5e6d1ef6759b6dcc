// The fused RMSNorm and rotary kernels (core/model/fused_elementwise.h) against the libtorch
// compositions they replace, on CUDA (hidden: run on purpose on a GPU machine with
// `build-cuda/tests/test_model "[.gpu]"`). They round as the compositions do, so in float32 they
// agree to float32 rounding and in bf16/f16 nearly every element is bit-identical (the float32
// sum of squares is added up in another order).

#include <catch2/catch.hpp>

#include <cstdlib>

#include "core/common/torch_compat.h"
#include "core/model/fused_elementwise.h"
#include "core/model/fused_elementwise_backward.h"
#include "core/model/layers_basic.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"
#include "model_test_helpers.h"
#include "support/scoped_environment.h"

using namespace studio;

namespace {

// The share of elements that are bit-identical, and the largest difference relative to the
// largest magnitude.
std::pair<double, double> fusedAgreement(const torch::Tensor& got, const torch::Tensor& expected) {
  const auto g = got.to(torch::kCPU, torch::kFloat64), e = expected.to(torch::kCPU, torch::kFloat64);
  const double equal = (g == e).to(torch::kFloat64).mean().item<double>();
  const double spread = ((g - e).abs().max() / e.abs().max().clamp_min(1e-30)).item<double>();
  return {equal, spread};
}

// float32 agrees to float32 rounding; bf16 and f16 bit for bit on nearly every element.
void checkRoundsAsComposition(const torch::Tensor& got, const torch::Tensor& expected,
                              torch::ScalarType type) {
  const auto [equal, spread] = fusedAgreement(got, expected);
  if (type == torch::kFloat32) {
    CHECK(spread < 1e-6);
  } else {
    CHECK(equal > 0.99);
    CHECK(spread < 1e-2);
  }
}

// The composition: the same call with the kernels turned off.
template <typename F>
torch::Tensor composed(F&& f) {
  setenv("STUDIO_FUSED_ELEMENTWISE", "off", 1);
  torch::Tensor out = f();
  unsetenv("STUDIO_FUSED_ELEMENTWISE");
  return out;
}

}  // namespace

TEST_CASE("the fused RMSNorm kernel rounds as the composition does", "[model][fused-elementwise-gpu][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  for (const auto type : {torch::kBFloat16, torch::kFloat16, torch::kFloat32}) {
    // The vector kernel with one row (a block's other row slots idle), many short rows per block,
    // idle lanes (80), two and four vectors per thread (2560, 2048 × 300 rows), its largest row
    // (8192); the element-wise kernel where rows are not whole 16-byte vectors (100 in 16 bits)
    // or too long (8200).
    for (const auto& shape : std::vector<std::vector<std::int64_t>>{
             {1, 1, 2048}, {2, 37, 16, 128}, {5, 80}, {3, 2560}, {300, 2048}, {4096, 16, 128},
             {7, 100}, {2, 8192}, {3, 8200}}) {
      INFO(c10::toString(type) << ", last dimension " << shape.back());
      torch::manual_seed(static_cast<std::uint64_t>(shape.back()));
      const auto options = torch::TensorOptions(type).device(torch::kCUDA);
      const auto x = (torch::randn(shape, torch::kFloat32) * 3).to(options);
      model::RMSNorm norm(shape.back(), 1e-6, options);
      norm->weight.copy_(torch::rand({shape.back()}) + 0.5);
      REQUIRE(model::fusedRmsNorm(x, norm->weight, 1e-6).has_value());
      const auto got = norm->forward(x);
      const auto expected = composed([&] { return norm->forward(x); });
      REQUIRE(got.sizes() == expected.sizes());
      checkRoundsAsComposition(got, expected, type);
    }
  }
}

TEST_CASE("the residual sum and its RMSNorm in one kernel equal the add and the RMSNorm kernel",
          "[model][fused-elementwise-gpu][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  for (const auto type : {torch::kBFloat16, torch::kFloat16, torch::kFloat32}) {
    // The vector kernel (a decode step's row, a prefill's rows, idle lanes, four vectors a
    // thread) and the element-wise one (rows not whole vectors, rows too long for the vectors).
    for (const auto& shape : std::vector<std::vector<std::int64_t>>{
             {1, 1, 2048}, {2, 37, 2048}, {5, 80}, {300, 2048}, {7, 100}, {3, 8200}}) {
      INFO(c10::toString(type) << ", last dimension " << shape.back() << ", rows "
                               << torch::IntArrayRef(shape));
      torch::manual_seed(static_cast<std::uint64_t>(shape.back() + 3));
      const auto options = torch::TensorOptions(type).device(torch::kCUDA);
      const auto x = (torch::randn(shape, torch::kFloat32) * 3).to(options);
      const auto residual = (torch::randn(shape, torch::kFloat32) * 5).to(options);
      model::RMSNorm norm(shape.back(), 1e-6, options);
      norm->weight.copy_(torch::rand({shape.back()}) + 0.5);
      // The composition on CUDA: libtorch's add, then the RMSNorm kernel.
      const auto sum_expected = x + residual;
      const auto normed_expected = norm->forward(sum_expected);
      CHECK_FALSE(model::fusedResidualRmsNorm(x, residual, norm->weight, 1e-6).has_value());
      const test::ScopedEnvironment on("STUDIO_FUSED_RESIDUAL", "on");
      const auto fused = model::fusedResidualRmsNorm(x, residual, norm->weight, 1e-6);
      REQUIRE(fused.has_value());
      CHECK(torch::equal(fused->first, sum_expected));
      CHECK(torch::equal(fused->second, normed_expected));
      const auto [sum, normed] = norm->forwardSum(x, residual);  // the layer's call
      CHECK(torch::equal(sum, sum_expected));
      CHECK(torch::equal(normed, normed_expected));
    }
  }
  // What it declines: residuals of another shape or type, a gradient, the kernels turned off.
  const test::ScopedEnvironment on("STUDIO_FUSED_RESIDUAL", "on");
  const auto options = torch::TensorOptions(torch::kBFloat16).device(torch::kCUDA);
  const auto x = torch::randn({4, 256}, options);
  const auto weight = torch::ones({256}, options);
  CHECK_FALSE(
      model::fusedResidualRmsNorm(x, torch::randn({1, 256}, options), weight, 1e-6).has_value());
  CHECK_FALSE(model::fusedResidualRmsNorm(x, x.to(torch::kFloat32), weight, 1e-6).has_value());
  {
    torch::AutoGradMode grad(true);
    const auto leaf = x.clone().requires_grad_(true);
    CHECK_FALSE(model::fusedResidualRmsNorm(leaf, x, weight, 1e-6).has_value());
  }
  const test::ScopedEnvironment off("STUDIO_FUSED_ELEMENTWISE", "off");
  CHECK_FALSE(model::fusedResidualRmsNorm(x, x, weight, 1e-6).has_value());
}

TEST_CASE("the fused rotary kernel rounds as the composition does", "[model][fused-elementwise-gpu][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  for (const std::string scaling : {"none", "yarn"}) {
    nlohmann::json json = model_test::tinyQwen3Config().toJson();
    json["head_dim"] = 128;
    if (scaling == "yarn") {
      json["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}, {"original_max_position_embeddings", 4096}};
    }
    const auto config = model::ModelConfig::fromJson(json);
    const model::Rotary rotary(config, torch::kCUDA);
    for (const auto type : {torch::kBFloat16, torch::kFloat16, torch::kFloat32}) {
      INFO(scaling << ", " << c10::toString(type));
      torch::manual_seed(4);
      const auto options = torch::TensorOptions(type).device(torch::kCUDA);
      // [B, T, H, D] transposed, as the attention layers hand it over; odd T, positions up to 40k.
      const auto x = torch::randn({2, 13, 6, 128}, torch::kFloat32).to(options).transpose(1, 2);
      const auto positions = torch::randint(0, 40000, {13}, torch::kInt64).to(torch::kCUDA);
      const auto got = rotary.apply(x, positions);
      const auto expected = composed([&] { return rotary.apply(x, positions); });
      checkRoundsAsComposition(got, expected, type);
    }
  }
}

TEST_CASE("the autograd nodes give the compositions' gradients on CUDA",
          "[model][fused-elementwise-gpu][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  nlohmann::json json = model_test::tinyQwen3Config().toJson();
  json["head_dim"] = 128;
  const model::Rotary rotary(model::ModelConfig::fromJson(json), torch::kCUDA);
  for (const auto type : {torch::kBFloat16, torch::kFloat16, torch::kFloat32}) {
    INFO(c10::toString(type));
    torch::manual_seed(6);
    const auto options = torch::TensorOptions(type).device(torch::kCUDA);
    // The rotary node: the kernel at the negated positions against autograd's composition.
    const auto x = torch::randn({2, 13, 6, 128}, torch::kFloat32).to(options).transpose(1, 2);
    const auto probe = torch::randn({2, 6, 13, 128}, torch::kFloat32).to(options);
    const auto positions = torch::randint(0, 40000, {13}, torch::kInt64).to(torch::kCUDA);
    const auto rotaryGradient = [&] {
      const auto leaf = x.detach().clone().requires_grad_(true);
      const auto y = rotary.apply(leaf, positions);
      (y * probe).sum().backward();
      return std::make_pair(y.grad_fn()->name(), leaf.grad());
    };
    const auto [node_name, got] = rotaryGradient();
    CHECK(node_name.find("RotaryFunction") != std::string::npos);
    const auto [composed_name, expected] = [&] {
      setenv("STUDIO_FUSED_ELEMENTWISE", "off", 1);
      auto result = rotaryGradient();
      unsetenv("STUDIO_FUSED_ELEMENTWISE");
      return result;
    }();
    CHECK(composed_name.find("RotaryFunction") == std::string::npos);
    checkRoundsAsComposition(got, expected, type);

    // The RMSNorm node (the kernel forward, the analytic backward, then the backward kernel)
    // against autograd's composition, for a hidden state and per-head rows.
    for (const std::int64_t n : {2048, 128, 100}) {
      INFO("n " << n);
      const auto h = (torch::randn({3, 37, n}, torch::kFloat32) * 3).to(options);
      const auto dy = torch::randn({3, 37, n}, torch::kFloat32).to(options);
      const auto weight = (torch::rand({n}) + 0.5).to(options);
      const auto normGradient = [&] {
        const auto leaf = h.detach().clone().requires_grad_(true);
        model::RMSNorm norm(n, 1e-6, options);
        norm->weight.copy_(weight);
        (norm->forward(leaf) * dy).sum().backward();
        return leaf.grad();
      };
      const auto analytic = normGradient();
      setenv("STUDIO_RMSNORM_BACKWARD", "kernel", 1);
      const auto kernel = normGradient();
      REQUIRE(model::fusedRmsNormBackward(dy, h, weight, 1e-6).has_value());
      unsetenv("STUDIO_RMSNORM_BACKWARD");
      const auto reference = composed(normGradient);
      const auto spread = fusedAgreement(analytic, reference).second;
      CHECK(spread < (type == torch::kFloat32 ? 1e-5 : 2e-2));
      // The kernel rounds as the analytic composition, summing Σ g·x in another order.
      const auto [kernel_equal, kernel_spread] =
          fusedAgreement(kernel, model::rmsNormInputGradient(dy, h, weight, 1e-6));
      CHECK(kernel_spread < (type == torch::kFloat32 ? 1e-5 : 1e-2));
      if (type != torch::kFloat32) CHECK(kernel_equal > 0.98);
    }
  }
}
