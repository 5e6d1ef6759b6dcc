#include "core/cluster/slurm_time_limit.h"

#include <cstdio>
#include <vector>

#include "core/common/error.h"

namespace studio::cluster {

namespace {

// "12:30:05" → {12, 30, 5}; false when a part is empty or not all digits.
bool splitTimeNumbers(const std::string& text, std::vector<std::int64_t>& numbers) {
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = text.find(':', start);
    const std::string part =
        text.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (part.empty() || part.size() > 9) return false;
    for (const char c : part) {
      if (c < '0' || c > '9') return false;
    }
    numbers.push_back(std::stoll(part));
    if (colon == std::string::npos) return true;
    start = colon + 1;
  }
}

}  // namespace

std::int64_t parseSlurmTimeLimit(const std::string& text, const std::string& field) {
  const std::string expected =
      "'" + text + "' is not a Slurm time limit (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)";
  std::int64_t days = 0;
  std::string clock = text;
  const std::size_t dash = text.find('-');
  std::vector<std::int64_t> numbers;
  if (dash != std::string::npos) {
    std::vector<std::int64_t> day_part;
    if (!splitTimeNumbers(text.substr(0, dash), day_part) || day_part.size() != 1) {
      throwArgument(field, expected);
    }
    days = day_part[0];
    clock = text.substr(dash + 1);
  }
  if (!splitTimeNumbers(clock, numbers) || numbers.size() > 3) throwArgument(field, expected);
  std::int64_t seconds = 0;
  if (dash != std::string::npos) {
    // D-HH, D-HH:MM, D-HH:MM:SS
    const std::int64_t scale[] = {3600, 60, 1};
    for (std::size_t i = 0; i < numbers.size(); ++i) seconds += numbers[i] * scale[i];
    seconds += days * 86400;
  } else if (numbers.size() == 1) {
    seconds = numbers[0] * 60;  // MM
  } else if (numbers.size() == 2) {
    seconds = numbers[0] * 60 + numbers[1];  // MM:SS
  } else {
    seconds = numbers[0] * 3600 + numbers[1] * 60 + numbers[2];
  }
  if (seconds <= 0) throwArgument(field, "'" + text + "' is no time at all");
  return seconds;
}

std::string formatSlurmTimeLimit(std::int64_t seconds) {
  const std::int64_t days = seconds / 86400;
  const std::int64_t rest = seconds % 86400;
  char clock[32];
  std::snprintf(clock, sizeof(clock), "%02lld:%02lld:%02lld", static_cast<long long>(rest / 3600),
                static_cast<long long>(rest / 60 % 60), static_cast<long long>(rest % 60));
  return days > 0 ? std::to_string(days) + "-" + clock : std::string(clock);
}

}  // namespace studio::cluster
