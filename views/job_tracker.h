#pragma once
// Which asynchronous request is still wanted, per tag (Hotspot's JobTracker, RenderDoc's tagged
// AsyncInvoke): starting a job under a tag makes the tag's previous job stale, and a result is
// delivered only when its job is still the tag's current one. The document loader ("document")
// and the engine's head replays ("attention_window") both go through one of these instead of
// counting generations by hand.

#include <cstdint>
#include <map>
#include <string>

namespace studio::views {

class JobTracker {
 public:
  using Ticket = std::uint64_t;  // never 0

  // A new job under `tag`; the tag's previous one (if any) is stale from now on.
  Ticket start(const std::string& tag);
  // Whether `ticket` is still the tag's current job (its result is wanted).
  bool isCurrent(const std::string& tag, Ticket ticket) const;
  // Ends the tag's current job when it is `ticket` (a stale ticket changes nothing); true when it
  // was current.
  bool finish(const std::string& tag, Ticket ticket);
  // Forgets the tag's current job: its result, when it comes, is dropped.
  void drop(const std::string& tag);
  // The tag's current job, 0 when none.
  Ticket current(const std::string& tag) const;

 private:
  Ticket m_next = 1;
  std::map<std::string, Ticket> m_current;
};

}  // namespace studio::views
