#include "analysis/refine_trace.h"

#include <algorithm>

#include "analysis/artifact_meta.h"

namespace studio::analysis {

namespace {

RefineStepView stepOf(const RunTrace& run, const engine::ArtifactEvent& artifact) {
  // data: [2, S] floats, the entropy H_t of the S prompt positions then its smoothed curve.
  if (artifact.shape.size() != 2 || artifact.shape[0] != 2 || artifact.shape[1] < 1 ||
      artifact.data.size() != static_cast<std::size_t>(2 * artifact.shape[1])) {
    malformedArtifact(run, artifact, "data",
                      "must hold the entropy and the smoothed entropy of at least one position, [2, S]");
  }
  RefineStepView view;
  const auto length = static_cast<std::ptrdiff_t>(artifact.shape[1]);
  view.entropy.assign(artifact.data.begin(), artifact.data.begin() + length);
  view.entropy_smoothed.assign(artifact.data.begin() + length, artifact.data.end());
  const ArtifactMeta meta(run, artifact);
  view.step = meta.required<std::int64_t>("step");
  view.loss_ntp = meta.required<double>("loss_ntp");
  view.loss_nsp = meta.required<double>("loss_nsp");
  view.loss = meta.required<double>("loss");
  view.reward_mean = meta.optional<double>("reward_mean", 0.0);
  view.advantage_std = meta.optional<double>("advantage_std", 0.0);
  const nlohmann::json& chunks = meta.array("chunks");
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::string path = elementPath("chunks", i);
    const auto field = [&](const char* key) { return meta.required<std::int64_t>(chunks[i], path, key); };
    view.chunks.push_back({field("start"), field("end"), field("first"), field("last"), field("position")});
  }
  const nlohmann::json& rollouts = meta.array("rollouts");
  for (std::size_t i = 0; i < rollouts.size(); ++i) {
    const nlohmann::json& item = rollouts[i];
    const std::string path = elementPath("rollouts", i);
    RefineRolloutView rollout;
    rollout.position = meta.required<std::int64_t>(item, path, "position");
    rollout.group = meta.optional<std::int64_t>(item, path, "group", 0);
    rollout.tokens = meta.integersAt(meta.member(item, path, "tokens"), path + ".tokens");
    rollout.truth = meta.integersAt(meta.member(item, path, "truth"), path + ".truth");
    rollout.text = meta.optional<std::string>(item, path, "text", "");
    rollout.truth_text = meta.optional<std::string>(item, path, "truth_text", "");
    rollout.reward_cos = meta.required<double>(item, path, "reward_cos");
    rollout.reward_binary = meta.required<double>(item, path, "reward_binary");
    rollout.reward = meta.required<double>(item, path, "reward");
    rollout.advantage = meta.required<double>(item, path, "advantage");
    view.rollouts.push_back(std::move(rollout));
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
