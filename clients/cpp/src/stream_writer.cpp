#include "stream_writer.h"

#include <optional>

#include <google/protobuf/util/time_util.h>

namespace {

arena::v1::ConnectRequest Heartbeat() {
  arena::v1::ConnectRequest message;
  *message.mutable_heartbeat()->mutable_time() = google::protobuf::util::TimeUtil::GetCurrentTime();
  return message;
}

}  // namespace

StreamWriter::StreamWriter(Stream& stream, std::chrono::milliseconds heartbeat_interval)
    : stream_(stream), heartbeat_interval_(heartbeat_interval), thread_(&StreamWriter::Run, this) {}

StreamWriter::~StreamWriter() {
  Close();
  Join();
}

void StreamWriter::Send(arena::v1::ConnectRequest message) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) return;
    queue_.push_back(std::move(message));
  }
  wake_.notify_one();
}

void StreamWriter::SendLater(std::chrono::milliseconds delay, arena::v1::ConnectRequest message,
                             std::function<bool()> still_wanted) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_) return;
    delayed_.push_back(Delayed{Clock::now() + delay, std::move(message), std::move(still_wanted)});
  }
  wake_.notify_one();   // the writer's next wake-up may now come sooner
}

void StreamWriter::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    delayed_.clear();
  }
  wake_.notify_one();
}

void StreamWriter::Join() {
  if (thread_.joinable()) thread_.join();
}

void StreamWriter::Run() {
  auto next_heartbeat = Clock::now() + heartbeat_interval_;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    const auto now = Clock::now();
    if (!closing_ && heartbeat_interval_.count() > 0 && now >= next_heartbeat) {
      queue_.push_back(Heartbeat());
      next_heartbeat = now + heartbeat_interval_;
    }
    QueueDueMessages(now);
    if (queue_.empty()) {
      if (closing_) break;   // everything queued was written
      // Sleep until Send, SendLater or Close wakes us, or the next heartbeat or delayed message
      // is due; the loop then looks again at what there is to do.
      std::optional<Clock::time_point> wake_at;
      if (heartbeat_interval_.count() > 0) wake_at = next_heartbeat;
      for (const Delayed& delayed : delayed_) {
        if (!wake_at || delayed.due < *wake_at) wake_at = delayed.due;
      }
      if (wake_at) {
        wake_.wait_until(lock, *wake_at);
      } else {
        wake_.wait(lock);
      }
      continue;
    }
    arena::v1::ConnectRequest message = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    // Write fails only when the stream has ended; the reader learns why from Finish().
    const bool written = stream_.Write(message);
    lock.lock();
    if (!written) {
      closing_ = true;
      queue_.clear();
      delayed_.clear();
      return;
    }
  }
  lock.unlock();
  stream_.WritesDone();
}

void StreamWriter::QueueDueMessages(Clock::time_point now) {
  for (auto delayed = delayed_.begin(); delayed != delayed_.end();) {
    if (delayed->due > now) {
      ++delayed;
      continue;
    }
    if (delayed->still_wanted()) queue_.push_back(std::move(delayed->message));
    delayed = delayed_.erase(delayed);
  }
}
