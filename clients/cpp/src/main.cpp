// arena-bot: a random Arena agent in C++. Prints one line per ended match and a summary; exits 0
// when done, 1 when the session fails (unreadable TLS files, unreachable server, refused key,
// dropped stream), 2 on a bad command line, 130 when interrupted.
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "options.h"
#include "random_player.h"
#include "session.h"

namespace {

void PrintResult(const MatchResult& result) {
  std::ostringstream line;
  line << result.match_id << "  " << result.game_id << "  seat " << result.seat << "  returns [";
  for (size_t i = 0; i < result.returns.size(); ++i) line << (i ? ", " : "") << result.returns[i];
  line << "]  " << result.reason;
  if (!result.summary.empty()) line << "  " << result.summary;
  std::cout << line.str() << std::endl;
}

void PrintSummary(const std::vector<MatchResult>& results) {
  int scored = 0, won = 0, drawn = 0, lost = 0;
  double total = 0;
  for (const MatchResult& result : results) {
    if (result.seat < 0 || result.seat >= static_cast<int>(result.returns.size())) continue;
    const double mine = result.returns[result.seat];
    double best = mine, worst = mine;
    for (double r : result.returns) best = std::max(best, r), worst = std::min(worst, r);
    ++scored;
    total += mine;
    (best == worst ? drawn : mine == best ? won : lost) += 1;
  }
  std::cout << results.size() << " matches finished";
  if (scored > 0) {
    std::cout << ", " << scored << " scored: mean return " << std::fixed << std::setprecision(3) << total / scored
              << ", " << won << " won, " << drawn << " drawn, " << lost << " lost";
  }
  std::cout << std::endl;
}

// Ctrl-C or SIGTERM cancels the stream instead of killing the process, so the summary is printed.
// The signals are blocked in every thread (gRPC's included, hence before any gRPC call) and taken
// by this one thread.
void CancelOnSignals(Session& session, std::atomic<bool>& interrupted) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([signals, &session, &interrupted] {
    int signal = 0;
    if (sigwait(&signals, &signal) == 0) {
      interrupted = true;
      session.Cancel();
    }
  }).detach();
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = ParseOptions(argc, argv, std::getenv("ARENA_API_KEY"));
  } catch (const UsageError& e) {
    std::cerr << "arena-bot: " << e.what() << "\n\n" << kUsage;
    return 2;
  }
  if (options.help) {
    std::cout << kUsage;
    return 0;
  }
  const std::uint64_t seed = options.seed ? *options.seed : std::random_device{}();
  if (options.verbose) std::cerr << "arena-bot: seed " << seed << "\n";

  RandomPlayer player(seed);
  Session session(options, player, PrintResult);
  std::atomic<bool> interrupted{false};
  CancelOnSignals(session, interrupted);
  try {
    PrintSummary(session.Run());
  } catch (const SessionError& e) {
    std::cerr << "arena-bot: " << e.what() << "\n";
    return 1;
  }
  return interrupted ? 130 : 0;
}
