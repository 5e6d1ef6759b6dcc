#include "core/task/task.h"

#include "core/common/bounded_json.h"
#include "core/common/error.h"
#include "core/common/json_exact.h"
#include "core/common/utf8.h"

namespace studio::task {

nlohmann::json TaskItem::toJson() const {
  using nlohmann::json;
  json spans = json::array();
  for (const Span& span : targets) spans.push_back({{"start", span.start}, {"end", span.end}});
  return {{"task", task},
          {"id", id},
          {"context", context},
          {"question", question},
          {"task_description", task_description},
          {"answer", answers.empty() ? json(nullptr) : json(answers.front())},
          {"answers", answers},
          {"targets", spans},
          {"scorer", scorer},
          {"meta", meta}};
}

namespace {

// A task item holds its whole document: a code repository of 10,000 lines is a few MB.
constexpr std::size_t kMaxItemFileBytes = std::size_t{256} << 20;

std::string optionalString(const nlohmann::json& json, const std::string& file,
                           const std::string& field) {
  if (!json.contains(field) || json.at(field).is_null()) return "";
  if (!json.at(field).is_string()) throwError(ErrorKind::Format, file, field, "must be a string");
  return json.at(field).get<std::string>();
}

}  // namespace

TaskItem TaskItem::fromJson(const nlohmann::json& json, const std::string& file) {
  if (!json.is_object()) throwError(ErrorKind::Format, file, "", "a task item is a JSON object");
  TaskItem item;
  for (const char* field : {"context", "question"}) {
    if (!json.contains(field)) throwError(ErrorKind::Format, file, field, "is missing");
  }
  item.context = optionalString(json, file, "context");
  item.question = optionalString(json, file, "question");
  item.task = optionalString(json, file, "task");
  item.id = optionalString(json, file, "id");
  item.task_description = optionalString(json, file, "task_description");
  item.scorer = optionalString(json, file, "scorer");
  if (json.contains("answers") && !json.at("answers").is_null()) {
    const auto& answers = json.at("answers");
    if (!answers.is_array()) throwError(ErrorKind::Format, file, "answers", "must be a list");
    for (std::size_t i = 0; i < answers.size(); ++i) {
      if (!answers[i].is_string()) {
        throwError(ErrorKind::Format, file, "answers[" + std::to_string(i) + "]",
                   "must be a string");
      }
      item.answers.push_back(answers[i].get<std::string>());
    }
  } else if (const std::string answer = optionalString(json, file, "answer"); !answer.empty()) {
    item.answers.push_back(answer);
  }
  const auto length = static_cast<std::int64_t>(utf8::OffsetMap(item.context).chars());
  if (json.contains("targets") && !json.at("targets").is_null()) {
    const auto& targets = json.at("targets");
    if (!targets.is_array()) throwError(ErrorKind::Format, file, "targets", "must be a list");
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const std::string field = "targets[" + std::to_string(i) + "]";
      const auto& t = targets[i];
      if (!t.is_object() || !t.contains("start") || !t.contains("end") ||
          !holdsExactly<std::int64_t>(t.at("start")) || !holdsExactly<std::int64_t>(t.at("end"))) {
        throwError(ErrorKind::Format, file, field, "must be {\"start\": int, \"end\": int}");
      }
      const Span span{t.at("start").get<std::int64_t>(), t.at("end").get<std::int64_t>()};
      if (span.start < 0 || span.end <= span.start || span.end > length) {
        throwError(ErrorKind::Format, file, field,
                   "[" + std::to_string(span.start) + ", " + std::to_string(span.end) +
                       ") is not a non-empty range inside the " + std::to_string(length) +
                       "-character context");
      }
      item.targets.push_back(span);
    }
  }
  if (json.contains("meta") && !json.at("meta").is_null()) {
    if (!json.at("meta").is_object()) throwError(ErrorKind::Format, file, "meta", "must be an object");
    item.meta = json.at("meta");
  }
  return item;
}

TaskItem loadTaskItem(const std::string& path) {
  return TaskItem::fromJson(readBoundedJsonFile(path, path, kMaxItemFileBytes), path);
}

TaskRegistry& TaskRegistry::instance() {
  static TaskRegistry registry;
  return registry;
}

void TaskRegistry::addGenerator(std::unique_ptr<TaskGenerator> generator) {
  if (this->generator(generator->name())) {
    throwError(ErrorKind::Internal, "", generator->name(), "task generator registered twice");
  }
  m_generators.push_back(std::move(generator));
}

void TaskRegistry::addLoader(std::unique_ptr<TaskLoader> loader) {
  if (this->loader(loader->name())) {
    throwError(ErrorKind::Internal, "", loader->name(), "task loader registered twice");
  }
  m_loaders.push_back(std::move(loader));
}

const TaskGenerator* TaskRegistry::generator(const std::string& name) const {
  for (const auto& generator : m_generators) {
    if (generator->name() == name) return generator.get();
  }
  return nullptr;
}

const TaskLoader* TaskRegistry::loader(const std::string& name) const {
  for (const auto& loader : m_loaders) {
    if (loader->name() == name) return loader.get();
  }
  return nullptr;
}

std::vector<const TaskGenerator*> TaskRegistry::generators() const {
  std::vector<const TaskGenerator*> out;
  for (const auto& generator : m_generators) out.push_back(generator.get());
  return out;
}

std::vector<const TaskLoader*> TaskRegistry::loaders() const {
  std::vector<const TaskLoader*> out;
  for (const auto& loader : m_loaders) out.push_back(loader.get());
  return out;
}

}  // namespace studio::task
