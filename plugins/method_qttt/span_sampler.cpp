#include "plugins/method_qttt/span_sampler.h"

namespace studio::plugins {

namespace {

std::uint64_t spanSeedOf(const nlohmann::json& params, std::uint64_t run_seed) {
  const std::int64_t own = params.at("seed").get<std::int64_t>();
  return own < 0 ? run_seed : static_cast<std::uint64_t>(own);
}

}  // namespace

ParamSpec spanSeedParam() {
  ParamSpec seed;
  seed.name = "seed";
  seed.type = ParamSpec::Type::Int;
  seed.default_value = -1;
  seed.min = -1;
  seed.help =
      "seed of the span sampler; -1: the run's seed (App. 11), so every seed of a sweep "
      "draws its own spans";
  return seed;
}

ParamSpec spanLossParam() {
  ParamSpec loss;
  loss.name = "span_loss";
  loss.type = ParamSpec::Type::Choice;
  loss.default_value = "sum";
  loss.choices = {"sum", "mean"};
  loss.help = "the span loss: Eq. 3.1's sum over the k tokens (the paper), or their mean (the "
              "gradient 1/k as large, so the clip acts k times later)";
  return loss;
}

bool spanLossIsSum(const nlohmann::json& params) {
  return params.at("span_loss").get<std::string>() == "sum";
}

SpanSampler::SpanSampler(const nlohmann::json& params, std::uint64_t run_seed, std::int64_t length,
                         std::int64_t span)
    : m_seed(spanSeedOf(params, run_seed)),
      m_length(length),
      m_span(span),
      m_rng(task::SeededRng::stream(m_seed, "qttt_span")) {}

std::int64_t SpanSampler::next() {
  return m_rng.uniformInt(1, m_length - m_span) - 1;
}

}  // namespace studio::plugins
