#pragma once
// The events of one run, kept by kind in arrival order. Any described kind goes in
// (core/engine/event_fields.h): the kinds of engine::Event through add(const Event&), any other
// through add<E>; nothing is dropped, and a view asks for the kinds it draws with all<E>().

#include <map>
#include <memory>
#include <typeindex>
#include <vector>

#include "core/engine/events.h"

namespace studio::analysis {

class EventLog {
 public:
  EventLog() = default;
  EventLog(const EventLog& other) { *this = other; }
  EventLog& operator=(const EventLog& other) {
    if (this == &other) return *this;
    m_kinds.clear();
    for (const auto& [type, kind] : other.m_kinds) m_kinds.emplace(type, kind->clone());
    return *this;
  }
  EventLog(EventLog&&) = default;
  EventLog& operator=(EventLog&&) = default;

  void add(const engine::Event& event) {
    std::visit([this](const auto& e) { add(e); }, event);
  }
  template <typename E>
  void add(E event) {
    kind<E>().events.push_back(std::move(event));
  }

  // Every event of kind E, in arrival order (empty when there is none).
  template <typename E>
  const std::vector<E>& all() const {
    static const std::vector<E> none;
    const auto it = m_kinds.find(std::type_index(typeid(E)));
    return it == m_kinds.end() ? none : static_cast<const Kind<E>&>(*it->second).events;
  }
  // The latest event of kind E, or null.
  template <typename E>
  const E* latest() const {
    const std::vector<E>& events = all<E>();
    return events.empty() ? nullptr : &events.back();
  }

 private:
  struct AnyKind {
    virtual ~AnyKind() = default;
    virtual std::unique_ptr<AnyKind> clone() const = 0;
  };
  template <typename E>
  struct Kind : AnyKind {
    std::vector<E> events;
    std::unique_ptr<AnyKind> clone() const override { return std::make_unique<Kind>(*this); }
  };
  template <typename E>
  Kind<E>& kind() {
    auto& slot = m_kinds[std::type_index(typeid(E))];
    if (!slot) slot = std::make_unique<Kind<E>>();
    return static_cast<Kind<E>&>(*slot);
  }

  std::map<std::type_index, std::unique_ptr<AnyKind>> m_kinds;
};

}  // namespace studio::analysis
