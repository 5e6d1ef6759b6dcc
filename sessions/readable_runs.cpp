#include "sessions/readable_runs.h"

namespace studio::sessions {

std::string unreadableRunsReport(const std::vector<UnreadableRun>& unreadable) {
  std::string report;
  for (const UnreadableRun& run : unreadable) {
    report += "cannot read run " + std::to_string(run.id) + ", left out: " + run.error + "\n";
  }
  return report;
}

}  // namespace studio::sessions
