#pragma once
// RULER's prepared data (scripts/data/prepare.py writes <save_dir>/<task>/<subset>.jsonl with
// index, input, outputs, length and, in newer versions, answer_prefix).
//
// The task is read from the path: the folder's name for validation.jsonl / test.jsonl, otherwise
// the file's own name (niah_single_1.jsonl). RULER scores the qa tasks with string_match_part and
// every other task with string_match_all; so does this loader.
//
// `input` is RULER's whole prompt with the question at its end: the last line becomes the
// question and the rest the context. For the niah tasks every occurrence of an expected output in
// the context is a target span (the needles' values), so attention to them can be probed.

#include "core/task/task.h"

namespace studio::plugins {

class RulerLoader : public task::TaskLoader {
 public:
  std::string name() const override { return "ruler"; }
  std::string summary() const override;

 protected:
  task::LoadResult read(const std::string& path, std::size_t limit) const override;
};

// The RULER task a file holds, from its path (see above).
std::string rulerTaskFromPath(const std::string& path);

}  // namespace studio::plugins
