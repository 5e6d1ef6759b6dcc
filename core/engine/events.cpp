#include "core/engine/events.h"

namespace studio::engine {

namespace {

struct KindName {
  const char* operator()(const ProgressEvent&) const { return "progress"; }
  const char* operator()(const StepMetricEvent&) const { return "step_metric"; }
  const char* operator()(const ProbeEvent&) const { return "probe"; }
  const char* operator()(const TokenEvent&) const { return "token"; }
  const char* operator()(const FastWeightLossEvent&) const { return "fast_weight_loss"; }
  const char* operator()(const RoutingEvent&) const { return "routing"; }
  const char* operator()(const RewardEvent&) const { return "reward"; }
  const char* operator()(const ArtifactEvent&) const { return "artifact"; }
  const char* operator()(const LogEvent&) const { return "log"; }
};

}  // namespace

const char* eventKindName(const Event& event) { return std::visit(KindName{}, event); }

}  // namespace studio::engine
