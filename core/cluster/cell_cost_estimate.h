#pragma once
// What one sweep cell is expected to cost in seconds, for sizing shards: the mean wall time of the
// runs of the same method label and length already measured (shard sessions of an earlier
// submission), else the seconds the researcher gave (--cell-seconds).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace studio::cluster {

struct MeasuredCell {
  std::string label;  // the sweep method's label
  std::int64_t length = 0;
  double seconds = 0;  // the run's wall time
};

class CellCostEstimate {
 public:
  CellCostEstimate(const std::vector<MeasuredCell>& measured, std::optional<double> given_seconds);

  // Seconds for a cell of `label` at `length`. Throws studio::Error (Argument) naming
  // --cell-seconds when it was not measured and none was given.
  double seconds(const std::string& label, std::int64_t length) const;

 private:
  std::map<std::pair<std::string, std::int64_t>, double> m_means;
  std::optional<double> m_given;
};

}  // namespace studio::cluster
