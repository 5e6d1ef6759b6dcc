// The autograd nodes for RMSNorm and the rotary embedding (core/model/fused_elementwise_backward.h)
// against autograd through the compositions they replace on a GPU, here on the CPU where the same
// nodes run their compositions: the rotary node's gradient is bit for bit the composition's (the
// rotation by −θ rounds as autograd does), RMSNorm's analytic gradient agrees to the rounding of
// its type, and neither node is built where it does not apply.

#include <catch2/catch.hpp>

#include "core/model/fused_elementwise_backward.h"
#include "core/model/layers_basic.h"
#include "core/model/model_config.h"
#include "core/model/rotary.h"
#include "model_test_helpers.h"

using namespace studio;

namespace {

// The gradient of sum(f(x) · probe) with respect to x (and to `other`, when it is trained).
std::pair<torch::Tensor, torch::Tensor> gradients(
    const std::function<torch::Tensor(const torch::Tensor&)>& f, const torch::Tensor& x0,
    const torch::Tensor& probe, const torch::Tensor& other = {}) {
  const torch::Tensor x = x0.detach().clone().requires_grad_(true);
  const torch::Tensor y = f(x);
  (y * probe).sum().backward();
  return {x.grad(), other.defined() ? other.grad() : torch::Tensor()};
}

model::Rotary rotaryOf(const std::string& scaling) {
  nlohmann::json json = model_test::tinyQwen3Config().toJson();
  json["head_dim"] = 64;
  if (scaling == "yarn") {
    json["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0},
                            {"original_max_position_embeddings", 4096}};
  }
  return model::Rotary(model::ModelConfig::fromJson(json), torch::kCPU);
}

}  // namespace

TEST_CASE("the rotary node's gradient is the composition's, bit for bit",
          "[model][fused-elementwise-backward]") {
  for (const std::string scaling : {"none", "yarn"}) {
    const model::Rotary rotary = rotaryOf(scaling);
    for (const auto type : {torch::kFloat32, torch::kBFloat16, torch::kFloat64}) {
      INFO(scaling << ", " << c10::toString(type));
      torch::manual_seed(5);
      // [B, T, H, D] transposed, as the attention layers hand it over; odd T, positions to 40k.
      const auto x = torch::randn({2, 13, 3, 64}).to(type).transpose(1, 2);
      const auto probe = torch::randn({2, 3, 13, 64}).to(type);
      const auto positions = torch::randint(0, 40000, {13}, torch::kInt64);
      const auto& inv_freq = rotary.invFreq();
      const double factor = rotary.attentionFactor();
      const auto node = [&](const torch::Tensor& t) {
        return model::rotaryNode(t, positions, inv_freq, factor);
      };
      const auto composition = [&](const torch::Tensor& t) {
        return model::rotate(t, positions, inv_freq, factor);
      };
      CHECK(torch::equal(node(x), composition(x)));
      const auto [got, unused_a] = gradients(node, x, probe);
      const auto [expected, unused_b] = gradients(composition, x, probe);
      REQUIRE(got.sizes() == expected.sizes());
      CHECK(torch::equal(got, expected));
    }
  }
}

TEST_CASE("RMSNorm's analytic input gradient agrees with autograd's to its type's rounding",
          "[model][fused-elementwise-backward]") {
  for (const auto type : {torch::kFloat64, torch::kFloat32, torch::kBFloat16}) {
    // Per-head norms (128), a hidden state (2048), a row that is not a multiple of 8 (100).
    for (const std::int64_t n : {128, 2048, 100}) {
      INFO(c10::toString(type) << ", n " << n);
      torch::manual_seed(static_cast<std::uint64_t>(n));
      const auto x = (torch::randn({3, 7, n}) * 3).to(type);
      const auto probe = torch::randn({3, 7, n}).to(type);
      const auto weight = (torch::rand({n}) + 0.5).to(type);
      const auto [expected, unused] = gradients(
          [&](const torch::Tensor& t) { return model::rmsNorm(t, weight, 1e-6); }, x, probe);
      const auto got = model::rmsNormInputGradient(probe, x, weight, 1e-6);
      const auto [through_node, unused_b] = gradients(
          [&](const torch::Tensor& t) { return model::rmsNormNode(t, weight, 1e-6); }, x, probe);
      CHECK(torch::equal(got, through_node));
      const auto e = expected.to(torch::kFloat64), g = got.to(torch::kFloat64);
      const double spread = ((g - e).abs().max() / e.abs().max()).item<double>();
      const double equal = (g == e).to(torch::kFloat64).mean().item<double>();
      if (type == torch::kFloat64) {
        CHECK(spread < 1e-12);
      } else if (type == torch::kFloat32) {
        CHECK(spread < 1e-5);
      } else {
        CHECK(spread < 2e-2);  // a bf16 rounding of the largest element
        CHECK(equal > 0.8);
      }
    }
  }
}

TEST_CASE("the RMSNorm node's weight gradient is autograd's",
          "[model][fused-elementwise-backward]") {
  torch::manual_seed(9);
  for (const auto type : {torch::kFloat32, torch::kBFloat16}) {
    INFO(c10::toString(type));
    const auto x = torch::randn({4, 5, 32}).to(type).requires_grad_(true);
    const auto probe = torch::randn({4, 5, 32}).to(type);
    const auto w0 = (torch::rand({32}) + 0.5).to(type);
    const auto w_node = w0.clone().requires_grad_(true);
    const auto w_composed = w0.clone().requires_grad_(true);
    (model::rmsNormNode(x, w_node, 1e-6) * probe).sum().backward();
    (model::rmsNorm(x.detach(), w_composed, 1e-6) * probe).sum().backward();
    CHECK(torch::equal(w_node.grad(), w_composed.grad()));
  }
}

TEST_CASE("the nodes are built only for a gradient on a GPU",
          "[model][fused-elementwise-backward]") {
  const auto x = torch::randn({2, 4, 5, 64}).requires_grad_(true);
  const auto weight = torch::ones({64});
  const auto positions = torch::arange(5, torch::kInt64);
  const model::Rotary rotary = rotaryOf("none");
  // On the CPU the compositions stay under autograd: no node, whether or not a gradient is needed.
  CHECK_FALSE(model::rmsNormWithGradient(x, weight, 1e-6).has_value());
  CHECK_FALSE(model::rotaryWithGradient(x, positions, rotary.invFreq(), 1.0).has_value());
  const auto y = rotary.apply(x, positions);
  REQUIRE(y.grad_fn());
  CHECK(y.grad_fn()->name().find("RotaryFunction") == std::string::npos);
  const auto through_node = model::rotaryNode(x, positions, rotary.invFreq(), 1.0);
  CHECK(through_node.grad_fn()->name().find("RotaryFunction") != std::string::npos);
  {
    torch::NoGradGuard no_grad;
    CHECK_FALSE(model::rmsNormWithGradient(x, weight, 1e-6).has_value());
  }
}
