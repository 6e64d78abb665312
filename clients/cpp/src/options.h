// Command-line options of arena-bot.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct Options {
  std::string server = "localhost:50051";
  std::string key;                       // --key, else $ARENA_API_KEY
  std::string name = "cpp-random";       // must be the agent the key was issued for
  std::vector<std::string> games;        // at least one
  std::string preset;                    // asked for every game; empty: the game's default
  std::optional<int> matches;            // stop after this many ended; unset: until stopped
  int concurrency = 1;
  bool join_ladder = true;
  std::optional<std::uint64_t> seed;     // unset: a fresh seed per run
  double connect_timeout = 10.0;         // seconds
  bool tls = false;                      // --tls: TLS with the system's root certificates
  std::string root_certificates;         // PEM file of the CAs to trust; turns TLS on
  std::string client_cert;               // mutual TLS: PEM certificate chain, with client_key
  std::string client_key;                // mutual TLS: PEM private key, with client_cert
  bool verbose = false;
  bool help = false;

  // As arena-agent: any of the TLS options turns TLS on.
  bool Secure() const { return tls || !root_certificates.empty() || !client_cert.empty(); }
};

// A command line that cannot be run; the message says what to fix.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses argv; `environment_key` is $ARENA_API_KEY (null when unset). Throws UsageError.
Options ParseOptions(int argc, char** argv, const char* environment_key);

extern const char kUsage[];
