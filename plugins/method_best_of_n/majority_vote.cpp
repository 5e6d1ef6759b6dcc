#include "plugins/method_best_of_n/majority_vote.h"

#include <algorithm>
#include <map>

#include "core/common/error.h"
#include "core/task/answer_extraction.h"

namespace studio::plugins {

VoteOutcome majorityVote(const std::vector<Candidate>& candidates) {
  if (candidates.empty()) throwError(ErrorKind::Internal, "", "best_of_n", "nothing to vote on");
  struct Group {
    int votes = 0;
    std::size_t best = 0;  // candidate with the highest log-probability
  };
  std::map<std::string, Group> groups;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Group& group = groups[task::squadNormalize(candidates[i].answer)];
    if (group.votes == 0 || candidates[i].logprob > candidates[group.best].logprob) group.best = i;
    ++group.votes;
  }
  std::vector<const Group*> order;
  for (const auto& [key, group] : groups) order.push_back(&group);
  std::stable_sort(order.begin(), order.end(), [&](const Group* a, const Group* b) {
    if (a->votes != b->votes) return a->votes > b->votes;
    return candidates[a->best].logprob > candidates[b->best].logprob;
  });
  VoteOutcome outcome;
  outcome.winner = order.front()->best;
  outcome.votes = order.front()->votes;
  outcome.tally = nlohmann::json::array();
  for (const Group* group : order) {
    outcome.tally.push_back({{"answer", candidates[group->best].answer},
                             {"votes", group->votes},
                             {"best_logprob", candidates[group->best].logprob}});
  }
  return outcome;
}

}  // namespace studio::plugins
