// The bot's brain: a uniformly random legal action. Replace this class to play better.
#pragma once

#include <cstdint>
#include <optional>
#include <random>

#include "arena/v1/agent_service.pb.h"

class RandomPlayer {
 public:
  explicit RandomPlayer(std::uint64_t seed) : rng_(seed) {}

  // The answer to `request`, or nothing when no legal action is offered (a request that accepts
  // only free text): the server's failure policy then applies.
  std::optional<arena::v1::Decision> Decide(const arena::v1::DecisionRequest& request);

 private:
  std::mt19937_64 rng_;
};
