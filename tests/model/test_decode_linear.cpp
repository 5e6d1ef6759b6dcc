// The decode step's linear-layer kernels (core/model/decode_linear.h, kernels/gemv.cu) against
// torch::linear in float32: where they apply (a few rows on a GPU, bf16 or f16, no gradient) and
// where they must not (the CPU, float32, many rows, a width they cannot read in whole vectors, a
// gradient, STUDIO_DECODE_GEMV=off). With STUDIO_DECODE_GEMV=fused, q/k/v in one launch bit for
// bit the separate launches', and the gated MLP kernel against decodeLinear, the activation and
// the product. The GPU cases are hidden: run them on a GPU machine with
// `build-cuda/tests/test_model "[.gpu]"`.

#include <catch2/catch.hpp>

#include "core/common/torch_compat.h"
#include "core/model/decode_linear.h"
#include "core/model/layers_basic.h"
#include "core/model/swiglu_mlp.h"
#include "support/scoped_environment.h"

using namespace studio;

TEST_CASE("the decode linear kernel leaves the CPU to torch::linear", "[model]") {
  const auto x = torch::randn({1, 1, 64}).to(torch::kBFloat16);
  const auto w = torch::randn({32, 64}).to(torch::kBFloat16);
  CHECK_FALSE(model::decodeLinear(x, w, torch::Tensor()).has_value());
  model::Linear linear(64, 32, false, torch::TensorOptions(torch::kBFloat16));
  linear->weight.copy_(w);
  CHECK(torch::equal(linear->forward(x), torch::linear(x, w)));
}

namespace {

using test::ScopedEnvironment;

const model::GateActivation kActivations[] = {model::GateActivation::Silu,
                                              model::GateActivation::GeluTanh,
                                              model::GateActivation::Gelu};

}  // namespace

TEST_CASE("the fused decode projections leave the CPU to the composition", "[model]") {
  const ScopedEnvironment fused("STUDIO_DECODE_GEMV", "fused");
  const auto x = torch::randn({1, 1, 64}).to(torch::kBFloat16);
  const auto w = torch::randn({32, 64}).to(torch::kBFloat16);
  CHECK_FALSE(model::decodeLinears(x, {w, w}, {torch::Tensor(), torch::Tensor()}).has_value());
  CHECK_FALSE(model::decodeGatedLinear(x, w, w, model::GateActivation::Silu).has_value());
  // A group is 1 to 3 weights with one bias entry each, on any device.
  CHECK_THROWS_WITH(model::decodeLinears(x, {}, {}), Catch::Contains("decodeLinears"));
  CHECK_THROWS_WITH(model::decodeLinears(x, {w, w, w, w}, std::vector<torch::Tensor>(4)),
                    Catch::Contains("1 to 3 weights"));
  CHECK_THROWS_WITH(model::decodeLinears(x, {w}, {}), Catch::Contains("one bias entry each"));
  // The MLP is act(gate(x)) · up(x) through down for each activation.
  for (const auto activation : kActivations) {
    torch::manual_seed(3);
    model::SwiGluMlp mlp(64, 48, torch::TensorOptions(torch::kFloat32), model::SwiGluNames{},
                         activation);
    for (auto& p : mlp->parameters()) p.normal_(0, 0.1);
    const auto input = torch::randn({2, 3, 64});
    const auto gate = torch::linear(input, mlp->gate_proj->weight);
    const auto activated = activation == model::GateActivation::Silu ? torch::silu(gate)
                           : activation == model::GateActivation::GeluTanh
                               ? torch::gelu(gate, "tanh")
                               : torch::gelu(gate);
    const auto up = torch::linear(input, mlp->up_proj->weight);
    const auto expected = torch::linear(activated * up, mlp->down_proj->weight);
    CHECK(torch::allclose(mlp->forward(input), expected, 1e-6, 1e-6));
  }
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
    const ScopedEnvironment off("STUDIO_DECODE_GEMV", "off");
    CHECK_FALSE(model::decodeLinear(x, w, torch::Tensor()));
  }
  // With a gradient wanted the kernel (which has no backward) stays out, and Linear's forward
  // keeps the autograd graph.
  const auto w_trained = w.detach().requires_grad_(true);
  CHECK_FALSE(model::decodeLinear(x, w_trained, torch::Tensor()));
  model::Linear linear(256, 64, false, options);
  const auto y = linear->forward(x, w_trained);
  CHECK(y.requires_grad());
}

TEST_CASE("q, k and v in one launch equal three launches bit for bit", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  struct Group {
    std::vector<std::int64_t> x_shape;  // [..., in]
    std::vector<std::int64_t> outs;
    bool bias;
  };
  // Qwen3-1.7B's q, k and v; Qwen2's biases; output counts that end inside a block of 4 features
  // (the next output's blocks start after it); one and two weights; several rows.
  const std::vector<Group> groups = {
      {{1, 1, 2048}, {2048, 1024, 1024}, false}, {{1, 1, 1536}, {1536, 256, 256}, true},
      {{1, 1, 1000}, {77, 3, 1026}, true},       {{4, 1, 520}, {5, 9}, false},
      {{2, 1, 1, 8}, {1}, false},                {{3, 256}, {130, 1, 67}, true},
  };
  const ScopedEnvironment fused("STUDIO_DECODE_GEMV", "fused");
  for (const auto type : {torch::kBFloat16, torch::kFloat16}) {
    for (const Group& g : groups) {
      const std::int64_t in = g.x_shape.back();
      INFO(c10::toString(type) << ", x " << torch::IntArrayRef(g.x_shape) << ", outs "
                               << torch::IntArrayRef(g.outs) << (g.bias ? ", biases" : ""));
      torch::manual_seed(static_cast<std::uint64_t>(in + 7 * g.outs.size()));
      const auto options = torch::TensorOptions(type).device(torch::kCUDA);
      const auto x = torch::randn(g.x_shape, options);
      std::vector<torch::Tensor> weights, biases;
      for (const auto out : g.outs) {
        weights.push_back(torch::randn({out, in}, options) / std::sqrt(static_cast<double>(in)));
        biases.push_back(g.bias ? torch::randn({out}, options) : torch::Tensor());
      }
      const auto got = model::decodeLinears(x, weights, biases);
      REQUIRE(got.has_value());
      REQUIRE(got->size() == weights.size());
      for (std::size_t i = 0; i < weights.size(); ++i) {
        INFO("weight " << i);
        const auto alone = model::decodeLinear(x, weights[i], biases[i]);
        REQUIRE(alone.has_value());
        CHECK((*got)[i].sizes() == alone->sizes());
        CHECK(torch::equal((*got)[i], *alone));
      }
    }
  }
}

TEST_CASE("the gated decode kernel equals the linear kernels, the activation and the product",
          "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  struct Shape {
    std::vector<std::int64_t> x_shape;  // [..., in]
    std::int64_t out;
  };
  // Qwen3-1.7B's and 4B's MLPs, a width with a partial last pass of the warp, several rows, an
  // output count that ends inside a block.
  const std::vector<Shape> shapes = {
      {{1, 1, 2048}, 6144}, {{1, 1, 2560}, 9728}, {{1, 1, 1000}, 77}, {{4, 1, 520}, 130},
      {{2, 8}, 3},
  };
  const ScopedEnvironment fused("STUDIO_DECODE_GEMV", "fused");
  for (const auto type : {torch::kBFloat16, torch::kFloat16}) {
    for (const auto activation : kActivations) {
      double exact = 0, elements = 0;
      for (const Shape& s : shapes) {
        const std::int64_t in = s.x_shape.back();
        INFO(c10::toString(type) << ", activation " << static_cast<int>(activation) << ", x "
                                 << torch::IntArrayRef(s.x_shape) << ", out " << s.out);
        torch::manual_seed(static_cast<std::uint64_t>(in * 13 + s.out));
        const auto options = torch::TensorOptions(type).device(torch::kCUDA);
        const auto x = torch::randn(s.x_shape, options);
        const auto gate = torch::randn({s.out, in}, options) / std::sqrt(static_cast<double>(in));
        const auto up = torch::randn({s.out, in}, options) / std::sqrt(static_cast<double>(in));
        const auto got = model::decodeGatedLinear(x, gate, up, activation);
        REQUIRE(got.has_value());
        const auto gate_y = model::decodeLinear(x, gate, torch::Tensor());
        const auto up_y = model::decodeLinear(x, up, torch::Tensor());
        REQUIRE((gate_y && up_y));
        const auto composed = model::activate(*gate_y, activation) * *up_y;
        CHECK(got->sizes() == composed.sizes());
        CHECK(got->scalar_type() == type);
        // The same dot products rounded in the same order: only the activation's float32 formula
        // may round differently from libtorch's, one unit in the last place, which the product
        // may carry to two.
        const double units = type == torch::kBFloat16 ? 2.0 / 128 : 2.0 / 1024;
        const auto g = got->to(torch::kCPU, torch::kFloat64);
        const auto e = composed.to(torch::kCPU, torch::kFloat64);
        CHECK(((g - e).abs() <= e.abs() * units).all().item<bool>());
        exact += (g == e).sum().item<double>();
        elements += static_cast<double>(g.numel());
      }
      WARN(c10::toString(type) << ", activation " << static_cast<int>(activation)
                               << ": bit for bit the composition's on " << 100 * exact / elements
                               << " % of the elements");
    }
  }
}

TEST_CASE("the fused decode projections stay out where they do not apply", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  const auto options = torch::TensorOptions(torch::kBFloat16).device(torch::kCUDA);
  const auto x = torch::randn({1, 1, 256}, options);
  const auto w = torch::randn({64, 256}, options);
  const std::vector<torch::Tensor> no_biases(2);
  torch::NoGradGuard no_grad;
  // Opt-in: without the switch, and with it off.
  CHECK_FALSE(model::decodeLinears(x, {w, w}, no_biases));
  CHECK_FALSE(model::decodeGatedLinear(x, w, w, model::GateActivation::Silu));
  {
    const ScopedEnvironment off("STUDIO_DECODE_GEMV", "off");
    CHECK_FALSE(model::decodeLinears(x, {w, w}, no_biases));
    CHECK_FALSE(model::decodeGatedLinear(x, w, w, model::GateActivation::Silu));
  }
  const ScopedEnvironment fused("STUDIO_DECODE_GEMV", "fused");
  CHECK(model::decodeLinears(x, {w, w}, no_biases).has_value());
  CHECK(model::decodeGatedLinear(x, w, w, model::GateActivation::Silu).has_value());
  // One weight of another type or width keeps the whole group out; gate and up of other sizes,
  // five rows, float32, and a gradient keep the gated kernel out.
  CHECK_FALSE(model::decodeLinears(x, {w, w.to(torch::kFloat16)}, no_biases));
  CHECK_FALSE(model::decodeLinears(x, {w, torch::randn({64, 128}, options)}, no_biases));
  CHECK_FALSE(model::decodeGatedLinear(x, w, w.narrow(0, 0, 32).contiguous(),
                                       model::GateActivation::Silu));
  CHECK_FALSE(model::decodeGatedLinear(torch::randn({5, 256}, options), w, w,
                                       model::GateActivation::Silu));
  const auto x32 = x.to(torch::kFloat32), w32 = w.to(torch::kFloat32);
  CHECK_FALSE(model::decodeGatedLinear(x32, w32, w32, model::GateActivation::Silu));
  torch::AutoGradMode grad(true);
  const auto trained = w.detach().requires_grad_(true);
  CHECK_FALSE(model::decodeLinears(x, {trained, w}, no_biases));
  CHECK_FALSE(model::decodeGatedLinear(x, w, trained, model::GateActivation::Silu));
}

TEST_CASE("the streaming decode kernels equal the one-row-a-warp kernels bit for bit",
          "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  torch::NoGradGuard no_grad;
  // STUDIO_DECODE_GEMV_STREAM=on: a grid of resident blocks, each warp through several rows.
  // Each lane sums its vectors in the same order, so every output is the same. Qwen3-1.7B's and
  // 4B's projections (the 4B gate's 9,728 rows outnumber a resident grid's warps on an H200 by
  // occupancy arithmetic, so warps stream on into a second and third row), a width with a partial
  // last pass, 1 to 4 rows, groups of outputs that end inside a block, biases, and fewer rows than
  // warps.
  struct Shape {
    std::vector<std::int64_t> x_shape;  // [..., in]
    std::vector<std::int64_t> outs;     // one weight, or a group
    bool bias;
  };
  const std::vector<Shape> shapes = {
      {{1, 1, 2048}, {2048, 1024, 1024}, false},
      {{1, 1, 6144}, {2048}, false},
      {{1, 1, 2560}, {9728}, false},
      {{1, 1, 1000}, {77, 3, 1026}, true},
      {{4, 1, 520}, {130}, true},
      {{3, 256}, {5}, false},
      {{2, 1, 8}, {1}, false},
  };
  const ScopedEnvironment fused("STUDIO_DECODE_GEMV", "fused");
  for (const auto type : {torch::kBFloat16, torch::kFloat16}) {
    for (const Shape& s : shapes) {
      const std::int64_t in = s.x_shape.back();
      INFO(c10::toString(type) << ", x " << torch::IntArrayRef(s.x_shape) << ", outs "
                               << torch::IntArrayRef(s.outs) << (s.bias ? ", biases" : ""));
      torch::manual_seed(static_cast<std::uint64_t>(in * 3 + s.outs.size()));
      const auto options = torch::TensorOptions(type).device(torch::kCUDA);
      const auto x = torch::randn(s.x_shape, options);
      std::vector<torch::Tensor> weights, biases;
      for (const auto out : s.outs) {
        weights.push_back(torch::randn({out, in}, options) / std::sqrt(static_cast<double>(in)));
        biases.push_back(s.bias ? torch::randn({out}, options) : torch::Tensor());
      }
      const auto rows = model::decodeLinears(x, weights, biases);
      const auto gated =
          model::decodeGatedLinear(x, weights[0], weights[0].flip(0), model::GateActivation::Silu);
      REQUIRE((rows && gated));
      const ScopedEnvironment stream("STUDIO_DECODE_GEMV_STREAM", "on");
      const auto streamed = model::decodeLinears(x, weights, biases);
      const auto streamed_gated =
          model::decodeGatedLinear(x, weights[0], weights[0].flip(0), model::GateActivation::Silu);
      REQUIRE((streamed && streamed_gated));
      for (std::size_t i = 0; i < weights.size(); ++i) {
        CHECK(torch::equal((*streamed)[i], (*rows)[i]));
      }
      CHECK(torch::equal(*streamed_gated, *gated));
    }
  }
}
