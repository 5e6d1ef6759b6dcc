// RMSNormImpl::forwardSum, a decoder layer's residual sum and its next norm (layers_basic.h): on
// the CPU it is the composition, x + residual and then forward(), bit for bit and with the same
// gradients, whatever STUDIO_FUSED_RESIDUAL says (the fused kernel is CUDA's; its [.gpu] test is in
// test_cuda_fused_elementwise.cpp).

#include <catch2/catch.hpp>

#include <optional>

#include "core/model/layers_basic.h"
#include "support/scoped_environment.h"

using namespace studio;

TEST_CASE("an RMSNorm's forwardSum is the residual sum and its norm, gradients included",
          "[model][rms-norm-sum]") {
  for (const bool switched_on : {false, true}) {
    std::optional<test::ScopedEnvironment> on;
    if (switched_on) on.emplace("STUDIO_FUSED_RESIDUAL", "on");
    for (const auto type : {torch::kFloat32, torch::kBFloat16}) {
      for (const bool unit_offset : {false, true}) {
        INFO(c10::toString(type) << (unit_offset ? ", Gemma's 1 + weight" : "")
                                 << (switched_on ? ", STUDIO_FUSED_RESIDUAL=on" : ""));
        torch::manual_seed(21);
        const auto options = torch::TensorOptions(type);
        model::RMSNorm norm(48, 1e-6, options, unit_offset);
        norm->weight.copy_(torch::rand({48}) + 0.5);
        const auto x0 = (torch::randn({2, 7, 48}) * 3).to(type);
        const auto r0 = (torch::randn({2, 7, 48}) * 5).to(type);
        const auto probe_sum = torch::randn({2, 7, 48}).to(type);
        const auto probe_norm = torch::randn({2, 7, 48}).to(type);
        // Both outputs feed the loss, as h feeds the next layer and its norm feeds the MLP.
        const auto run = [&](bool fused_call) {
          const auto x = x0.clone().requires_grad_(true), r = r0.clone().requires_grad_(true);
          torch::Tensor sum, normed;
          if (fused_call) {
            std::tie(sum, normed) = norm->forwardSum(x, r);
          } else {
            sum = x + r;
            normed = norm->forward(sum);
          }
          ((sum * probe_sum).sum() + (normed * probe_norm).sum()).backward();
          return std::vector<torch::Tensor>{sum.detach(), normed.detach(), x.grad(), r.grad()};
        };
        const auto got = run(true), expected = run(false);
        for (std::size_t i = 0; i < got.size(); ++i) {
          INFO("output " << i << " (sum, normed, d/dx, d/dresidual)");
          CHECK(torch::equal(got[i], expected[i]));
        }
        // No residual (a layer after the embedding): x itself and its norm.
        const auto [same, normed] = norm->forwardSum(x0, torch::Tensor());
        CHECK(same.is_same(x0));
        CHECK(torch::equal(normed, norm->forward(x0)));
      }
    }
  }
}
