#include "gateway/session/io_pool.h"

#include <boost/asio/detail/reactor.hpp>
#include <thread>

namespace mcpgate::gateway {

namespace {
thread_local boost::asio::io_context* running = nullptr;

void runOne(boost::asio::io_context& context) {
  running = &context;
  context.run();
  running = nullptr;
}
}  // namespace

IoPool::IoPool(unsigned threads) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) {
    contexts_.push_back(std::make_unique<boost::asio::io_context>(1));
    guards_.emplace_back(contexts_.back()->get_executor());
    // Each worker's epoll, eventfd and timerfd now, not at its first
    // connection: the gateway's open files stay constant while it serves.
    (void)boost::asio::use_service<boost::asio::detail::reactor>(*contexts_.back());
  }
}

boost::asio::io_context& IoPool::next() {
  return *contexts_[next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size()];
}

boost::asio::io_context& IoPool::local() { return running != nullptr ? *running : main(); }

void IoPool::run() {
  std::vector<std::jthread> threads;
  for (std::size_t i = 1; i < contexts_.size(); ++i) {
    threads.emplace_back([context = contexts_[i].get()] { runOne(*context); });
  }
  runOne(main());
}

void IoPool::stop() {
  for (auto& guard : guards_) guard.reset();
  for (auto& context : contexts_) context->stop();
}

}  // namespace mcpgate::gateway
