#pragma once
// code_bug (qTTT paper §2.1, App. 8): one single-line logical bug injected into a source tree
// (bug_injector.h), and L numbered lines around it in the repository text format that documents
// use (core/document/repository_format.h: "=== path ===" headers, "L<n>: " lines). The answer is
// `path:L<n>`; the target span is the whole buggy line as shown, "L<n>: " included.
//
// The files of the source folder, in the byte order of their paths, form one sequence of lines;
// the window of `lines` lines spills over file boundaries in that order (each file it enters
// gets its header). The bug is chosen from the seed among every candidate line of the tree, so it
// does not depend on `lines` or `depth`: the same seed keeps the same bug while the window grows.
// `depth` places the bug at that fraction of the window; near the start or end of the tree the
// window is shifted to stay inside it, and meta.depth says where the bug really is.
//
// The default source is the corpus that ships in resources/corpus (a small original PyTorch-style
// library); `source` points the task at any other folder (read as a repository: .gitignore,
// hidden and binary files are skipped).

#include "core/task/task.h"

namespace studio::plugins {

class CodeBugGenerator : public task::TaskGenerator {
 public:
  std::string name() const override { return "code_bug"; }
  std::string summary() const override;
  std::vector<ParamSpec> params() const override;
  task::TaskItem generate(const nlohmann::json& params, std::uint64_t seed) const override;
};

// The folder of the bundled corpus: $STUDIO_RESOURCES_DIR/corpus when that variable is set,
// otherwise the source tree's resources/corpus.
std::string defaultCodeBugSource();

}  // namespace studio::plugins
