#pragma once
// Tasks: generators of controlled items (tx_log, code_bug, niah) and loaders of benchmark files
// (LongBench, RULER, ZeroSCROLLS). Each lives in plugins/task_<name>/ and registers here.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/common/param_spec.h"
#include "core/common/span.h"

namespace studio::task {

// One item: what the model reads, what it is asked, what counts as right, and where the evidence
// is. `targets` are character (Unicode code point) offsets into `context`.
struct TaskItem {
  std::string task;  // the generator's or loader's name
  std::string id;    // stable within its source (seed-derived or the file's _id)
  std::string context;
  std::string question;
  std::string task_description;  // the prompt's [TASK] section
  std::vector<std::string> answers;
  std::vector<Span> targets;
  std::string scorer;  // a name from core/task/scorers.h
  nlohmann::json meta = nlohmann::json::object();

  // {"task","context","question","answer","targets":[{"start","end"}],"meta"} as printed by
  // `studio-cli task generate`; "answer" is the first answer, "answers" all of them.
  nlohmann::json toJson() const;
  // The inverse of toJson(), so a printed item can be saved and opened again (studio --item,
  // studio-cli run --item). "context" and "question" are required; "answers" (or "answer"),
  // "targets", "task_description", "scorer", "task", "id" and "meta" are optional. Throws
  // studio::Error (Format) naming `file` and the field, and for targets outside the context.
  static TaskItem fromJson(const nlohmann::json& json, const std::string& file);
};

// Reads a task item file (one JSON object as `studio-cli task generate --json` prints it).
// Throws studio::Error: Io naming the path when it cannot be read, Format for bad JSON or fields.
TaskItem loadTaskItem(const std::string& path);

class TaskGenerator {
 public:
  virtual ~TaskGenerator() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual std::vector<ParamSpec> params() const = 0;
  // `params` are already resolved against params(). The same (params, seed) gives the same item.
  virtual TaskItem generate(const nlohmann::json& params, std::uint64_t seed) const = 0;
};

// A problem with one line of a benchmark file; the line is skipped, the rest still loads.
struct LoadIssue {
  std::int64_t line = 0;  // 1-based
  std::string message;
};

struct LoadResult {
  std::vector<TaskItem> items;
  std::vector<LoadIssue> issues;
};

class TaskLoader {
 public:
  virtual ~TaskLoader() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // Throws studio::Error (Io) when the file cannot be read; malformed lines become LoadIssues.
  // `limit` > 0 stops after that many items (the rest of a large file is not parsed).
  LoadResult load(const std::string& path, std::size_t limit = 0) const {
    return read(path, limit);
  }

 protected:
  virtual LoadResult read(const std::string& path, std::size_t limit) const = 0;
};

class TaskRegistry {
 public:
  static TaskRegistry& instance();

  void addGenerator(std::unique_ptr<TaskGenerator> generator);
  void addLoader(std::unique_ptr<TaskLoader> loader);

  // nullptr when there is none of that name.
  const TaskGenerator* generator(const std::string& name) const;
  const TaskLoader* loader(const std::string& name) const;
  std::vector<const TaskGenerator*> generators() const;
  std::vector<const TaskLoader*> loaders() const;

 private:
  std::vector<std::unique_ptr<TaskGenerator>> m_generators;
  std::vector<std::unique_ptr<TaskLoader>> m_loaders;
};

}  // namespace studio::task
