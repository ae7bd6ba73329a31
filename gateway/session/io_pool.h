#pragma once

// The gateway's threads: one io_context per worker thread, rather than one
// io_context shared by all of them.
//
// A connection runs on one worker, chosen round robin when it is accepted,
// and a session lives on the worker of the connection that created it, so a
// request's whole path (the HTTP read, the filters, the server's pipes, the
// reply) stays on one thread. With one shared io_context each of those steps
// could wake another thread: perf showed the gateway spending more time
// switching threads than scanning (bench/RESULTS.md). Work that does cross
// workers (a request on another connection of the same session, a reload)
// still goes through the session's strand, so correctness does not depend on
// where a handler runs.

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <vector>

namespace mcpgate::gateway {

class IoPool {
 public:
  explicit IoPool(unsigned threads);
  IoPool(const IoPool&) = delete;
  IoPool& operator=(const IoPool&) = delete;

  // Signals, reload, the acceptor and timers of the process as a whole.
  [[nodiscard]] boost::asio::io_context& main() { return *contexts_.front(); }
  // The worker for a new connection, round robin.
  [[nodiscard]] boost::asio::io_context& next();
  // The worker running the calling thread, else main().
  [[nodiscard]] boost::asio::io_context& local();

  // Runs every worker, the first on the calling thread; returns once stop()
  // was called and every worker has returned.
  void run();
  void stop();

 private:
  using Guard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<Guard> guards_;  // a worker with nothing to do waits, not returns
  std::atomic<unsigned> next_{0};
};

}  // namespace mcpgate::gateway
