// The gateway's cross-thread hand-offs under real threads (label tsan: the
// tsan preset builds and runs these with ThreadSanitizer). The Mailbox is the
// only object a session and a connection share; its byte accounting feeds the
// session's backpressure; the log limiter is shared by every thread.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gateway/observe/log.h"
#include "gateway/session/mailbox.h"

namespace mcpgate::gateway {
namespace {

namespace asio = boost::asio;

// Producers push from their own threads while a connection-side coroutine
// on an io_context thread takes batches: every message arrives once, in each
// producer's order, and the byte counts return to zero.
TEST(MailboxConcurrency, PushesFromManyThreadsArriveOnceInOrderAndAreCounted) {
  constexpr int kProducers = 4;
  constexpr int kEach = 5000;
  asio::io_context io;
  auto budget = std::make_shared<QueueBudget>();
  auto mailbox = std::make_shared<Mailbox>(asio::make_strand(io), true, 0);
  mailbox->chargeTo(budget);

  std::map<int, int> next_of;  // producer -> next sequence number expected
  std::size_t received = 0;
  bool in_order = true;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (;;) {
          Mailbox::Batch batch = co_await mailbox->next();
          for (const std::string& m : batch.messages) {
            const auto colon = m.find(':');
            const int producer = std::stoi(m.substr(0, colon));
            const int seq = std::stoi(m.substr(colon + 1));
            in_order = in_order && seq == next_of[producer];
            next_of[producer] = seq + 1;
            ++received;
          }
          if (batch.finished) co_return;
        }
      },
      asio::detached);
  std::thread consumer([&] { io.run(); });

  std::vector<std::thread> producers;
  producers.reserve(kProducers);
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kEach; ++i) {
        mailbox->push(std::to_string(p) + ":" + std::to_string(i) + std::string(100, 'x'));
        (void)mailbox->queuedBytes();  // what the session's tick reads
        (void)budget->bytes.load();
      }
    });
  }
  for (auto& t : producers) t.join();
  mailbox->finish();
  consumer.join();
  EXPECT_EQ(received, static_cast<std::size_t>(kProducers * kEach));
  EXPECT_TRUE(in_order);
  EXPECT_EQ(mailbox->queuedBytes(), 0u);
  EXPECT_EQ(budget->bytes.load(), 0);
}

// overflow() from the session's thread while the connection takes batches:
// the stream ends with the errors last, and nothing stays counted.
TEST(MailboxConcurrency, OverflowWhileTheConnectionReadsEndsWithTheErrorsLast) {
  asio::io_context io;
  auto budget = std::make_shared<QueueBudget>();
  auto mailbox = std::make_shared<Mailbox>(asio::make_strand(io), true, 1);
  mailbox->chargeTo(budget);
  std::string last;
  bool finished = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (;;) {
          Mailbox::Batch batch = co_await mailbox->next();
          if (!batch.messages.empty()) last = batch.messages.back();
          if (batch.finished) {
            finished = true;
            co_return;
          }
        }
      },
      asio::detached);
  std::thread consumer([&] { io.run(); });
  std::thread producer([&] {
    for (int i = 0; i < 20000; ++i) mailbox->push(std::string(200, 'n'));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  mailbox->overflow({"the error"});
  producer.join();
  consumer.join();
  EXPECT_TRUE(finished);
  EXPECT_EQ(last, "the error");
  EXPECT_EQ(budget->bytes.load(), 0);
  mailbox.reset();
  EXPECT_EQ(Mailbox::queuedBytesAll(), 0);
}

// A sink that takes the first `keep` messages where they are pushed, then
// declines one and hands the rest to a coroutine reading next() (as the
// modern front's PlainRelay does).
class CountingSink final : public MailboxSink {
 public:
  CountingSink(std::size_t keep, std::vector<std::string>& taken, std::function<void()> hand_over)
      : keep_(keep), taken_(taken), hand_over_(std::move(hand_over)) {}
  bool take(std::string& text, bool /*final*/, const nlohmann::json* /*parsed*/) override {
    if (taken_.size() >= keep_) return false;
    taken_.push_back(std::move(text));
    return true;
  }
  void handOver() override { hand_over_(); }

 private:
  std::size_t keep_;
  std::vector<std::string>& taken_;  // the mailbox's lock guards it
  std::function<void()> hand_over_;
};

// Producers push from their own threads while a sink takes what comes first
// and then hands over to next() mid-stream: each message arrives once, in
// each producer's order across the hand-over, and nothing stays counted.
TEST(MailboxConcurrency, ASinkHandsOverMidStreamWithNothingLostOrReordered) {
  constexpr int kProducers = 4;
  constexpr int kEach = 3000;
  asio::io_context io;
  auto budget = std::make_shared<QueueBudget>();
  auto mailbox = std::make_shared<Mailbox>(asio::make_strand(io), true, 0);
  mailbox->chargeTo(budget);
  std::vector<std::string> taken;
  std::vector<std::string> read;
  std::atomic<int> hand_overs{0};
  bool finished = false;
  auto reader = [&]() -> asio::awaitable<void> {
    for (;;) {
      Mailbox::Batch batch = co_await mailbox->next();
      for (auto& m : batch.messages) read.push_back(std::move(m));
      if (batch.finished) {
        finished = true;
        co_return;
      }
    }
  };
  mailbox->sinkTo(std::make_shared<CountingSink>(kProducers * kEach / 2, taken, [&] {
    ++hand_overs;
    // Posted, as the sink runs under the mailbox's lock.
    asio::post(io, [&] { asio::co_spawn(io, reader(), asio::detached); });
  }));
  auto guard = asio::make_work_guard(io);
  std::thread consumer([&] { io.run(); });
  std::vector<std::thread> producers;
  producers.reserve(kProducers);
  for (int p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (int i = 0; i < kEach; ++i) mailbox->push(std::to_string(p) + ":" + std::to_string(i));
    });
  }
  for (auto& t : producers) t.join();
  mailbox->finish();
  guard.reset();
  consumer.join();
  EXPECT_EQ(hand_overs.load(), 1);
  EXPECT_TRUE(finished);
  EXPECT_EQ(taken.size(), static_cast<std::size_t>(kProducers * kEach / 2));
  std::map<int, int> next_of;
  bool in_order = true;
  for (const auto* part : {&taken, &read}) {
    for (const std::string& m : *part) {
      const auto colon = m.find(':');
      const int producer = std::stoi(m.substr(0, colon));
      const int seq = std::stoi(m.substr(colon + 1));
      in_order = in_order && seq == next_of[producer];
      next_of[producer] = seq + 1;
    }
  }
  EXPECT_EQ(taken.size() + read.size(), static_cast<std::size_t>(kProducers * kEach));
  EXPECT_TRUE(in_order);
  EXPECT_EQ(budget->bytes.load(), 0);
}

// A sink that takes the one final response ends the mailbox and is let go;
// finish() with a sink still there hands over, so a reader sees the end.
TEST(MailboxConcurrency, ASinkIsLetGoAfterTheLastFinalAndHandsOverAtTheEnd) {
  asio::io_context io;
  std::vector<std::string> taken;
  int hand_overs = 0;
  auto done = std::make_shared<Mailbox>(io.get_executor(), false, 1);
  auto sink = std::make_shared<CountingSink>(10, taken, [&] { ++hand_overs; });
  std::weak_ptr<CountingSink> watch = sink;
  done->sinkTo(std::move(sink));
  done->pushFinal("the answer");
  EXPECT_EQ(taken, std::vector<std::string>{"the answer"});
  EXPECT_TRUE(watch.expired());  // no cycle through a finished mailbox
  EXPECT_EQ(hand_overs, 0);

  auto ended = std::make_shared<Mailbox>(io.get_executor(), false, 1);
  ended->sinkTo(std::make_shared<CountingSink>(10, taken, [&] { ++hand_overs; }));
  ended->finish();
  EXPECT_EQ(hand_overs, 1);
  bool finished = false;
  asio::co_spawn(
      io, [&]() -> asio::awaitable<void> { finished = (co_await ended->next()).finished; },
      asio::detached);
  io.run();
  EXPECT_TRUE(finished);
}

// A client's mailbox abandoned from another thread (the connection's peer watch) while the
// flow's relay waits on the upstream mailbox: the relay wakes with an empty batch (interrupt),
// a reader of the client's mailbox wakes finished, and a sink on the upstream mailbox is handed
// over. Also when the link is made after the client has gone.
TEST(MailboxConcurrency, AnAbandonedClientWakesTheRelayWaitingUpstream) {
  for (int round = 0; round < 200; ++round) {
    asio::io_context io;
    auto out = std::make_shared<Mailbox>(asio::make_strand(io), true, 1);
    auto upstream = std::make_shared<Mailbox>(asio::make_strand(io), true, 1);
    std::vector<std::string> taken;
    int hand_overs = 0;
    upstream->sinkTo(std::make_shared<CountingSink>(10, taken, [&] { ++hand_overs; }));
    out->tellWhenAbandoned(upstream);
    std::atomic<bool> relay_woke{false};
    std::atomic<bool> reader_finished{false};
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          const Mailbox::Batch batch = co_await upstream->next();
          relay_woke = batch.messages.empty() && !batch.finished && out->abandoned();
        },
        asio::detached);
    asio::co_spawn(
        io, [&]() -> asio::awaitable<void> { reader_finished = (co_await out->next()).finished; },
        asio::detached);
    std::thread runner([&] { io.run(); });
    std::thread watcher([&] { out->abandon(); });
    watcher.join();
    runner.join();
    ASSERT_TRUE(relay_woke) << "round " << round;
    ASSERT_TRUE(reader_finished) << "round " << round;
    EXPECT_EQ(hand_overs, 1);
  }
  // Linked after the client went: told at once.
  asio::io_context io;
  auto out = std::make_shared<Mailbox>(io.get_executor(), true, 1);
  auto upstream = std::make_shared<Mailbox>(io.get_executor(), true, 1);
  out->abandon();
  out->tellWhenAbandoned(upstream);
  bool woke = false;
  asio::co_spawn(
      io, [&]() -> asio::awaitable<void> { woke = (co_await upstream->next()).messages.empty(); },
      asio::detached);
  io.run();
  EXPECT_TRUE(woke);
}

// One limiter shared by many threads writes at most its lines per window.
TEST(LimiterConcurrency, ManyThreadsShareOneLimit) {
  char path[] = "/tmp/limiter-test-XXXXXX";
  const int file = ::mkstemp(path);
  ASSERT_GE(file, 0);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(file, STDERR_FILENO);
  log::Limiter limiter(5, std::chrono::seconds(60));
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) limiter.warn("hostile peer line", {{"i", i}});
    });
  }
  for (auto& t : threads) t.join();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) lines += line.find("hostile peer line") != std::string::npos;
  ::close(file);
  ::unlink(path);
  EXPECT_EQ(lines, 5);
}

}  // namespace
}  // namespace mcpgate::gateway
