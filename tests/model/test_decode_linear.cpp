// The decode step's linear-layer kernel (core/model/decode_linear.h, kernels/gemv.cu) against
// torch::linear in float32: where it applies (a few rows on a GPU, bf16 or f16, no gradient) and
// where it must not (the CPU, float32, many rows, a width it cannot read in whole vectors, a
// gradient, STUDIO_DECODE_GEMV=off). The GPU cases are hidden: run them on a GPU machine with
// `build-cuda/tests/test_model "[.gpu]"`.

#include <catch2/catch.hpp>

#include <cstdlib>

#include "core/common/torch_compat.h"
#include "core/model/decode_linear.h"
#include "core/model/layers_basic.h"

using namespace studio;

TEST_CASE("the decode linear kernel leaves the CPU to torch::linear", "[model]") {
  const auto x = torch::randn({1, 1, 64}).to(torch::kBFloat16);
  const auto w = torch::randn({32, 64}).to(torch::kBFloat16);
  CHECK_FALSE(model::decodeLinear(x, w, torch::Tensor()).has_value());
  model::Linear linear(64, 32, false, torch::TensorOptions(torch::kBFloat16));
  linear->weight.copy_(w);
  CHECK(torch::equal(linear->forward(x), torch::linear(x, w)));
}

TEST_CASE("the decode linear kernel equals torch::linear in float32", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  struct Shape {
    std::vector<std::int64_t> x_shape;  // [..., in]
    std::int64_t out;
    bool bias;
  };
  // One row (a decode step) at Qwen3-1.7B's widths, a width with a partial last pass of the
  // warp (1000 = 125 vectors), the narrowest (8), several rows (a batch of sequences), an output
  // count that is not a multiple of the block's 4 features, and a bias (Qwen2).
  const std::vector<Shape> shapes = {
      {{1, 1, 2048}, 2048, false}, {{1, 1, 2048}, 6144, false}, {{1, 1, 6144}, 2048, false},
      {{1, 1, 1000}, 1024, true},  {{1, 8}, 3, false},          {{4, 1, 2048}, 1026, true},
      {{2, 1, 1, 520}, 77, false}, {{3, 4096}, 5, true},
  };
  for (const auto type : {torch::kBFloat16, torch::kFloat16}) {
    for (const Shape& s : shapes) {
      const std::int64_t in = s.x_shape.back();
      INFO(c10::toString(type) << ", x " << torch::IntArrayRef(s.x_shape) << ", out " << s.out
                               << (s.bias ? ", bias" : ""));
      torch::manual_seed(static_cast<std::uint64_t>(in * 31 + s.out));
      const auto options = torch::TensorOptions(type).device(torch::kCUDA);
      const auto x = torch::randn(s.x_shape, options);
      const auto w =
          (torch::randn({s.out, in}, options) / std::sqrt(static_cast<double>(in))).to(type);
      const auto b = s.bias ? torch::randn({s.out}, options) : torch::Tensor();
      const auto got = model::decodeLinear(x, w, b);
      REQUIRE(got.has_value());
      CHECK(got->scalar_type() == type);
      auto expected_shape = s.x_shape;
      expected_shape.back() = s.out;
      CHECK(got->sizes() == torch::IntArrayRef(expected_shape));
      const auto reference = s.bias ? torch::linear(x.to(torch::kFloat32), w.to(torch::kFloat32),
                                                    b.to(torch::kFloat32))
                                    : torch::linear(x.to(torch::kFloat32), w.to(torch::kFloat32));
      // One rounding of the float32 sum to the output type: each element within the type's unit
      // roundoff of the reference (2⁻⁸ bf16, 2⁻¹¹ f16), plus float32's summation error.
      const double unit = type == torch::kBFloat16 ? 1.0 / 256 : 1.0 / 2048;
      const auto g = got->to(torch::kCPU, torch::kFloat64);
      const auto e = reference.to(torch::kCPU, torch::kFloat64);
      const auto bound = e.abs() * unit + 1e-4 * e.abs().max().item<double>();
      CHECK(((g - e).abs() <= bound).all().item<bool>());
    }
  }
}

TEST_CASE("the decode linear kernel stays out where it does not apply", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  const auto options = torch::TensorOptions(torch::kBFloat16).device(torch::kCUDA);
  const auto x = torch::randn({1, 1, 256}, options);
  const auto w = torch::randn({64, 256}, options);
  {
    torch::NoGradGuard no_grad;
    CHECK(model::decodeLinear(x, w, torch::Tensor()).has_value());
    // float32, five rows, 252 wide (not whole 16-byte vectors), a strided weight, a bias of
    // another type, and the switch.
    CHECK_FALSE(model::decodeLinear(x.to(torch::kFloat32), w.to(torch::kFloat32), torch::Tensor()));
    const auto five_rows = torch::randn({5, 256}, options);
    CHECK_FALSE(model::decodeLinear(five_rows, w, torch::Tensor()));
    const auto narrow_w = w.narrow(1, 0, 252).contiguous();
    CHECK_FALSE(model::decodeLinear(x.narrow(-1, 0, 252), narrow_w, torch::Tensor()));
    CHECK_FALSE(model::decodeLinear(x, w.t().contiguous().t(), torch::Tensor()));
    CHECK_FALSE(model::decodeLinear(x, w, torch::randn({64}, options.dtype(torch::kFloat32))));
    setenv("STUDIO_DECODE_GEMV", "off", 1);
    CHECK_FALSE(model::decodeLinear(x, w, torch::Tensor()));
    unsetenv("STUDIO_DECODE_GEMV");
  }
  // With a gradient wanted the kernel (which has no backward) stays out, and Linear's forward
  // keeps the autograd graph.
  const auto w_trained = w.detach().requires_grad_(true);
  CHECK_FALSE(model::decodeLinear(x, w_trained, torch::Tensor()));
  model::Linear linear(256, 64, false, options);
  const auto y = linear->forward(x, w_trained);
  CHECK(y.requires_grad());
}
