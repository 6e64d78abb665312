// The only writer of the Connect stream. gRPC's synchronous stream allows one Write at a time,
// alongside one Read on another thread, so every message the bot sends (decisions from any thread,
// heartbeats, decisions sent again after a delay) is queued here under a mutex and written, in
// order, by one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "arena/v1/agent_service.grpc.pb.h"

class StreamWriter {
 public:
  using Stream = grpc::ClientReaderWriter<arena::v1::ConnectRequest, arena::v1::ConnectResponse>;

  // Starts writing to `stream`, with a Heartbeat every `heartbeat_interval` (none when zero).
  StreamWriter(Stream& stream, std::chrono::milliseconds heartbeat_interval);
  // Equivalent to Close() then Join().
  ~StreamWriter();
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  // Queues a message; ignored once Close() was called.
  void Send(arena::v1::ConnectRequest message);
  // Queues a message to be written once `delay` has passed, if `still_wanted()` says so then.
  // still_wanted runs on the writer thread with the writer's lock held: it must not call this
  // StreamWriter. Ignored once Close() was called; dropped if Close() comes before the delay ends.
  void SendLater(std::chrono::milliseconds delay, arena::v1::ConnectRequest message,
                 std::function<bool()> still_wanted);
  // Writes what is queued, then half-closes the stream (WritesDone) and stops.
  void Close();
  // Waits for the writer thread to stop. Call after Close(), or after the stream ended (a failed
  // Write stops the thread too).
  void Join();

 private:
  using Clock = std::chrono::steady_clock;
  struct Delayed {
    Clock::time_point due;
    arena::v1::ConnectRequest message;
    std::function<bool()> still_wanted;
  };

  void Run();
  void QueueDueMessages(Clock::time_point now);

  Stream& stream_;
  const std::chrono::milliseconds heartbeat_interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<arena::v1::ConnectRequest> queue_;
  std::vector<Delayed> delayed_;   // few: one per message the server asked to have sent again
  bool closing_ = false;
  std::thread thread_;   // last: starts once the members above exist
};
