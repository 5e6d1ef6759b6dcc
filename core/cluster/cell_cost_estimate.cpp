#include "core/cluster/cell_cost_estimate.h"

#include "core/common/error.h"

namespace studio::cluster {

CellCostEstimate::CellCostEstimate(const std::vector<MeasuredCell>& measured,
                                   std::optional<double> given_seconds)
    : m_given(given_seconds) {
  if (m_given && !(*m_given > 0)) throwArgument("--cell-seconds", "must be more than 0");
  std::map<std::pair<std::string, std::int64_t>, std::pair<double, int>> sums;
  for (const MeasuredCell& cell : measured) {
    auto& [total, count] = sums[{cell.label, cell.length}];
    total += cell.seconds;
    ++count;
  }
  for (const auto& [group, sum] : sums) m_means[group] = sum.first / sum.second;
}

double CellCostEstimate::seconds(const std::string& label, std::int64_t length) const {
  const auto found = m_means.find({label, length});
  if (found != m_means.end()) return found->second;
  if (m_given) return *m_given;
  throwArgument("--cell-seconds",
                "no run of '" + label + "' at length " + std::to_string(length) +
                    " was measured yet; give the seconds one cell takes (time a few cells with "
                    "`studio-cli sweep --shard` on one node)");
}

}  // namespace studio::cluster
