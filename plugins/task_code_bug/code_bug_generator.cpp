#include "plugins/task_code_bug/code_bug_generator.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/common/error.h"
#include "core/common/utf8.h"
#include "core/document/repository_format.h"
#include "core/document/repository_loader.h"
#include "core/task/seeded_rng.h"
#include "plugins/task_code_bug/bug_injector.h"
#include "studio/build_info.h"

namespace studio::plugins {

namespace {

struct SourceFile {
  std::string path;
  std::vector<std::string> lines;
};

std::vector<SourceFile> readSource(const std::string& folder) {
  const document::Document doc = document::loadRepository(folder);
  std::vector<SourceFile> files;
  for (const document::RepositoryFile& file : doc.files()) {
    SourceFile source{file.path, {}};
    source.lines.reserve(file.line_count);
    for (std::size_t k = 0; k < file.line_count; ++k) {
      std::string_view text;
      if (!document::parseNumberedLine(doc.line(file.header_line + 1 + k), &text)) {
        throwError(ErrorKind::Internal, folder, file.path,
                   "line " + std::to_string(k + 1) + " is not in the repository format");
      }
      source.lines.emplace_back(text);
    }
    files.push_back(std::move(source));
  }
  return files;
}

struct Site {
  std::size_t file = 0;
  BugSite bug;
};

}  // namespace

std::string defaultCodeBugSource() {
  if (const char* dir = std::getenv("STUDIO_RESOURCES_DIR"); dir && *dir) {
    return std::string(dir) + "/corpus";
  }
  return std::string(STUDIO_RESOURCES_DIR) + "/corpus";
}

std::string CodeBugGenerator::summary() const {
  return "Code bug localization: one injected single-line bug in L numbered lines of a source "
         "tree; answer path:L<n> (qTTT App. 8)";
}

std::vector<ParamSpec> CodeBugGenerator::params() const {
  std::vector<nlohmann::json> kinds = {"random"};
  for (BugKind kind : allBugKinds()) kinds.emplace_back(bugKindName(kind));
  std::vector<ParamSpec> specs;
  specs.push_back({"lines",
                   ParamSpec::Type::Int,
                   200,
                   5.0,
                   10000.0,
                   {},
                   "lines of code shown around the bug (the haystack that grows)",
                   true});
  specs.push_back({"bug_kind", ParamSpec::Type::Choice, "random", std::nullopt, std::nullopt, kinds,
                   "the kind of bug; random: drawn from the seed among the kinds the source allows",
                   false});
  specs.push_back({"depth",
                   ParamSpec::Type::Float,
                   0.5,
                   0.0,
                   1.0,
                   {},
                   "where the bug sits in the window (0: first line, 1: last)",
                   false});
  specs.push_back({"source",
                   ParamSpec::Type::String,
                   "",
                   std::nullopt,
                   std::nullopt,
                   {},
                   "folder of source code; empty: the bundled corpus (resources/corpus)",
                   false});
  specs.push_back({"describe",
                   ParamSpec::Type::Bool,
                   true,
                   std::nullopt,
                   std::nullopt,
                   {},
                   "include a description of the bug's symptom in the question (as the paper does)",
                   false});
  return specs;
}

task::TaskItem CodeBugGenerator::generate(const nlohmann::json& params, std::uint64_t seed) const {
  const std::int64_t window = params.at("lines").get<std::int64_t>();
  const std::string kind_name = params.at("bug_kind").get<std::string>();
  const double depth = params.at("depth").get<double>();
  const std::string given_source = params.at("source").get<std::string>();
  const std::string source = given_source.empty() ? defaultCodeBugSource() : given_source;
  const bool describe = params.at("describe").get<bool>();

  const std::vector<SourceFile> files = readSource(source);
  std::vector<Site> sites;
  std::int64_t total_lines = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    for (BugSite& bug : findBugSites(files[f].path, files[f].lines))
      sites.push_back({f, std::move(bug)});
    total_lines += static_cast<std::int64_t>(files[f].lines.size());
  }
  if (window > total_lines) {
    throwError(ErrorKind::Argument, source, "code_bug.lines",
               std::to_string(window) + " lines asked for, but the source has only " +
                   std::to_string(total_lines) + "; point code_bug.source at a larger tree");
  }

  std::vector<BugKind> available;
  for (BugKind kind : allBugKinds()) {
    if (std::any_of(sites.begin(), sites.end(),
                    [&](const Site& s) { return s.bug.kind == kind; })) {
      available.push_back(kind);
    }
  }
  task::SeededRng rng = task::SeededRng::stream(seed, "code_bug/site");
  BugKind kind;
  if (kind_name == "random") {
    if (available.empty()) {
      throwError(ErrorKind::Task, source, "code_bug", "no line of this source admits any bug kind");
    }
    kind = rng.pick(available);
  } else {
    const auto parsed = parseBugKind(kind_name);
    if (!parsed) throwArgument("code_bug.bug_kind", "unknown bug kind '" + kind_name + "'");
    kind = *parsed;
    if (std::find(available.begin(), available.end(), kind) == available.end()) {
      throwError(ErrorKind::Task, source, "code_bug.bug_kind",
                 "no line of this source admits a " + kind_name + " bug");
    }
  }
  std::vector<const Site*> candidates;
  for (const Site& site : sites) {
    if (site.bug.kind == kind) candidates.push_back(&site);
  }
  const Site& site = *rng.pick(candidates);

  // Global position of the bug in the sequence of all lines, then the window around it.
  std::int64_t bug_global = 0;
  for (std::size_t f = 0; f < site.file; ++f)
    bug_global += static_cast<std::int64_t>(files[f].lines.size());
  bug_global += static_cast<std::int64_t>(site.bug.line_index);
  const std::int64_t before = std::llround(depth * static_cast<double>(window - 1));
  const std::int64_t first = std::clamp<std::int64_t>(bug_global - before, 0, total_lines - window);

  std::string context;
  std::size_t target_start = 0, target_end = 0;
  std::int64_t global = 0;
  std::vector<std::string> shown_files;
  nlohmann::json window_first, window_last;
  for (std::size_t f = 0; f < files.size() && global < first + window; ++f) {
    const auto count = static_cast<std::int64_t>(files[f].lines.size());
    if (global + count <= first) {
      global += count;
      continue;
    }
    const std::int64_t from = std::max<std::int64_t>(0, first - global);
    const std::int64_t to = std::min<std::int64_t>(count, first + window - global);
    context += document::repositoryHeader(files[f].path) + "\n";
    shown_files.push_back(files[f].path);
    for (std::int64_t k = from; k < to; ++k) {
      const bool is_bug = f == site.file && static_cast<std::size_t>(k) == site.bug.line_index;
      if (is_bug) target_start = context.size();
      context += "L" + std::to_string(k + 1) + ": ";
      context += is_bug ? site.bug.injected : files[f].lines[static_cast<std::size_t>(k)];
      if (is_bug) target_end = context.size();
      context += "\n";
      const nlohmann::json position = {{"path", files[f].path}, {"line", k + 1}};
      if (window_first.is_null()) window_first = position;
      window_last = position;
    }
    global += count;
  }

  const std::string& path = files[site.file].path;
  const std::int64_t line_number = static_cast<std::int64_t>(site.bug.line_index) + 1;
  task::TaskItem item;
  item.task = name();
  item.id = "code_bug-s" + std::to_string(seed) + "-L" + std::to_string(window) + "-" + kind_name +
            "-d" + std::to_string(depth);
  item.task_description =
      "A single line of this code contains a logical bug. Find the exact file and line.";
  item.question =
      (describe ? "Bug description: " + std::string(bugKindDescription(kind)) + "\n" : "") +
      "Given the code context above, identify the exact location of the bug. "
      "Answer with the file path and line number as path:L<line>.";
  item.answers = {path + ":L" + std::to_string(line_number)};
  item.scorer = "code_bug";
  const utf8::OffsetMap offsets(context);
  item.targets.push_back({static_cast<std::int64_t>(offsets.charOf(target_start)),
                          static_cast<std::int64_t>(offsets.charOf(target_end))});
  item.context = std::move(context);
  item.meta = {{"path", path},
               {"line", line_number},
               {"bug_kind", bugKindName(kind)},
               {"original", site.bug.original},
               {"injected", site.bug.injected},
               {"window_first", window_first},
               {"window_last", window_last},
               {"files", shown_files},
               {"depth", window > 1 ? static_cast<double>(bug_global - first) /
                                          static_cast<double>(window - 1)
                                    : 0.0},
               {"source", source},
               {"candidate_sites", candidates.size()}};
  return item;
}

}  // namespace studio::plugins
