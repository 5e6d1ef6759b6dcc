#pragma once
// Self-consistency's vote: answers compared after SQuAD normalisation; the most frequent wins, a
// tie goes to the answer with the highest sequence log-probability among its chains.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace studio::plugins {

struct Candidate {
  std::string answer;
  double logprob = 0;
};

struct VoteOutcome {
  std::size_t winner = 0;  // index of the winning answer's best candidate
  int votes = 0;
  nlohmann::json tally;    // [{answer, votes, best_logprob}], most votes first
};

// Throws studio::Error (Internal) for no candidates.
VoteOutcome majorityVote(const std::vector<Candidate>& candidates);

}  // namespace studio::plugins
