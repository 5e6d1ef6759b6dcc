#include "views/job_tracker.h"

namespace studio::views {

JobTracker::Ticket JobTracker::start(const std::string& tag) {
  const Ticket ticket = m_next++;
  m_current[tag] = ticket;
  return ticket;
}

bool JobTracker::isCurrent(const std::string& tag, Ticket ticket) const {
  return ticket != 0 && current(tag) == ticket;
}

bool JobTracker::finish(const std::string& tag, Ticket ticket) {
  if (!isCurrent(tag, ticket)) return false;
  m_current.erase(tag);
  return true;
}

void JobTracker::drop(const std::string& tag) {
  m_current.erase(tag);
}

JobTracker::Ticket JobTracker::current(const std::string& tag) const {
  const auto it = m_current.find(tag);
  return it == m_current.end() ? 0 : it->second;
}

}  // namespace studio::views
