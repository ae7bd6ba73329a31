#pragma once

// Where a session leaves the messages bound for one waiting client: a POST
// waiting for its response (and whatever the server sends before it), or the
// GET stream. The session pushes from its strand; the connection that owns the
// mailbox pops from its own. The only object the two share.

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace mcpgate::gateway {

// Bytes queued for clients and not yet taken by their connections: one per
// session (its mailboxes and its backlog), read by the session to stop reading
// its server while over budget (see Session). Mailbox::queuedBytesAll() is the
// gateway-wide sum.
struct QueueBudget {
  std::atomic<std::int64_t> bytes{0};
};

// Takes a mailbox's messages where they are pushed, instead of a coroutine
// awaiting next(): for a consumer whose usual work is cheap enough to do on
// the pusher's thread. take() runs under the mailbox's lock and often under
// the pushing session's: it must not call back into the session or this
// mailbox. It returns false to decline; the message (and everything after
// it) is then queued for next() as if there were no sink, and the sink is
// not called again.
class MailboxSink {
 public:
  virtual ~MailboxSink() = default;
  // One message ("" a keepalive; final: a response), taken or declined.
  // `parsed`, when not null, is the message's value, which `text` says
  // exactly (the session parsed it once already).
  [[nodiscard]] virtual bool take(std::string& text, bool final,
                                  const nlohmann::json* parsed) = 0;
  // The mailbox stops calling take(): a message was declined, or the mailbox
  // ends (finish, overflow, abandon) with no message taken. From now on
  // next() is how its messages are read (under the mailbox's lock, too).
  virtual void handOver() = 0;
};

class Mailbox {
 public:
  // streaming: the client accepts an SSE stream, so messages other than the
  // responses may be delivered here. finals: how many responses end it
  // (requests in the POST; 0 for the GET stream, which ends only by finish()).
  Mailbox(boost::asio::any_io_executor executor, bool streaming, std::size_t finals);
  ~Mailbox();
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  // Mailboxes of POSTs alive in the process: requests in flight (the
  // response may still be on its way to the client). Shutdown drains them.
  [[nodiscard]] static int inFlight();

  [[nodiscard]] bool streaming() const { return streaming_; }

  // Counts this mailbox's queue in `budget` (its session's) from now on.
  void chargeTo(std::shared_ptr<QueueBudget> budget);
  // Bytes queued here and not yet taken by the connection.
  [[nodiscard]] std::size_t queuedBytes() const;
  // Bytes queued in every mailbox of the process.
  [[nodiscard]] static std::int64_t queuedBytesAll();
  // When the connection last took messages (or the mailbox was made).
  [[nodiscard]] std::chrono::steady_clock::time_point lastTaken() const;
  // The client does not read: drops what is queued, queues `last` (the
  // errors that end the stream) and finishes.
  void overflow(std::vector<std::string> last);

  // Hands every message to `sink` from now on, until it declines one.
  void sinkTo(std::shared_ptr<MailboxSink> sink);

  void push(std::string message);       // a message before the response(s)
  // A response; `parsed`, if given, its value (what a sink may read
  // rather than parse the text again).
  void pushFinal(std::string message, const nlohmann::json* parsed = nullptr);
  void pushKeepalive();                 // an empty event: keeps proxies and dead-peer checks honest
  void finish();                        // nothing more will come
  void abandon();  // the client went away; the session stops routing here, the queue is dropped
  [[nodiscard]] bool abandoned() const;
  // When this (a client's) mailbox is abandoned, `reader`'s reader is told at once (interrupt()),
  // not at the server's next message: a modern client cancels by closing its stream, and a
  // server that sends nothing must still hear of it. At once if it already is.
  void tellWhenAbandoned(const std::shared_ptr<Mailbox>& reader);
  // Hands a sink over to next() and makes one next() return, with no message if none is queued.
  void interrupt();

  struct Batch {
    std::vector<std::string> messages;  // an empty string is a keepalive
    bool has_intermediate = false;      // anything but responses in this batch
    bool finished = false;              // no more will come after these
  };
  // Waits for at least one message or the end (at once, finished and empty, once abandoned;
  // empty, not finished, after interrupt()).
  boost::asio::awaitable<Batch> next();

 private:
  struct Queued {
    std::string text;
    bool intermediate;
  };
  void wake();
  void enqueue(std::string message, bool intermediate);  // mu_ held
  // Offers a message to the sink, if any (mu_ held): true when it took it.
  bool sunk(std::string& message, bool final, const nlohmann::json* parsed = nullptr);
  void handOverLocked();             // mu_ held: the sink, if any, hands over to next()
  void account(std::int64_t delta);  // mu_ held
  void dropQueue();                  // mu_ held

  const bool streaming_;
  const bool counted_;  // a POST's, in inFlight()
  mutable std::mutex mu_;
  // A vector and the index of its first message still queued: a mailbox
  // usually holds one or two messages, which a deque would allocate its map
  // and a 512-byte block for.
  std::vector<Queued> queue_;
  std::size_t head_ = 0;
  std::size_t queued_bytes_ = 0;
  std::shared_ptr<QueueBudget> budget_;
  std::shared_ptr<MailboxSink> sink_;
  std::chrono::steady_clock::time_point last_taken_;
  std::size_t finals_left_;
  bool finished_ = false;
  bool abandoned_ = false;
  bool interrupted_ = false;
  std::vector<std::weak_ptr<Mailbox>> tell_;  // tellWhenAbandoned()
  boost::asio::experimental::concurrent_channel<void(boost::system::error_code)> wake_;
};

}  // namespace mcpgate::gateway
