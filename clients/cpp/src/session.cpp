#include "session.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>

namespace {

constexpr char kProtocolVersion[] = "1.0";

// Longest wait honoured for a rate-limited decision: a longer one would outlast any decision's
// deadline anyway.
constexpr double kMaxResendDelaySeconds = 10;

constexpr char kPlaintextHint[] = "this bot speaks plaintext: if the server uses TLS, add --tls or --root-certificates";

// The contents of the PEM file given with `flag`. A file that cannot be read or holds no PEM
// block fails the session here, rather than as an obscure TLS handshake failure later.
std::string ReadPem(const std::string& flag, const std::string& path) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  std::string pem;
  char chunk[4096];
  size_t size = 0;
  while (file && (size = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) pem.append(chunk, size);
  if (!file || std::ferror(file.get())) {
    throw SessionError(flag + ": cannot read " + path + " (" + std::strerror(errno) + ")");
  }
  if (pem.find("-----BEGIN ") == std::string::npos) throw SessionError(flag + ": " + path + " is not a PEM file");
  return pem;
}

// The wait a RATE_LIMITED error quotes ("... retry after 0.963 s ..."), at most
// kMaxResendDelaySeconds; 1 s when it quotes none.
std::chrono::milliseconds RetryAfter(const std::string& message) {
  const std::string marker = "retry after ";
  const size_t at = message.find(marker);
  double seconds = 1.0;
  if (at != std::string::npos) {
    const char* quoted = message.c_str() + at + marker.size();
    char* end = nullptr;
    const double value = std::strtod(quoted, &end);
    if (end != quoted && value >= 0) seconds = std::min(value, kMaxResendDelaySeconds);
  }
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
}

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
  auto channel = grpc::CreateChannel(options_.server, Credentials());
  WaitUntilConnected(*channel);
  auto stub = arena::v1::AgentService::NewStub(channel);
  context_.AddMetadata("authorization", "Bearer " + options_.key);
  auto stream = stub->Connect(&context_);
  stream->Write(Hello());   // when the server refuses the session this fails; Finish says why

  arena::v1::ConnectResponse first;
  if (!stream->Read(&first)) {
    const grpc::Status status = stream->Finish();
    if (cancelled_) return results_;
    const std::string hint = status.error_code() == grpc::StatusCode::UNAVAILABLE ? PlaintextHint() : "";
    throw SessionError(options_.server + " refused the session (" + StatusCodeName(status.error_code()) +
                       "): " + status.error_message() + hint);
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

std::shared_ptr<grpc::ChannelCredentials> Session::Credentials() const {
  if (!options_.Secure()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions tls;   // no root certificates given: gRPC uses the system's
  if (!options_.root_certificates.empty()) {
    tls.pem_root_certs = ReadPem("--root-certificates", options_.root_certificates);
  }
  if (!options_.client_cert.empty()) {
    tls.pem_cert_chain = ReadPem("--client-cert", options_.client_cert);
    tls.pem_private_key = ReadPem("--client-key", options_.client_key);
  }
  return grpc::SslCredentials(tls);
}

// Appended to an UNAVAILABLE failure before the handshake: the usual cause is a TLS server.
std::string Session::PlaintextHint() const {
  return options_.Secure() ? "" : std::string("; ") + kPlaintextHint;
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
      message << "cannot reach " << options_.server << " within " << options_.connect_timeout << " s (UNAVAILABLE)"
              << PlaintextHint();
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
      SetLatestDecision(message.match_ended().match().match_id(), std::nullopt);
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
      if (error.code() == arena::v1::ERROR_CODE_RATE_LIMITED && !error.match_id().empty()) ResendLater(error, writer);
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
  SetLatestDecision(request.match_id(), decision);
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

// The server dropped a Decision over the key's rate limit: send the same Decision again once the
// wait it quotes has passed, unless the match moved on meanwhile (a newer request, or its end).
// One resend per refusal: a resend the server drops too comes back as a refusal of its own.
void Session::ResendLater(const arena::v1::Error& refusal, StreamWriter& writer) {
  std::optional<arena::v1::Decision> decision = LatestDecision(refusal.match_id());
  if (!decision || decision->decision_id() != refusal.decision_id()) return;
  const std::chrono::milliseconds delay = RetryAfter(refusal.message());
  Log("resending match " + refusal.match_id() + " decision " + std::to_string(refusal.decision_id()) + " in " +
      std::to_string(delay.count()) + " ms");
  arena::v1::ConnectRequest message;
  *message.mutable_decision() = std::move(*decision);
  writer.SendLater(delay, std::move(message),
                   [this, match_id = refusal.match_id(), decision_id = refusal.decision_id()] {
                     const std::optional<arena::v1::Decision> latest = LatestDecision(match_id);
                     return latest && latest->decision_id() == decision_id;
                   });
}

void Session::SetLatestDecision(const std::string& match_id, std::optional<arena::v1::Decision> decision) {
  std::lock_guard<std::mutex> lock(latest_decisions_mutex_);
  if (decision) {
    latest_decisions_[match_id] = std::move(*decision);
  } else {
    latest_decisions_.erase(match_id);
  }
}

std::optional<arena::v1::Decision> Session::LatestDecision(const std::string& match_id) {
  std::lock_guard<std::mutex> lock(latest_decisions_mutex_);
  const auto latest = latest_decisions_.find(match_id);
  if (latest == latest_decisions_.end()) return std::nullopt;
  return latest->second;
}

bool Session::Done() const {
  return options_.matches && static_cast<int>(results_.size()) >= *options_.matches;
}

void Session::Log(const std::string& line) const {
  if (options_.verbose) std::cerr << "arena-bot: " << line << "\n";
}
