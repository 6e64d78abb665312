#include "random_player.h"

std::optional<arena::v1::Decision> RandomPlayer::Decide(const arena::v1::DecisionRequest& request) {
  if (request.legal_actions().empty()) return std::nullopt;
  std::uniform_int_distribution<int> pick(0, request.legal_actions_size() - 1);
  arena::v1::Decision decision;
  decision.set_match_id(request.match_id());
  decision.set_decision_id(request.decision_id());
  decision.set_action_id(request.legal_actions(pick(rng_)).id());
  return decision;
}
