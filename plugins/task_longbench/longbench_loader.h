#pragma once
// LongBench v1 (THUDM/LongBench, one JSON Lines file per dataset; fields input, context, answers,
// length, dataset, language, all_classes, _id) and LongBench-v2 (data.json, a JSON array; fields
// _id, domain, sub_domain, difficulty, length, question, choice_A..choice_D, answer, context).
//
// v1 items are scored by the "longbench" scorer, which applies the metric LongBench's eval.py
// assigns to the record's dataset (meta.dataset); the [TASK] section carries a short instruction
// per dataset (the answer format the metric expects), the question is `input` (or the
// instruction when `input` is empty, as for the code completion sets). v2 items ask the question
// with its four choices and the answer format of LongBench-v2's prompt, scored by "longbench_v2".

#include "core/task/task.h"

namespace studio::plugins {

class LongBenchLoader : public task::TaskLoader {
 public:
  std::string name() const override { return "longbench"; }
  std::string summary() const override;

 protected:
  task::LoadResult read(const std::string& path, std::size_t limit) const override;
};

class LongBenchV2Loader : public task::TaskLoader {
 public:
  std::string name() const override { return "longbench_v2"; }
  std::string summary() const override;

 protected:
  task::LoadResult read(const std::string& path, std::size_t limit) const override;
};

}  // namespace studio::plugins
