#include "analysis/refine_trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/common/error.h"

namespace studio::analysis {

namespace {

[[noreturn]] void malformed(const RunTrace& run, const std::string& field, const std::string& why) {
  throwError(ErrorKind::Session, "run " + std::to_string(run.id), "refine_step." + field, why);
}

RefineStepView stepOf(const RunTrace& run, const engine::ArtifactEvent& artifact) {
  // data: [2, S] floats, the entropy H_t of the S prompt positions then its smoothed curve.
  if (artifact.shape.size() != 2 || artifact.shape[0] != 2 || artifact.shape[1] < 1 ||
      artifact.data.size() != static_cast<std::size_t>(2 * artifact.shape[1])) {
    malformed(run, "data",
              "must hold the entropy and the smoothed entropy of at least one position, [2, S]");
  }
  RefineStepView view;
  const auto length = static_cast<std::ptrdiff_t>(artifact.shape[1]);
  view.entropy.assign(artifact.data.begin(), artifact.data.begin() + length);
  view.entropy_smoothed.assign(artifact.data.begin() + length, artifact.data.end());
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(artifact.meta_json);
    view.step = meta.at("step").get<std::int64_t>();
    view.loss_ntp = meta.at("loss_ntp").get<double>();
    view.loss_nsp = meta.at("loss_nsp").get<double>();
    view.loss = meta.at("loss").get<double>();
    view.reward_mean = meta.value("reward_mean", 0.0);
    view.advantage_std = meta.value("advantage_std", 0.0);
    for (const auto& chunk : meta.at("chunks")) {
      view.chunks.push_back({chunk.at("start").get<std::int64_t>(), chunk.at("end").get<std::int64_t>(),
                             chunk.at("first").get<std::int64_t>(), chunk.at("last").get<std::int64_t>(),
                             chunk.at("position").get<std::int64_t>()});
    }
    for (const auto& item : meta.at("rollouts")) {
      RefineRolloutView rollout;
      rollout.position = item.at("position").get<std::int64_t>();
      rollout.group = item.value("group", std::int64_t{0});
      rollout.tokens = item.at("tokens").get<std::vector<std::int64_t>>();
      rollout.truth = item.at("truth").get<std::vector<std::int64_t>>();
      rollout.text = item.value("text", std::string());
      rollout.truth_text = item.value("truth_text", std::string());
      rollout.reward_cos = item.at("reward_cos").get<double>();
      rollout.reward_binary = item.at("reward_binary").get<double>();
      rollout.reward = item.at("reward").get<double>();
      rollout.advantage = item.at("advantage").get<double>();
      view.rollouts.push_back(std::move(rollout));
    }
  } catch (const nlohmann::json::exception& error) {
    malformed(run, "meta", error.what());
  }
  return view;
}

}  // namespace

std::vector<RefineStepView> refineSteps(const RunTrace& run) {
  std::vector<RefineStepView> steps;
  for (const engine::ArtifactEvent* artifact : run.artifacts("refine_step")) {
    steps.push_back(stepOf(run, *artifact));
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const RefineStepView& a, const RefineStepView& b) { return a.step < b.step; });
  return steps;
}

}  // namespace studio::analysis
