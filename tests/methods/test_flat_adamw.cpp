// qTTT's optimizer over one flat buffer (plugins/method_qttt/flat_adamw.h) against libtorch's own
// AdamW and clip_grad_norm_ on separate tensors: the same parameters bit for bit given the same
// gradients, the same norm, and autograd accumulating into the flat gradient.

#include <catch2/catch.hpp>

#include <limits>

#include "plugins/method_qttt/flat_adamw.h"

using namespace studio;

namespace {

std::vector<torch::Tensor> randomTensors(const std::vector<std::vector<std::int64_t>>& shapes,
                                         double scale) {
  std::vector<torch::Tensor> tensors;
  for (const auto& shape : shapes) tensors.push_back(torch::randn(shape) * scale);
  return tensors;
}

}  // namespace

TEST_CASE("FlatAdamW writes what torch::optim::AdamW writes, bit for bit",
          "[methods][qttt][flat-adamw]") {
  // Equal shapes (qTTT's W_Q masters) and unequal ones.
  for (const auto& shapes : std::vector<std::vector<std::vector<std::int64_t>>>{
           {{64, 48}, {64, 48}, {64, 48}}, {{64, 48}, {32}, {7, 16}}}) {
    INFO(shapes.size() << " parameters, the second of " << shapes[1].size() << " dimensions");
    torch::manual_seed(3);
    const auto initial = randomTensors(shapes, 0.1);
    const auto options = torch::optim::AdamWOptions(1e-3).weight_decay(0.01);
    plugins::FlatAdamW flat(initial, options);
    std::vector<torch::Tensor> reference;
    for (const auto& t : initial) reference.push_back(t.clone().requires_grad_(true));
    torch::optim::AdamW adamw(reference, options);
    for (int step = 0; step < 5; ++step) {
      const auto gradients = randomTensors(shapes, 1.0 + step);
      flat.zeroGrad();
      adamw.zero_grad();
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        flat.parameters()[i].grad().copy_(gradients[i]);
        reference[i].mutable_grad() = gradients[i].clone();
      }
      flat.step();
      adamw.step();
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        INFO("step " << step << ", parameter " << i);
        CHECK(torch::equal(flat.parameters()[i], reference[i]));
      }
    }
  }
}

TEST_CASE("FlatAdamW clips as clip_grad_norm_ does", "[methods][qttt][flat-adamw]") {
  for (const bool equal_shapes : {true, false}) {
    INFO((equal_shapes ? "equal" : "unequal") << " shapes");
    const std::vector<std::vector<std::int64_t>> shapes =
        equal_shapes ? std::vector<std::vector<std::int64_t>>{{16, 8}, {16, 8}}
                     : std::vector<std::vector<std::int64_t>>{{16, 8}, {5}};
    torch::manual_seed(4);
    const auto initial = randomTensors(shapes, 1.0);
    const auto gradients = randomTensors(shapes, 2.0);
    for (const double max_norm : {1.0, std::numeric_limits<double>::infinity()}) {
      INFO("max norm " << max_norm);
      plugins::FlatAdamW flat(initial, torch::optim::AdamWOptions(1e-3));
      std::vector<torch::Tensor> reference;
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        flat.parameters()[i].grad().copy_(gradients[i]);
        reference.push_back(initial[i].clone().requires_grad_(true));
        reference.back().mutable_grad() = gradients[i].clone();
      }
      const double expected = torch::nn::utils::clip_grad_norm_(reference, max_norm);
      CHECK(expected > 1.0);  // so that a finite max norm scales
      CHECK(flat.clipGradNorm(max_norm).item<double>() == Approx(expected).epsilon(1e-6));
      for (std::size_t i = 0; i < shapes.size(); ++i) {
        CHECK(torch::allclose(flat.parameters()[i].grad(), reference[i].grad(), 1e-6, 1e-7));
      }
    }
  }
}

TEST_CASE("autograd accumulates into FlatAdamW's gradients until they are zeroed",
          "[methods][qttt][flat-adamw]") {
  plugins::FlatAdamW flat({torch::ones({3, 2}), torch::ones({3, 2})},
                          torch::optim::AdamWOptions(1e-3));
  const auto& p = flat.parameters();
  REQUIRE(p[0].is_leaf());
  REQUIRE(p[0].requires_grad());
  CHECK(torch::equal(p[0].grad(), torch::zeros({3, 2})));
  const auto c = torch::arange(6, torch::kFloat32).view({3, 2});
  for (int pass = 1; pass <= 2; ++pass) {
    (p[0] * c + p[1] * 2 * c).sum().backward();
    CHECK(torch::equal(p[0].grad(), pass * c));
    CHECK(torch::equal(p[1].grad(), pass * 2 * c));
  }
  const auto* storage = p[1].grad().data_ptr<float>();
  flat.zeroGrad();
  CHECK(torch::equal(p[1].grad(), torch::zeros({3, 2})));
  CHECK(p[1].grad().data_ptr<float>() == storage);  // the same flat buffer, zeroed
}

TEST_CASE("FlatAdamW's casts of its parameters carry their gradients into the flat gradient",
          "[methods][qttt][flat-adamw]") {
  torch::manual_seed(8);
  const std::vector<torch::Tensor> initial = {torch::randn({4, 6}), torch::randn({4, 6}),
                                              torch::randn({5})};
  for (const auto type : {torch::kBFloat16, torch::kFloat32}) {
    INFO(c10::toString(type));
    plugins::FlatAdamW flat(initial, torch::optim::AdamWOptions(1e-3));
    plugins::FlatAdamW reference(initial, torch::optim::AdamWOptions(1e-3));
    const std::vector<torch::Tensor> probes = {torch::randn({4, 6}), torch::randn({4, 6}),
                                               torch::randn({5})};
    for (int pass = 0; pass < 2; ++pass) {  // the second accumulates onto the first
      const auto casts = flat.castParameters(type);
      REQUIRE(casts.size() == 3);
      torch::Tensor loss = torch::zeros({}), expected_loss = torch::zeros({});
      for (std::size_t i = 0; i < casts.size(); ++i) {
        const auto cast = reference.parameters()[i].to(type);
        CHECK(torch::equal(casts[i], cast));
        CHECK(casts[i].scalar_type() == type);
        loss = loss + (casts[i] * probes[i].to(type)).sum().to(torch::kFloat32);
        expected_loss = expected_loss + (cast * probes[i].to(type)).sum().to(torch::kFloat32);
      }
      loss.backward();
      expected_loss.backward();
      for (std::size_t i = 0; i < casts.size(); ++i) {
        CHECK(torch::equal(flat.parameters()[i].grad(), reference.parameters()[i].grad()));
      }
    }
    // A step writes the parameters, never the casts already handed out.
    const auto before = flat.castParameters(type);
    const auto kept = before[0].clone();
    flat.step();
    CHECK(torch::equal(before[0], kept));
    CHECK_FALSE(torch::equal(flat.castParameters(type)[0], kept));
  }
}

TEST_CASE("FlatAdamW refuses what it does not do", "[methods][qttt][flat-adamw]") {
  const auto options = torch::optim::AdamWOptions(1e-3);
  CHECK_THROWS_WITH(plugins::FlatAdamW({torch::ones({2}, torch::kFloat64)}, options),
                    Catch::Contains("float32"));
  CHECK_THROWS_WITH(plugins::FlatAdamW({}, options), Catch::Contains("no parameters"));
  const auto amsgrad = torch::optim::AdamWOptions(options).amsgrad(true);
  CHECK_THROWS_WITH(plugins::FlatAdamW({torch::ones({2})}, amsgrad), Catch::Contains("AMSGrad"));
}
