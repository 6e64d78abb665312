#include "options.h"

#include <cerrno>
#include <cstdlib>

const char kUsage[] =
    "usage: arena-bot --game GAME_ID [--game GAME_ID ...] [options]\n"
    "\n"
    "Plays uniformly random legal actions on an Arena server.\n"
    "\n"
    "  --server HOST:PORT        server address (default localhost:50051)\n"
    "  --key KEY                 API key (default: $ARENA_API_KEY)\n"
    "  --name NAME               agent name the key was issued for (default cpp-random)\n"
    "  --game GAME_ID            a game to play; repeat for several\n"
    "  --preset NAME             parameter preset asked for every game (default: the game's)\n"
    "  --matches N               stop after N matches ended (default: run until stopped)\n"
    "  --concurrency N           matches played at once (default 1)\n"
    "  --no-ladder               only tournament matches, no ladder pairing\n"
    "  --seed N                  random seed (default: a fresh one, printed with -v)\n"
    "  --connect-timeout SECONDS give up when the server is unreachable this long (default 10)\n"
    "  --tls                     connect over TLS with the system's root certificates\n"
    "  --root-certificates PEM   connect over TLS trusting these certificates\n"
    "  --client-cert PEM         mutual TLS: present this certificate chain\n"
    "  --client-key PEM          mutual TLS: the client certificate's private key\n"
    "  -v, --verbose             log the session's progress to stderr\n"
    "  -h, --help                show this help\n";

namespace {

long long ParseInteger(const std::string& flag, const std::string& text, long long minimum) {
  char* end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < minimum) {
    throw UsageError(flag + " needs an integer of at least " + std::to_string(minimum) + ", got '" + text + "'");
  }
  return value;
}

double ParseSeconds(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value > 0)) {
    throw UsageError(flag + " needs a positive number of seconds, got '" + text + "'");
  }
  return value;
}

}  // namespace

Options ParseOptions(int argc, char** argv, const char* environment_key) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "-h" || flag == "--help") {
      options.help = true;
      return options;
    } else if (flag == "--server") {
      options.server = value();
    } else if (flag == "--key") {
      options.key = value();
    } else if (flag == "--name") {
      options.name = value();
    } else if (flag == "--game") {
      options.games.push_back(value());
    } else if (flag == "--preset") {
      options.preset = value();
    } else if (flag == "--matches") {
      options.matches = static_cast<int>(ParseInteger(flag, value(), 1));
    } else if (flag == "--concurrency") {
      options.concurrency = static_cast<int>(ParseInteger(flag, value(), 1));
    } else if (flag == "--no-ladder") {
      options.join_ladder = false;
    } else if (flag == "--seed") {
      options.seed = static_cast<std::uint64_t>(ParseInteger(flag, value(), 0));
    } else if (flag == "--connect-timeout") {
      options.connect_timeout = ParseSeconds(flag, value());
    } else if (flag == "--tls") {
      options.tls = true;
    } else if (flag == "--root-certificates") {
      options.root_certificates = value();
    } else if (flag == "--client-cert") {
      options.client_cert = value();
    } else if (flag == "--client-key") {
      options.client_key = value();
    } else if (flag == "-v" || flag == "--verbose") {
      options.verbose = true;
    } else {
      throw UsageError("unknown argument '" + flag + "'");
    }
  }
  if (options.games.empty()) throw UsageError("offer at least one game with --game GAME_ID");
  if (options.client_cert.empty() != options.client_key.empty()) {
    throw UsageError("mutual TLS needs both --client-cert and --client-key");
  }
  if (options.key.empty() && environment_key != nullptr) options.key = environment_key;
  if (options.key.empty()) {
    throw UsageError("an API key is needed: --key KEY or the ARENA_API_KEY environment variable");
  }
  return options;
}
