// One agent session: the AgentService.Connect stream, from handshake to the last match.
//
// This thread reads; a StreamWriter thread writes. Decisions are made on the reading thread,
// which suits a player that answers at once; a slow player would decide on worker threads and
// hand its answers to the writer, which accepts them from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "arena/v1/agent_service.grpc.pb.h"
#include "options.h"
#include "random_player.h"
#include "stream_writer.h"

// How one of the bot's matches ended.
struct MatchResult {
  std::string match_id;
  std::string game_id;
  int seat = 0;
  std::vector<double> returns;   // per seat; empty when the match is void or aborted
  std::string reason;            // e.g. "normal", "forfeit_timeout"
  std::string summary;
};

// The session could not start or was ended by the server: unreadable TLS files, unreachable
// server, refused key, unsupported protocol version, dropped stream. The message says which, with
// the gRPC status when there is one.
class SessionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Session {
 public:
  using ResultCallback = std::function<void(const MatchResult&)>;

  // `on_result` is called with each match as it ends.
  Session(const Options& options, RandomPlayer& player, ResultCallback on_result);

  // Plays until options.matches matches have ended, the server closes the stream, or Cancel() is
  // called; returns the ended matches. Throws SessionError.
  std::vector<MatchResult> Run();

  // Ends the session from another thread (e.g. on Ctrl-C); Run() returns what it has.
  void Cancel();

 private:
  std::shared_ptr<grpc::ChannelCredentials> Credentials() const;
  std::string PlaintextHint() const;
  void WaitUntilConnected(grpc::Channel& channel);
  arena::v1::ConnectRequest Hello() const;
  std::chrono::milliseconds AcceptWelcome(const arena::v1::Welcome& welcome);
  void Dispatch(const arena::v1::ConnectResponse& message, StreamWriter& writer);
  void Answer(const arena::v1::DecisionRequest& request, StreamWriter& writer);
  void ResendLater(const arena::v1::Error& refusal, StreamWriter& writer);
  void SetLatestDecision(const std::string& match_id, std::optional<arena::v1::Decision> decision);
  std::optional<arena::v1::Decision> LatestDecision(const std::string& match_id);
  bool Done() const;
  void Log(const std::string& line) const;

  const Options& options_;
  RandomPlayer& player_;
  ResultCallback on_result_;
  grpc::ClientContext context_;
  std::atomic<bool> cancelled_{false};
  std::vector<MatchResult> results_;
  // The Decision answering each running match's latest request: what the server asks for again
  // when it drops one over the rate limit. Set on the reading thread, read on the writer's too
  // (SendLater's still_wanted, under the writer's lock): the lock is held only around the map,
  // never while calling the StreamWriter.
  std::mutex latest_decisions_mutex_;
  std::map<std::string, arena::v1::Decision> latest_decisions_;
};
