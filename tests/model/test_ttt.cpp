// TTT layers (TTT-Linear, TTT-MLP) against an independent float64 NumPy transcription of
// ttt-lm-pytorch (scripts/reference/make_ttt_reference_models.py): logits and fast-weight losses
// of every variant at lengths that are and are not multiples of the mini-batch; the dual form
// against the primal form (prefill against decode); the TTT paper's Theorem 1; the outer gradient
// through the inner loop; the model state's fork, copy and truncate. (Causality: test_causality.)

#include <catch2/catch.hpp>

#include <fstream>

#include "support/tensor_compare.h"
#include "core/common/error.h"
#include "core/model/inference.h"
#include "core/model/model_loader.h"
#include "core/model/model_state.h"
#include "core/model/ttt_inner_loop.h"
#include "model_test_helpers.h"
#include "ttt_test_helpers.h"

using namespace studio;
using studio::model_test::fixtureModel;

namespace {

struct Case {
  std::vector<std::int64_t> ids;
  torch::Tensor logits;  // [T, vocab] float64
  struct Losses {
    int layer = 0;
    torch::Tensor init, before, after;  // [T] float64
  };
  std::vector<Losses> losses;
};

torch::Tensor doubles(const nlohmann::json& values) {
  return torch::tensor(values.get<std::vector<double>>(), torch::kFloat64);
}

std::vector<Case> readCases(const std::string& dir) {
  std::ifstream file(dir + "/reference.json");
  REQUIRE(file);
  const nlohmann::json json = nlohmann::json::parse(file);
  std::vector<Case> cases;
  for (const auto& c : json.at("cases")) {
    Case out;
    out.ids = c.at("ids").get<std::vector<std::int64_t>>();
    std::vector<torch::Tensor> rows;
    for (const auto& row : c.at("logits")) rows.push_back(doubles(row));
    out.logits = torch::stack(rows);
    for (const auto& l : c.at("fast_weight_loss")) {
      out.losses.push_back({l.at("layer").get<int>(), doubles(l.at("init")),
                            doubles(l.at("before")), doubles(l.at("after"))});
    }
    cases.push_back(std::move(out));
  }
  return cases;
}

using test::maxError;

torch::Tensor asTensor(const std::vector<double>& values) {
  return torch::tensor(values, torch::kFloat64);
}

const char* const kVariants[] = {"ttt-linear-tiny", "ttt-mlp-tiny", "ttt-linear-mamba-tiny",
                                  "ttt-mlp-gate-tiny"};

}  // namespace

TEST_CASE("ttt: logits and fast-weight losses match the float64 reference of every variant",
          "[model][ttt]") {
  const std::string name = GENERATE(from_range(std::begin(kVariants), std::end(kVariants)));
  INFO(name);
  const std::string dir = fixtureModel(name);
  const auto loaded = model::loadModel(dir);
  for (const Case& c : readCases(dir)) {
    INFO("length " << c.ids.size());
    torch::NoGradGuard no_grad;
    model::ModelState state(loaded->lm->numLayers());
    model::FastWeightLosses losses;
    model::PrefillOptions options;
    options.fast_weight_losses = &losses;
    const auto T = static_cast<std::int64_t>(c.ids.size());
    // Every position's logits: one prefill of the whole sequence (any length: the last T mod b
    // tokens form a shorter mini-batch).
    const torch::Tensor logits = model_test::fullLogits(*loaded->lm, c.ids);
    CHECK(maxError(logits, c.logits) < 1e-4);
    model::prefill(*loaded->lm, state, c.ids, options);
    REQUIRE(losses.layers.size() == c.losses.size());
    for (const Case::Losses& expected : c.losses) {
      const auto& got = losses.layers.at(static_cast<std::size_t>(expected.layer));
      REQUIRE(static_cast<std::int64_t>(got.positions.size()) == T);
      CHECK(got.positions.front() == 0);
      CHECK(got.positions.back() == T - 1);
      CHECK(maxError(asTensor(got.init), expected.init) < 1e-4);
      CHECK(maxError(asTensor(got.before), expected.before) < 1e-4);
      CHECK(maxError(asTensor(got.after), expected.after) < 1e-4);
    }
  }
}

TEST_CASE("ttt: the primal form (decoding token by token) gives the dual form's logits",
          "[model][ttt]") {
  const std::string name = GENERATE(from_range(std::begin(kVariants), std::end(kVariants)));
  INFO(name);
  const auto loaded = model::loadModel(fixtureModel(name));
  const std::vector<std::int64_t> ids = readCases(fixtureModel(name)).at(1).ids;  // 2b + 5
  const torch::Tensor full = model_test::fullLogits(*loaded->lm, ids);           // [T, V]
  const auto T = static_cast<std::int64_t>(ids.size());
  torch::NoGradGuard no_grad;

  // One token at a time from the first: every mini-batch through the primal form.
  model::ModelState decoded(loaded->lm->numLayers());
  model::FastWeightLosses decode_losses;
  for (std::int64_t t = 0; t < T; ++t) {
    const torch::Tensor logits = model::decodeStep(*loaded->lm, decoded, ids[static_cast<std::size_t>(t)],
                                                   nullptr, &decode_losses);
    INFO("position " << t);
    CHECK(maxError(logits, full[t]) < 1e-5);
  }
  CHECK(decoded.length() == T);

  // The fast-weight losses of the primal form are those of the dual form.
  model::ModelState prefilled(loaded->lm->numLayers());
  model::FastWeightLosses prefill_losses;
  model::PrefillOptions options;
  options.fast_weight_losses = &prefill_losses;
  model::prefill(*loaded->lm, prefilled, ids, options);
  for (std::size_t l = 0; l < prefill_losses.layers.size(); ++l) {
    CHECK(maxError(asTensor(decode_losses.layers[l].after), asTensor(prefill_losses.layers[l].after)) <
          1e-5);
    CHECK(maxError(asTensor(decode_losses.layers[l].before),
                   asTensor(prefill_losses.layers[l].before)) < 1e-5);
  }

  // Prefill in chunks that cut mini-batches anywhere, then decode: the same logits.
  for (const std::int64_t chunk : {3, 5, 7, 16}) {
    INFO("chunk " << chunk);
    model::ModelState state(loaded->lm->numLayers());
    model::PrefillOptions chunked;
    chunked.chunk = chunk;
    const std::vector<std::int64_t> head(ids.begin(), ids.end() - 4);
    torch::Tensor logits = model::prefill(*loaded->lm, state, head, chunked);
    CHECK(maxError(logits, full[T - 5]) < 1e-5);
    for (std::int64_t t = T - 4; t < T; ++t) {
      logits = model::decodeStep(*loaded->lm, state, ids[static_cast<std::size_t>(t)]);
      CHECK(maxError(logits, full[t]) < 1e-5);
    }
  }
}

TEST_CASE("ttt: Theorem 1, f linear, batch gradient descent, eta 1/2 and W0 = 0 is linear attention",
          "[model][ttt]") {
  // TTT paper Theorem 1: with the plain inner loss ‖k·W − t‖² (here ½‖·‖² with rate 1), every
  // gradient taken at W_0 = 0 (one mini-batch: batch gradient descent) and tok_i = 1, the output
  // z_i = q_i·W_i is linear attention Σ_{j≤i} (q_i·k_j) t_j. TTT-Linear's f(x) = x·W + b is
  // linear in the features [x, 1], so with b_0 = 0 it is linear attention over keys and queries
  // that carry a constant 1: Σ_{j≤i} (q_i·k_j + 1) t_j.
  torch::manual_seed(3);
  const std::int64_t B = 2, H = 3, K = 11, f = 6;
  model::InnerModel plain;
  plain.layer_norm = false;
  const model::FastWeights zero{torch::zeros({B, H, f, f}), torch::zeros({B, H, 1, f})};
  model::MiniBatchInputs in;
  in.q = torch::randn({B, H, K, f});
  in.k = torch::randn({B, H, K, f});
  const torch::Tensor t = torch::randn({B, H, K, f});
  in.v = t + in.k;  // the inner loss's target is v − k
  in.lr = torch::ones({B, H, K});
  in.token_factor = torch::ones({K});
  const auto result = model::dualForm(plain, zero, {}, in, false);
  const torch::Tensor scores = torch::tril(in.q.matmul(in.k.transpose(-2, -1)) + 1);  // [B,H,K,K]
  const torch::Tensor linear_attention = scores.matmul(t);
  CHECK(maxError(result.output - in.q, linear_attention) < 1e-4);
  // The primal form, token by token with the gradients accumulated, agrees.
  model::OpenTokens open;
  for (std::int64_t i = 0; i < K; ++i) {
    model::MiniBatchInputs one;
    one.q = in.q.narrow(2, i, 1);
    one.k = in.k.narrow(2, i, 1);
    one.v = in.v.narrow(2, i, 1);
    one.lr = in.lr.narrow(2, i, 1);
    one.token_factor = in.token_factor.narrow(0, i, 1);
    const auto step = model::primalStep(plain, zero, open, one, false);
    CHECK(maxError(step.output - one.q, linear_attention.narrow(2, i, 1)) < 1e-4);
    open = open.concat(step.tokens);
  }
}

TEST_CASE("ttt: the outer loss's gradient through the inner loop matches finite differences",
          "[model][ttt]") {
  for (const bool mlp : {false, true}) {
    INFO((mlp ? "mlp" : "linear"));
    // float64 so that central differences are exact to ~1e-8.
    auto lm = ttt_test::tinyTttModel(mlp, /*pre_conv=*/true, torch::kFloat64, 5);
    const std::vector<std::int64_t> ids = {3, 17, 2, 9, 30, 11, 4, 4, 28, 1, 6, 13, 22};
    auto loss = [&] {
      model::ForwardContext context;
      const torch::Tensor input = torch::tensor(ids, torch::kInt64).unsqueeze(0);
      const torch::Tensor hidden = lm->forward(input, context);
      const torch::Tensor logits = lm->logits(hidden)[0];  // [T, V]
      const auto T = static_cast<std::int64_t>(ids.size());
      return torch::cross_entropy_loss(logits.narrow(0, 0, T - 1), input[0].narrow(0, 1, T - 1));
    };
    auto* mixer = lm->ttt(0);
    REQUIRE(mixer);
    for (torch::Tensor* parameter : {&mixer->W1, &mixer->learnable_token_idx,
                                     &mixer->learnable_ttt_lr_weight, &mixer->ttt_norm_weight,
                                     &mixer->q_proj->weight}) {
      parameter->set_requires_grad(true);
      const torch::Tensor analytic = torch::autograd::grad({loss()}, {*parameter})[0];
      parameter->set_requires_grad(false);
      torch::NoGradGuard no_grad;
      const torch::Tensor flat = parameter->view({-1});
      for (const std::int64_t index : {std::int64_t{0}, flat.numel() / 2, flat.numel() - 1}) {
        const double h = 1e-6;
        const double saved = flat[index].item<double>();
        flat[index] = saved + h;
        const double up = loss().item<double>();
        flat[index] = saved - h;
        const double down = loss().item<double>();
        flat[index] = saved;
        const double numeric = (up - down) / (2 * h);
        CHECK(analytic.view({-1})[index].item<double>() == Approx(numeric).margin(1e-7).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("ttt: a model state forks, copies and truncates fast weights with the keys and values",
          "[model][ttt]") {
  // A hybrid: attention, TTT-Linear, attention (the studio's layer_types extension).
  auto lm = ttt_test::tinyTttModel(false, /*pre_conv=*/true, torch::kFloat32, 9,
                                   {"attention", "ttt", "attention"});
  REQUIRE(lm->attention(0));
  REQUIRE(lm->ttt(1));
  const std::vector<std::int64_t> ids = {5, 1, 8, 22, 3, 3, 9, 14, 2, 7, 30, 12, 6, 19, 11, 4,
                                         25, 2, 9, 10, 18};  // 21 tokens, mini-batch 8
  const torch::Tensor full = test::fullLogits(*lm, ids);
  torch::NoGradGuard no_grad;
  model::ModelState state(lm->numLayers());
  const std::vector<std::int64_t> head(ids.begin(), ids.begin() + 13);
  model::prefill(*lm, state, head);
  CHECK(state.length() == 13);
  CHECK(state.earliestTruncation() == 8);  // the open mini-batch started at token 8

  // A fork reads on without touching the original.
  model::ModelState fork = state.fork();
  for (std::size_t t = 13; t < ids.size(); ++t) {
    const torch::Tensor logits = model::decodeStep(*lm, fork, ids[t]);
    CHECK(maxError(logits, full[static_cast<std::int64_t>(t)]) < 1e-5);
  }
  CHECK(state.length() == 13);
  const torch::Tensor next = model::decodeStep(*lm, state, ids[13]);
  CHECK(maxError(next, full[13]) < 1e-5);

  // A copy, truncated back into the open mini-batch, continues exactly as the original did.
  model::ModelState copy = state.copy();
  copy.truncate(10);
  CHECK(copy.length() == 10);
  for (std::size_t t = 10; t < 16; ++t) {
    const torch::Tensor logits = model::decodeStep(*lm, copy, ids[t]);
    CHECK(maxError(logits, full[static_cast<std::int64_t>(t)]) < 1e-5);
  }
  // Further back than the open mini-batch is refused, with the reason.
  CHECK_THROWS_WITH(state.truncate(5), Catch::Contains("open mini-batch"));
  CHECK_THROWS_AS(state.truncate(15), Error);

  // A branch of a descendant equals the descendant.
  model::ModelState descendant = state.fork();
  model::decodeStep(*lm, descendant, ids[14]);
  model::ModelState branch = state.branch(descendant);
  CHECK(branch.length() == 15);
  CHECK(maxError(model::decodeStep(*lm, branch, ids[15]), full[15]) < 1e-5);
}
