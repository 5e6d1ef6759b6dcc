#pragma once
// Single-line logical bugs for the code_bug task. Each kind is a rewrite of one line that keeps it
// syntactically plausible but changes what it computes:
//   removed_scale       `* self.scale`, `/ math.sqrt(d)`, `/ temperature` dropped
//   flipped_comparison  `<` <-> `>`, `<=` <-> `>=`
//   off_by_one          range(n) -> range(n - 1), range(a, b) -> range(a, b + 1), `len(x) - 1`
//                       -> `len(x)` (and a `- 1` / `+ 1` already in a bound removed)
//   swapped_args        matmul(a, b) -> matmul(b, a), cross_entropy(x, y) -> (y, x), where(c, a, b)
//                       -> where(c, b, a), lerp, div, pow, kl_div, ...
//   sign_flip           `-=` <-> `+=`, `alpha=-lr` -> `alpha=lr`, `= -x` -> `= x`, `a - b` -> `a +
//   b` misplaced_norm      `x = x + self.f(self.norm(x))` -> `x = self.norm(x + self.f(x))` and
//                       `h = self.f(self.norm(x))` -> `h = self.norm(self.f(x))`
//   wrong_norm_dim      softmax / log_softmax / normalize / logsumexp / mean / var / std over
//                       dim -1 -> -2 (and -2 -> -1, 0 <-> 1)
// Candidates are found in code only: comments, string literals and Python docstrings are skipped.
// Comment syntax follows the file's extension ('#' for Python and shell-like files, '//' for the
// C family, Rust, Go, Java, JavaScript); files of other types are never modified.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace studio::plugins {

enum class BugKind {
  RemovedScale,
  FlippedComparison,
  OffByOne,
  SwappedArguments,
  SignFlip,
  MisplacedNorm,
  WrongNormDim,
};

const std::vector<BugKind>& allBugKinds();
const char* bugKindName(BugKind kind);
std::optional<BugKind> parseBugKind(std::string_view name);
// The symptom a person reporting the bug would describe (the task's "bug description").
const char* bugKindDescription(BugKind kind);

// The buggy version of `line` for `kind`, or nothing when the kind does not apply to it.
// `comment` is the line-comment marker of the file's language ("#" or "//").
std::optional<std::string> injectBug(BugKind kind, std::string_view line, std::string_view comment);

// "#", "//", or empty for a file type bugs are not injected into.
std::string commentMarkerFor(std::string_view path);

struct BugSite {
  std::size_t line_index = 0;  // 0-based within the file
  BugKind kind = BugKind::RemovedScale;
  std::string original;
  std::string injected;
};

// Every (line, kind) of a file where a bug can be injected, in line order then kind order.
std::vector<BugSite> findBugSites(std::string_view path, const std::vector<std::string>& lines);

}  // namespace studio::plugins
