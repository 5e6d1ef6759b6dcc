#include "core/task/task.h"

#include "core/common/error.h"

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
