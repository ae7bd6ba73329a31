#include "gateway/session/mailbox.h"

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace mcpgate::gateway {

namespace asio = boost::asio;

namespace {
std::atomic<int> in_flight{0};
}  // namespace

Mailbox::Mailbox(asio::any_io_executor executor, bool streaming, std::size_t finals)
    : streaming_(streaming),
      counted_(finals > 0),
      finals_left_(finals),
      wake_(std::move(executor), 1) {
  if (counted_) ++in_flight;
}

Mailbox::~Mailbox() {
  if (counted_) --in_flight;
}

int Mailbox::inFlight() { return in_flight.load(); }

void Mailbox::wake() {
  // Capacity 1: a wake-up already queued covers this one too.
  (void)wake_.try_send(boost::system::error_code{});
}

void Mailbox::push(std::string message) {
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    queue_.push_back(std::move(message));
    has_intermediate_ = true;
  }
  wake();
}

void Mailbox::pushFinal(std::string message) {
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    queue_.push_back(std::move(message));
    if (finals_left_ > 0 && --finals_left_ == 0) finished_ = true;
  }
  wake();
}

void Mailbox::pushKeepalive() {
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    queue_.emplace_back();
  }
  wake();
}

void Mailbox::finish() {
  {
    std::lock_guard lock(mu_);
    finished_ = true;
  }
  wake();
}

void Mailbox::abandon() {
  std::lock_guard lock(mu_);
  abandoned_ = true;
}

bool Mailbox::abandoned() const {
  std::lock_guard lock(mu_);
  return abandoned_;
}

asio::awaitable<Mailbox::Batch> Mailbox::next() {
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (!queue_.empty() || finished_) {
        Batch batch;
        batch.messages.swap(queue_);
        batch.has_intermediate = std::exchange(has_intermediate_, false);
        batch.finished = finished_;
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
