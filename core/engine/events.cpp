#include "core/engine/events.h"

namespace studio::engine {

const char* eventKindName(const Event& event) {
  return std::visit([](const auto& e) { return std::decay_t<decltype(e)>::kKind; }, event);
}

}  // namespace studio::engine
