#include "stream_writer.h"

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

void StreamWriter::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  wake_.notify_one();
}

void StreamWriter::Join() {
  if (thread_.joinable()) thread_.join();
}

void StreamWriter::Run() {
  using Clock = std::chrono::steady_clock;
  auto next_heartbeat = Clock::now() + heartbeat_interval_;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    auto ready = [&] { return closing_ || !queue_.empty(); };
    if (heartbeat_interval_.count() > 0) {
      if (!wake_.wait_until(lock, next_heartbeat, ready)) {
        queue_.push_back(Heartbeat());
        next_heartbeat = Clock::now() + heartbeat_interval_;
      }
    } else {
      wake_.wait(lock, ready);
    }
    if (queue_.empty()) break;   // closing, and everything queued was written
    arena::v1::ConnectRequest message = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    // Write fails only when the stream has ended; the reader learns why from Finish().
    const bool written = stream_.Write(message);
    lock.lock();
    if (!written) {
      closing_ = true;
      queue_.clear();
      return;
    }
  }
  lock.unlock();
  stream_.WritesDone();
}
