#include "core/cluster/array_task_states.h"

#include <sstream>
#include <vector>

namespace studio::cluster {

namespace {

bool allDigits(const std::string& text) {
  if (text.empty()) return false;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "3-5,8%2" → 3, 4, 5, 8; empty when the list is not one.
std::vector<std::size_t> expandTaskList(std::string list) {
  list = list.substr(0, list.find('%'));
  std::vector<std::size_t> tasks;
  std::stringstream parts(list);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const std::size_t dash = part.find('-');
    const std::string first = part.substr(0, dash);
    const std::string last = dash == std::string::npos ? first : part.substr(dash + 1);
    if (!allDigits(first) || !allDigits(last)) return {};
    for (std::size_t task = std::stoul(first); task <= std::stoul(last); ++task)
      tasks.push_back(task);
  }
  return tasks;
}

}  // namespace

std::map<std::size_t, std::string> parseArrayTaskStates(const std::string& text,
                                                        const std::string& job_id) {
  std::map<std::size_t, std::string> states;
  std::stringstream lines(text);
  std::string line;
  const std::string prefix = job_id + "_";
  while (std::getline(lines, line)) {
    const std::size_t bar = line.find('|');
    if (bar == std::string::npos || line.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string task = line.substr(prefix.size(), bar - prefix.size());
    std::string state = line.substr(bar + 1);
    state = state.substr(0, state.find_first_of(" \t\r|"));
    if (state.empty()) continue;
    if (allDigits(task)) {
      states[std::stoul(task)] = state;
    } else if (task.size() > 2 && task.front() == '[' && task.back() == ']') {
      for (const std::size_t index : expandTaskList(task.substr(1, task.size() - 2))) {
        states[index] = state;
      }
    }
  }
  return states;
}

bool arrayTaskActive(const std::string& state) {
  return state == "PENDING" || state == "RUNNING" || state == "CONFIGURING" ||
         state == "COMPLETING" || state == "REQUEUED" || state == "RESIZING" ||
         state == "SUSPENDED" || state == "STAGE_OUT" || state == "SIGNALING";
}

}  // namespace studio::cluster
