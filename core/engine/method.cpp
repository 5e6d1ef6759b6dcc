#include "core/engine/method.h"

#include "core/common/error.h"

namespace studio::engine {

MethodRegistry& MethodRegistry::instance() {
  static MethodRegistry registry;
  return registry;
}

void MethodRegistry::add(std::unique_ptr<Method> method) {
  if (find(method->name())) {
    throwError(ErrorKind::Internal, "", method->name(), "method registered twice");
  }
  m_methods.push_back(std::move(method));
}

const Method* MethodRegistry::find(const std::string& name) const {
  for (const auto& method : m_methods) {
    if (method->name() == name) return method.get();
  }
  return nullptr;
}

const Method& MethodRegistry::get(const std::string& name) const {
  if (const Method* method = find(name)) return *method;
  std::string known;
  for (const auto& method : m_methods) known += (known.empty() ? "" : ", ") + method->name();
  throwArgument("--method", "unknown method '" + name + "' (known: " + known + ")");
}

std::vector<const Method*> MethodRegistry::all() const {
  std::vector<const Method*> out;
  for (const auto& method : m_methods) out.push_back(method.get());
  return out;
}

}  // namespace studio::engine
