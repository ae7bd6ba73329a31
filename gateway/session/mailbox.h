#pragma once

// Where a session leaves the messages bound for one waiting client: a POST
// waiting for its response (and whatever the server sends before it), or the
// GET stream. The session pushes from its strand; the connection that owns the
// mailbox pops from its own. The only object the two share.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/experimental/concurrent_channel.hpp>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace mcpgate::gateway {

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

  void push(std::string message);       // a message before the response(s)
  void pushFinal(std::string message);  // a response
  void pushKeepalive();                 // an empty event: keeps proxies and dead-peer checks honest
  void finish();                        // nothing more will come
  void abandon();                       // the client went away; the session stops routing here
  [[nodiscard]] bool abandoned() const;

  struct Batch {
    std::vector<std::string> messages;  // an empty string is a keepalive
    bool has_intermediate = false;      // anything but responses in this batch
    bool finished = false;              // no more will come after these
  };
  // Waits for at least one message or the end.
  boost::asio::awaitable<Batch> next();

 private:
  void wake();

  const bool streaming_;
  const bool counted_;  // a POST's, in inFlight()
  mutable std::mutex mu_;
  std::vector<std::string> queue_;
  bool has_intermediate_ = false;
  std::size_t finals_left_;
  bool finished_ = false;
  bool abandoned_ = false;
  boost::asio::experimental::concurrent_channel<void(boost::system::error_code)> wake_;
};

}  // namespace mcpgate::gateway
