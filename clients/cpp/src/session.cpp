#include "session.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <sstream>

namespace {

constexpr char kProtocolVersion[] = "1.0";

const char* StatusCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "UNRECOGNIZED";
  }
}

// "END_REASON_FORFEIT_TIMEOUT" -> "forfeit_timeout"
std::string ReasonName(arena::v1::EndReason reason) {
  std::string name = arena::v1::EndReason_Name(reason);
  const std::string prefix = "END_REASON_";
  if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

MatchResult ToResult(const arena::v1::MatchEnded& ended) {
  const arena::v1::MatchInfo& match = ended.match();
  return MatchResult{match.match_id(),
                     match.game_id(),
                     ended.seat(),
                     {match.result().returns().begin(), match.result().returns().end()},
                     ReasonName(match.result().reason()),
                     match.result().summary()};
}

}  // namespace

Session::Session(const Options& options, RandomPlayer& player, ResultCallback on_result)
    : options_(options), player_(player), on_result_(std::move(on_result)) {}

void Session::Cancel() {
  cancelled_ = true;
  context_.TryCancel();
}

std::vector<MatchResult> Session::Run() {
  auto channel = grpc::CreateChannel(options_.server, grpc::InsecureChannelCredentials());
  WaitUntilConnected(*channel);
  auto stub = arena::v1::AgentService::NewStub(channel);
  context_.AddMetadata("authorization", "Bearer " + options_.key);
  auto stream = stub->Connect(&context_);
  stream->Write(Hello());   // when the server refuses the session this fails; Finish says why

  arena::v1::ConnectResponse first;
  if (!stream->Read(&first)) {
    const grpc::Status status = stream->Finish();
    if (cancelled_) return results_;
    throw SessionError(options_.server + " refused the session (" + StatusCodeName(status.error_code()) +
                       "): " + status.error_message());
  }
  std::chrono::milliseconds heartbeat_interval;
  try {
    if (!first.has_welcome()) throw SessionError(options_.server + " did not answer Hello with Welcome");
    heartbeat_interval = AcceptWelcome(first.welcome());
  } catch (const SessionError&) {
    context_.TryCancel();
    stream->Finish();
    throw;
  }

  StreamWriter writer(*stream, heartbeat_interval);
  arena::v1::ConnectResponse message;
  while (stream->Read(&message)) Dispatch(message, writer);
  writer.Close();
  writer.Join();
  const grpc::Status status = stream->Finish();

  if (cancelled_) return results_;
  if (!status.ok()) {
    throw SessionError(options_.server + " ended the session (" + StatusCodeName(status.error_code()) +
                       "): " + status.error_message());
  }
  if (options_.matches && !Done()) {
    throw SessionError(options_.server + " closed the session after " + std::to_string(results_.size()) + " of " +
                       std::to_string(*options_.matches) + " matches");
  }
  return results_;
}

void Session::WaitUntilConnected(grpc::Channel& channel) {
  using Clock = std::chrono::system_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(options_.connect_timeout));
  // Short waits, so that Cancel() is not held up by an unreachable server.
  while (!cancelled_) {
    const auto step = std::min(deadline, Clock::now() + std::chrono::milliseconds(200));
    if (channel.WaitForConnected(step)) return;
    if (Clock::now() >= deadline) {
      std::ostringstream message;
      message << "cannot reach " << options_.server << " within " << options_.connect_timeout << " s (UNAVAILABLE)";
      throw SessionError(message.str());
    }
  }
}

arena::v1::ConnectRequest Session::Hello() const {
  arena::v1::ConnectRequest request;
  arena::v1::Hello* hello = request.mutable_hello();
  hello->set_protocol_version(kProtocolVersion);
  hello->mutable_agent()->set_name(options_.name);
  hello->mutable_agent()->set_version("arena-bot 1.0");
  hello->mutable_agent()->set_description("uniformly random legal actions (C++)");
  for (const std::string& game : options_.games) {
    arena::v1::GameOffer* offer = hello->add_games();
    offer->set_game_id(game);
    offer->set_preset(options_.preset);
  }
  hello->set_max_concurrent_matches(options_.concurrency);
  hello->set_join_ladder(options_.join_ladder);
  hello->add_capabilities("no_match_events");   // moves are read from each request's observation
  return request;
}

std::chrono::milliseconds Session::AcceptWelcome(const arena::v1::Welcome& welcome) {
  std::string refused;
  for (const arena::v1::RejectedGame& game : welcome.rejected_games()) {
    refused += (refused.empty() ? "" : "; ") + game.game_id() + ": " + game.reason();
  }
  if (welcome.accepted_games().empty()) {
    throw SessionError(options_.server + " accepted none of the offered games (" + refused + ")");
  }
  if (!refused.empty()) std::cerr << "arena-bot: the server refused some games (" << refused << ")\n";
  std::string accepted;
  for (const std::string& game : welcome.accepted_games()) accepted += (accepted.empty() ? "" : ", ") + game;
  Log("session " + welcome.session_id() + " on " + welcome.server_id() + " as " + options_.name + ": games " +
      accepted);
  const auto& interval = welcome.heartbeat_interval();
  return std::chrono::milliseconds(interval.seconds() * 1000 + interval.nanos() / 1000000);
}

void Session::Dispatch(const arena::v1::ConnectResponse& message, StreamWriter& writer) {
  switch (message.message_case()) {
    case arena::v1::ConnectResponse::kDecisionRequest:
      Answer(message.decision_request(), writer);
      break;
    case arena::v1::ConnectResponse::kMatchStarted: {
      const auto& started = message.match_started();
      Log("match " + started.match().match_id() + " started: " + started.match().game_id() + ", seat " +
          std::to_string(started.seat()));
      break;
    }
    case arena::v1::ConnectResponse::kMatchEnded: {
      if (Done()) break;   // a match started after the last one asked for; not counted
      results_.push_back(ToResult(message.match_ended()));
      on_result_(results_.back());
      if (Done()) {
        Log("played " + std::to_string(results_.size()) + " matches; closing the session");
        writer.Close();   // the server ends the stream once it sees the half-close
      }
      break;
    }
    case arena::v1::ConnectResponse::kError: {
      const auto& error = message.error();
      std::cerr << "arena-bot: server error " << arena::v1::ErrorCode_Name(error.code()) << " for match "
                << error.match_id() << " decision " << error.decision_id() << ": " << error.message() << "\n";
      break;
    }
    case arena::v1::ConnectResponse::kEvent:      // not sent: Hello declares "no_match_events"
    case arena::v1::ConnectResponse::kHeartbeat:
    case arena::v1::ConnectResponse::kProbe:   // answers are optional and never affect the game
      break;
    default:
      Log("ignoring an unexpected message (field " + std::to_string(message.message_case()) + ")");
  }
}

void Session::Answer(const arena::v1::DecisionRequest& request, StreamWriter& writer) {
  if (Done()) return;   // the session is closing; the server's failure policy covers this seat
  std::optional<arena::v1::Decision> decision = player_.Decide(request);
  if (!decision) {
    std::cerr << "arena-bot: match " << request.match_id() << " decision " << request.decision_id()
              << " offers no legal action (only free text: " << request.text_action().description()
              << "); nothing sent\n";
    return;
  }
  arena::v1::ConnectRequest message;
  *message.mutable_decision() = std::move(*decision);
  writer.Send(std::move(message));
}

bool Session::Done() const {
  return options_.matches && static_cast<int>(results_.size()) >= *options_.matches;
}

void Session::Log(const std::string& line) const {
  if (options_.verbose) std::cerr << "arena-bot: " << line << "\n";
}
