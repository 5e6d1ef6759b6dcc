#include "sessions/event_json.h"

#include "sessions/event_codec.h"

namespace studio::sessions {

nlohmann::json eventToJson(const engine::Event& event) {
  return std::visit([](const auto& e) { return eventJson(e); }, event);
}

}  // namespace studio::sessions
