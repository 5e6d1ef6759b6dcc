#pragma once
// The Wilson score interval of a binomial proportion (Wilson 1927): the confidence interval for
// an accuracy measured on n items that stays inside [0, 1] and is sensible at 0 of n and n of n,
// as sweep summaries and accuracy figures report it (issue 26; lm-evaluation-harness reports
// standard errors instead).

#include <cstdint>

namespace studio::analysis {

struct ProportionInterval {
  double low = 0;
  double high = 1;
};

// `successes` of `trials`, at the two-sided level whose normal quantile is `z` (1.96: 95 %).
// Throws studio::Error (Argument) for trials < 1 or successes outside [0, trials].
ProportionInterval wilsonInterval(std::int64_t successes, std::int64_t trials,
                                  double z = 1.959963984540054);

}  // namespace studio::analysis
