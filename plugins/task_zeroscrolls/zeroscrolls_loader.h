#pragma once
// ZeroSCROLLS validation files (tau/zero_scrolls, <dataset>/validation.jsonl; fields id, pid,
// input, output, document_start_index, document_end_index, query_start_index, query_end_index,
// truncation_seperator).
//
// The indices are character offsets into `input`: the context is the document slice, the
// question the query slice (for the summarisation sets, which have no query, the instruction
// before the document), the [TASK] section the instruction, and the text after the query (e.g.
// "Answer:") goes to meta.answer_prefix. Lines sharing an id are one item with several reference
// outputs (SQuALITY, Qasper and NarrativeQA have several).
//
// The dataset, and with it the metric (ROUGE, F1, accuracy, exponential similarity, concordance
// index, as the ZeroSCROLLS paper lists them), is read from the path: a folder or file named
// after it (qasper/validation.jsonl, qasper.jsonl, zero_scrolls_qasper_validation.jsonl).

#include "core/task/task.h"

namespace studio::plugins {

class ZeroScrollsLoader : public task::TaskLoader {
 public:
  std::string name() const override { return "zeroscrolls"; }
  std::string summary() const override;

 protected:
  task::LoadResult read(const std::string& path, std::size_t limit) const override;
};

// The dataset named in the path, or empty.
std::string zeroScrollsDatasetFromPath(const std::string& path);

}  // namespace studio::plugins
