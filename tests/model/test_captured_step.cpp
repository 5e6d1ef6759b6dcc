// CapturedStep (core/model/captured_step.h): op by op where capturing is refused; on CUDA (hidden:
// run on purpose on a GPU machine with `build-cuda/tests/test_model "[.gpu]"`) eager runs, then a
// capture that is replayed, a capture again after a reset, and a failed capture that falls back to
// running the body op by op.

#include <catch2/catch.hpp>

#include "core/common/torch_compat.h"
#include "core/model/captured_step.h"

using namespace studio;

TEST_CASE("a captured step runs op by op where capturing is refused", "[model]") {
  CHECK(model::CapturedStep::refusal(torch::kCPU) == "not on CUDA");
  model::CapturedStep step(torch::kCPU, 1);
  const torch::Tensor input = torch::zeros({3});
  torch::Tensor total = torch::zeros({3});
  for (int call = 1; call <= 4; ++call) {
    step.run([&] { input.fill_(call); }, [&] { total.add_(input); });
  }
  CHECK(torch::equal(total, torch::full({3}, 1.0 + 2 + 3 + 4)));
  CHECK(step.captures() == 0);
  CHECK(step.replays() == 0);
  CHECK(step.captureFailure().empty());
}

TEST_CASE("a captured step runs eagerly, is captured, replayed, captured again after a reset, "
          "and falls back where its capture fails", "[model][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  REQUIRE(model::CapturedStep::refusal(torch::kCUDA).empty());
  const auto options = torch::TensorOptions(torch::kFloat32).device(torch::kCUDA);
  const torch::Tensor input = torch::zeros({1000}, options);
  torch::Tensor total = torch::zeros({1000}, options);
  model::CapturedStep step(torch::kCUDA, 2);
  double expected = 0;
  // Calls 1 and 2 op by op, 3 captured and replayed, then replays; the reset captures at call 7.
  for (int call = 1; call <= 8; ++call) {
    if (call == 7) step.reset();
    step.run([&] { input.fill_(call); }, [&] { total.add_(input * 2); });
    expected += 2.0 * call;
    INFO("call " << call);
    CHECK(torch::equal(total.cpu(), torch::full({1000}, expected)));
  }
  CHECK(step.captures() == 2);
  CHECK(step.replays() == 6);
  CHECK(step.captureFailure().empty());

  // A body that reads a value back cannot be captured: it runs op by op from then on.
  model::CapturedStep reading(torch::kCUDA, 0);
  double read = 0;
  for (int call = 1; call <= 3; ++call) {
    reading.run([&] { input.fill_(call); }, [&] { read += input.sum().item<double>(); });
  }
  CHECK(read == 1000.0 * (1 + 2 + 3));
  CHECK(reading.captures() == 0);
  CHECK(reading.replays() == 0);
  CHECK_FALSE(reading.captureFailure().empty());
}
