// The fused TTT scans (kernels/ttt_linear_scan.cu, kernels/ttt_mlp_scan.cu) against the libtorch
// dual form they replace (core/model/ttt_inner_loop.h, run mini-batch by mini-batch on the CPU in
// float32): each kernel on its own at several head and mini-batch sizes, with and without
// ttt_norm, and a TTT-Linear and a TTT-MLP model's prefill and decode on CUDA against the same
// model on CUDA through the composition (STUDIO_TTT_SCAN=libtorch) and on the CPU, with chunks
// that start inside a mini-batch. The [.gpu] cases are hidden: run them on a GPU machine with
// `build-cuda/tests/test_model "[.gpu]"`.

#include <catch2/catch.hpp>

#include <cstdlib>

#include "core/common/torch_compat.h"
#include "core/model/inference.h"
#include "core/model/model_state.h"
#include "core/model/ttt_scan.h"
#include "support/scoped_environment.h"
#include "ttt_test_helpers.h"

using namespace studio;

namespace {

double scanRelativeError(const torch::Tensor& got, const torch::Tensor& expected) {
  const auto g = got.to(torch::kCPU, torch::kFloat64), e = expected.to(torch::kCPU, torch::kFloat64);
  return ((g - e).norm() / e.norm().clamp_min(1e-30)).item<double>();
}

struct ScanShape {
  std::int64_t batch, heads, dim, mini_batch, mini_batches;
  bool layer_norm;
};

const std::vector<ScanShape> kScanShapes = {
    {1, 8, 64, 16, 64, true},   // the 20m shape's heads, 1,024 tokens
    {2, 3, 32, 8, 5, true},     // a batch of two, small heads
    {1, 2, 128, 16, 12, true},  // head_dim 128
    {1, 1, 48, 12, 3, true},    // f not a multiple of 32, b not a power of two
    {1, 4, 64, 16, 7, false},   // the plain inner loss, no ttt_norm
};

// TTT-MLP's (hidden 4f): its kernel holds W1 and W2, so heads up to 64 wide.
const std::vector<ScanShape> kMlpScanShapes = {
    {1, 8, 64, 16, 64, true},  // the 20m shape's heads, 1,024 tokens
    {2, 3, 32, 8, 5, true},    // a batch of two, small heads
    {1, 1, 48, 12, 3, true},   // f not a multiple of 32, b not a power of two
    {1, 2, 16, 5, 4, true},    // b not a multiple of the kernel's four rows a thread
    {1, 4, 64, 16, 7, false},  // the plain inner loss, no ttt_norm
};

// Random inputs of one shape, on the CPU in float32.
struct ScanInputs {
  model::InnerModel model;
  model::FastWeights start;
  torch::Tensor q, k, v, lr, tok;

  ScanInputs on(const torch::Device& device) const {
    ScanInputs moved = *this;
    if (model.layer_norm) {
      moved.model.norm_weight = model.norm_weight.to(device);
      moved.model.norm_bias = model.norm_bias.to(device);
    }
    moved.start.clear();
    for (const torch::Tensor& w : start) moved.start.push_back(w.to(device));
    for (torch::Tensor* t : {&moved.q, &moved.k, &moved.v, &moved.lr, &moved.tok}) *t = t->to(device);
    return moved;
  }
};

// TTT-Linear's inputs, or TTT-MLP's with `mlp` (W1 [f, 4f], W2 [4f, f]).
ScanInputs randomScanInputs(const ScanShape& s, bool mlp = false) {
  torch::manual_seed(static_cast<std::uint64_t>(s.dim * 100 + s.mini_batch));
  const auto B = s.batch, H = s.heads, f = s.dim, n = s.mini_batch, N = n * s.mini_batches;
  ScanInputs in;
  in.model.mlp = mlp;
  in.model.layer_norm = s.layer_norm;
  if (s.layer_norm) {
    in.model.norm_weight = 1 + 0.2 * torch::randn({H, 1, f});
    in.model.norm_bias = 0.2 * torch::randn({H, 1, f});
  }
  // W_0 per head, expanded over the batch as the mixer's initialWeights are.
  const auto e = mlp ? 4 * f : f;
  in.start = {(0.05 * torch::randn({1, H, f, e})).expand({B, H, f, e}),
              (0.05 * torch::randn({1, H, 1, e})).expand({B, H, 1, e})};
  if (mlp) {
    in.start.push_back((0.05 * torch::randn({1, H, e, f})).expand({B, H, e, f}));
    in.start.push_back((0.05 * torch::randn({1, H, 1, f})).expand({B, H, 1, f}));
  }
  in.q = torch::randn({B, H, N, f});
  in.k = torch::randn({B, H, N, f});
  in.v = torch::randn({B, H, N, f});
  in.lr = torch::sigmoid(torch::randn({B, H, N})) / static_cast<double>(f);
  in.tok = torch::clamp_min(1.0 / torch::arange(1, n + 1, torch::kFloat32) + 0.1 * torch::randn({n}), 0.0);
  return in;
}

// The libtorch composition: dualForm then closeMiniBatch, one mini-batch at a time.
model::ScanResult composedScan(const ScanInputs& in) {
  const auto n = in.tok.size(0), N = in.q.size(2);
  model::ScanResult result;
  model::FastWeights w = in.start;
  std::vector<torch::Tensor> outputs;
  for (std::int64_t t0 = 0; t0 < N; t0 += n) {
    model::MiniBatchInputs batch;
    batch.q = in.q.narrow(2, t0, n);
    batch.k = in.k.narrow(2, t0, n);
    batch.v = in.v.narrow(2, t0, n);
    batch.lr = in.lr.narrow(2, t0, n);
    batch.token_factor = in.tok;
    const model::MiniBatchResult step = model::dualForm(in.model, w, {}, batch, false);
    outputs.push_back(step.output);
    w = model::closeMiniBatch(w, step.tokens, in.tok[n - 1]);
  }
  result.output = torch::cat(outputs, 2);
  result.end = w;
  return result;
}

model::ModelConfig scanTestConfig(bool mlp) {
  return model::ModelConfig::fromJson({{"model_type", "ttt"},
                                       {"vocab_size", 64},
                                       {"hidden_size", 128},
                                       {"intermediate_size", 256},
                                       {"num_hidden_layers", 2},
                                       {"num_attention_heads", 2},
                                       {"ttt_layer_type", mlp ? "mlp" : "linear"},
                                       {"ttt_base_lr", 1.0},
                                       {"mini_batch_size", 16},
                                       {"conv_kernel", 4},
                                       {"pre_conv", true},
                                       {"share_qk", true},
                                       {"use_gate", true},
                                       {"tie_word_embeddings", false},
                                       {"eos_token_id", 1}});
}

// Runs the scan of `cpu`'s inner model on CUDA and checks it against the composition on the CPU
// and on CUDA; `start` is left as it was.
void checkScanAgainstComposition(const ScanInputs& cpu) {
  const ScanInputs gpu = cpu.on(torch::kCUDA);
  torch::NoGradGuard no_grad;
  REQUIRE(model::tttScanApplies(gpu.model, gpu.start, gpu.q, gpu.k, gpu.v, gpu.lr, gpu.tok));
  const model::ScanResult expected = composedScan(cpu);
  const torch::Tensor start_before = gpu.start[0].clone();
  const model::ScanResult got =
      model::tttScan(gpu.model, gpu.start, gpu.q, gpu.k, gpu.v, gpu.lr, gpu.tok);
  CHECK(scanRelativeError(got.output, expected.output) < 1e-4);
  REQUIRE(got.end.size() == expected.end.size());
  for (std::size_t i = 0; i < got.end.size(); ++i) {
    INFO("fast weight " << i << " (W1, b1, W2, b2)");
    CHECK(got.end[i].sizes() == expected.end[i].sizes());
    CHECK(scanRelativeError(got.end[i], expected.end[i]) < 1e-4);
  }
  CHECK(torch::equal(gpu.start[0], start_before));  // the start weights are left as they were
  // The same inputs on CUDA through the libtorch composition: what the kernel replaces there.
  const model::ScanResult composed_cuda = composedScan(gpu);
  CHECK(scanRelativeError(got.output, composed_cuda.output) < 1e-4);
}

// A TTT model's prefill on CUDA through its fused scan against the same model through the
// composition on CUDA and on the CPU, at several prefill chunks, then decode steps continuing
// from both states.
void checkModelScan(bool mlp) {
  const model::ModelConfig config = scanTestConfig(mlp);
  auto cpu = ttt_test::randomTttModel(config, torch::kFloat32, 17, torch::kCPU, 0.05);
  auto gpu = ttt_test::randomTttModel(config, torch::kFloat32, 17, torch::kCUDA, 0.05);
  torch::manual_seed(3);
  const torch::Tensor drawn = torch::randint(config.vocab_size, {1003}, torch::kInt64);
  const std::vector<std::int64_t> ids(drawn.data_ptr<std::int64_t>(), drawn.data_ptr<std::int64_t>() + 1003);
  torch::NoGradGuard no_grad;
  model::ModelState cpu_state(cpu->numLayers());
  const torch::Tensor on_cpu = model::prefill(*cpu, cpu_state, ids);
  for (const std::int64_t chunk : {std::int64_t{0}, std::int64_t{100}, std::int64_t{256}}) {
    INFO("prefill chunk " << chunk << " (0: one forward)");
    model::PrefillOptions options;
    options.chunk = chunk;
    model::ModelState composed_state(gpu->numLayers());
    torch::Tensor composed;
    {
      const test::ScopedEnvironment forced("STUDIO_TTT_SCAN", "libtorch");
      REQUIRE(std::string(model::tttScanPathName(torch::kCUDA, mlp)) == "libtorch dual form");
      composed = model::prefill(*gpu, composed_state, ids, options);
    }
    REQUIRE(std::string(model::tttScanPathName(torch::kCUDA, mlp)) == "fused scan kernel");
    model::ModelState fused_state(gpu->numLayers());
    const torch::Tensor fused = model::prefill(*gpu, fused_state, ids, options);
    CHECK(scanRelativeError(fused, composed) < 1e-4);
    // Against the CPU only loosely: cuDNN may run the causal convolutions in TF32.
    CHECK(scanRelativeError(fused, on_cpu) < 5e-3);
    // Decode continues from the state the scan left: fast weights and the open mini-batch.
    for (std::int64_t token : {5, 9, 13, 2, 40}) {
      const torch::Tensor want = model::decodeStep(*gpu, composed_state, token);
      CHECK(scanRelativeError(model::decodeStep(*gpu, fused_state, token), want) < 1e-4);
    }
  }
}

}  // namespace

TEST_CASE("the fused TTT scans never apply on the CPU or where a gradient is needed",
          "[model][ttt]") {
  const test::ScopedEnvironment mlp_kernel("STUDIO_TTT_MLP_SCAN", "kernel");
  for (const bool mlp : {false, true}) {
    INFO("TTT-MLP " << mlp);
    const ScanInputs cpu = randomScanInputs(kScanShapes[1], mlp);
    CHECK_FALSE(model::tttScanApplies(cpu.model, cpu.start, cpu.q, cpu.k, cpu.v, cpu.lr, cpu.tok));
    CHECK_THROWS_WITH(model::tttScan(cpu.model, cpu.start, cpu.q, cpu.k, cpu.v, cpu.lr, cpu.tok),
                      Catch::Contains(mlp ? "TTT-MLP scan" : "TTT-Linear scan"));
    CHECK(std::string(model::tttScanPathName(torch::kCPU, mlp)) == "libtorch dual form");
  }
}

TEST_CASE("the fused TTT-Linear scan equals the dual form, mini-batch by mini-batch",
          "[model][ttt][ttt-scan][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  for (const ScanShape& s : kScanShapes) {
    INFO("B " << s.batch << ", H " << s.heads << ", f " << s.dim << ", b " << s.mini_batch << ", "
              << s.mini_batches << " mini-batches, ttt_norm " << s.layer_norm);
    checkScanAgainstComposition(randomScanInputs(s));
  }
  // Where a gradient is needed the composition runs: the kernel has no backward.
  const ScanInputs gpu = randomScanInputs(kScanShapes[0]).on(torch::kCUDA);
  const torch::Tensor q = gpu.q.clone().requires_grad_(true);
  CHECK_FALSE(model::tttScanApplies(gpu.model, gpu.start, q, gpu.k, gpu.v, gpu.lr, gpu.tok));
}

TEST_CASE("the fused TTT-MLP scan equals the dual form, mini-batch by mini-batch",
          "[model][ttt][ttt-scan][ttt-mlp-scan][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  {
    const ScanInputs gpu = randomScanInputs(kMlpScanShapes[0], true).on(torch::kCUDA);
    INFO("opt-in: without STUDIO_TTT_MLP_SCAN=kernel the composition runs");
    CHECK_FALSE(model::tttScanApplies(gpu.model, gpu.start, gpu.q, gpu.k, gpu.v, gpu.lr, gpu.tok));
    CHECK(std::string(model::tttScanPathName(torch::kCUDA, true)) == "libtorch dual form");
  }
  const test::ScopedEnvironment mlp_kernel("STUDIO_TTT_MLP_SCAN", "kernel");
  for (const ScanShape& s : kMlpScanShapes) {
    INFO("B " << s.batch << ", H " << s.heads << ", f " << s.dim << ", b " << s.mini_batch << ", "
              << s.mini_batches << " mini-batches, ttt_norm " << s.layer_norm);
    checkScanAgainstComposition(randomScanInputs(s, true));
  }
  const ScanInputs gpu = randomScanInputs(kMlpScanShapes[0], true).on(torch::kCUDA);
  const torch::Tensor w2 = gpu.start[2].clone().requires_grad_(true);
  CHECK_FALSE(model::tttScanApplies(gpu.model, {gpu.start[0], gpu.start[1], w2, gpu.start[3]},
                                    gpu.q, gpu.k, gpu.v, gpu.lr, gpu.tok));
  // Heads of 128 would need W1 and W2 in 648 KB of shared memory: the composition runs.
  const ScanInputs wide = randomScanInputs(kScanShapes[2], true).on(torch::kCUDA);
  CHECK_FALSE(
      model::tttScanApplies(wide.model, wide.start, wide.q, wide.k, wide.v, wide.lr, wide.tok));
  const test::ScopedEnvironment forced("STUDIO_TTT_SCAN", "libtorch");
  CHECK_FALSE(model::tttScanApplies(gpu.model, gpu.start, gpu.q, gpu.k, gpu.v, gpu.lr, gpu.tok));
}

TEST_CASE("a TTT-Linear model on CUDA (fused scan) reads and decodes as through the composition",
          "[model][ttt][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  checkModelScan(false);
}

TEST_CASE("a TTT-MLP model on CUDA (fused scan) reads and decodes as through the composition",
          "[model][ttt][ttt-mlp-scan][.gpu]") {
  REQUIRE(compat::cudaAvailable());
  const test::ScopedEnvironment mlp_kernel("STUDIO_TTT_MLP_SCAN", "kernel");
  checkModelScan(true);
}
