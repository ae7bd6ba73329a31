// The gateway's cross-thread hand-offs under real threads (label tsan: the
// tsan preset builds and runs these with ThreadSanitizer). The Mailbox is the
// only object a session and a connection share; its byte accounting feeds the
// session's backpressure; the log limiter is shared by every thread.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <fstream>
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
