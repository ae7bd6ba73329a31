#include "gateway/session/mailbox.h"

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace mcpgate::gateway {

namespace asio = boost::asio;

namespace {
std::atomic<int> in_flight{0};
std::atomic<std::int64_t> queued_all{0};
// What one next() hands the connection at most (at least one message): a
// client that reads slowly holds this much in its connection, the rest stays
// counted here, where the session's budget sees it.
constexpr std::size_t kBatchBytes = std::size_t{256} * 1024;
}  // namespace

Mailbox::Mailbox(asio::any_io_executor executor, bool streaming, std::size_t finals)
    : streaming_(streaming),
      counted_(finals > 0),
      last_taken_(std::chrono::steady_clock::now()),
      finals_left_(finals),
      wake_(std::move(executor), 1) {
  if (counted_) ++in_flight;
}

Mailbox::~Mailbox() {
  if (counted_) --in_flight;
  std::lock_guard lock(mu_);
  dropQueue();
}

int Mailbox::inFlight() { return in_flight.load(); }

std::int64_t Mailbox::queuedBytesAll() { return queued_all.load(std::memory_order_relaxed); }

void Mailbox::chargeTo(std::shared_ptr<QueueBudget> budget) {
  std::lock_guard lock(mu_);
  if (budget_ == budget) return;
  if (budget_) budget_->bytes -= static_cast<std::int64_t>(queued_bytes_);
  budget_ = std::move(budget);
  if (budget_) budget_->bytes += static_cast<std::int64_t>(queued_bytes_);
}

std::size_t Mailbox::queuedBytes() const {
  std::lock_guard lock(mu_);
  return queued_bytes_;
}

std::chrono::steady_clock::time_point Mailbox::lastTaken() const {
  std::lock_guard lock(mu_);
  return last_taken_;
}

void Mailbox::account(std::int64_t delta) {
  queued_bytes_ = static_cast<std::size_t>(static_cast<std::int64_t>(queued_bytes_) + delta);
  queued_all.fetch_add(delta, std::memory_order_relaxed);
  if (budget_) budget_->bytes.fetch_add(delta, std::memory_order_relaxed);
}

void Mailbox::enqueue(std::string message, bool intermediate) {
  account(static_cast<std::int64_t>(message.size()));
  queue_.push_back({std::move(message), intermediate});
}

void Mailbox::dropQueue() {
  account(-static_cast<std::int64_t>(queued_bytes_));
  queue_.clear();
  head_ = 0;
}

void Mailbox::wake() {
  // Capacity 1: a wake-up already queued covers this one too.
  (void)wake_.try_send(boost::system::error_code{});
}

void Mailbox::sinkTo(std::shared_ptr<MailboxSink> sink) {
  std::lock_guard lock(mu_);
  sink_ = std::move(sink);
}

bool Mailbox::sunk(std::string& message, bool final, const nlohmann::json* parsed) {
  if (!sink_) return false;
  if (sink_->take(message, final, parsed)) return true;
  handOverLocked();
  return false;
}

void Mailbox::handOverLocked() {
  if (!sink_) return;
  auto sink = std::move(sink_);
  sink->handOver();
}

void Mailbox::push(std::string message) {
  {
    std::lock_guard lock(mu_);
    if (finished_ || abandoned_) return;
    if (sunk(message, false)) return;
    enqueue(std::move(message), true);
  }
  wake();
}

void Mailbox::pushFinal(std::string message, const nlohmann::json* parsed) {
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    const bool last = finals_left_ > 0 && --finals_left_ == 0;
    if (last) finished_ = true;
    if (!abandoned_) {
      if (sunk(message, true, parsed)) {
        if (last) sink_.reset();  // its work is done
        return;
      }
      enqueue(std::move(message), false);
    }
  }
  wake();
}

void Mailbox::pushKeepalive() {
  {
    std::lock_guard lock(mu_);
    if (finished_ || abandoned_) return;
    std::string keepalive;
    if (sunk(keepalive, false)) return;
    enqueue({}, true);
  }
  wake();
}

void Mailbox::finish() {
  {
    std::lock_guard lock(mu_);
    handOverLocked();
    finished_ = true;
  }
  wake();
}

void Mailbox::overflow(std::vector<std::string> last) {
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    handOverLocked();
    dropQueue();
    for (auto& message : last) enqueue(std::move(message), false);
    finished_ = true;
  }
  wake();
}

void Mailbox::abandon() {
  std::vector<std::weak_ptr<Mailbox>> tell;
  {
    std::lock_guard lock(mu_);
    handOverLocked();
    abandoned_ = true;
    dropQueue();
    tell = std::move(tell_);
    tell_.clear();
  }
  wake();  // a reader waiting in next() ends (the peer watch abandons from outside it)
  // Outside the lock: a sink of the other mailbox reads this one under that one's lock.
  for (const auto& weak : tell) {
    if (auto reader = weak.lock()) reader->interrupt();
  }
}

void Mailbox::tellWhenAbandoned(const std::shared_ptr<Mailbox>& reader) {
  {
    std::lock_guard lock(mu_);
    if (!abandoned_) {
      std::erase_if(tell_, [](const std::weak_ptr<Mailbox>& w) { return w.expired(); });
      tell_.push_back(reader);
      return;
    }
  }
  reader->interrupt();
}

void Mailbox::interrupt() {
  {
    std::lock_guard lock(mu_);
    handOverLocked();
    interrupted_ = true;
  }
  wake();
}

bool Mailbox::abandoned() const {
  std::lock_guard lock(mu_);
  return abandoned_;
}

asio::awaitable<Mailbox::Batch> Mailbox::next() {
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (abandoned_) {
        Batch batch;
        batch.finished = true;
        co_return batch;
      }
      if (head_ == queue_.size() && !finished_ && interrupted_) {
        interrupted_ = false;
        co_return Batch{};
      }
      if (head_ < queue_.size() || finished_) {
        Batch batch;
        std::size_t taken = 0;
        while (head_ < queue_.size() && (batch.messages.empty() || taken < kBatchBytes)) {
          Queued& front = queue_[head_++];
          taken += front.text.size();
          batch.has_intermediate = batch.has_intermediate || front.intermediate;
          batch.messages.push_back(std::move(front.text));
        }
        // Taken messages leave the vector: all at once when it is empty, else
        // once they are the larger part of it (a stream that never drains).
        if (head_ == queue_.size()) {
          queue_.clear();
          head_ = 0;
        } else if (head_ > 64 && head_ * 2 > queue_.size()) {
          queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_));
          head_ = 0;
        }
        account(-static_cast<std::int64_t>(taken));
        last_taken_ = std::chrono::steady_clock::now();
        batch.finished = finished_ && head_ == queue_.size();
        if (head_ < queue_.size()) wake();  // the rest is for the next call
        co_return batch;
      }
    }
    auto [ec] = co_await wake_.async_receive(asio::as_tuple(asio::use_awaitable));
    if (ec) {
      Batch batch;
      batch.finished = true;
      co_return batch;
    }
  }
}

}  // namespace mcpgate::gateway
