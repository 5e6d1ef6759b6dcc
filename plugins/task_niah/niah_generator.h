#pragma once
// niah: an 8-character alphanumeric needle ("The access code is 7QX2K9PB.") at a chosen depth in
// low-entropy background text (a short cycle of plain sentences), exact-match scored.
//
// The needle depends only on the seed, and the background only on the length, so the same seed
// keeps the same needle while `chars` grows; `depth` places it at that fraction of the
// background's sentences (0: before the first, 1: after the last). The target span is the eight
// needle characters themselves: they are what the answer has to copy.

#include "core/task/task.h"

namespace studio::plugins {

class NiahGenerator : public task::TaskGenerator {
 public:
  std::string name() const override { return "niah"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  task::TaskItem generate(const nlohmann::json& params, std::uint64_t seed) const override;
};

}  // namespace studio::plugins
