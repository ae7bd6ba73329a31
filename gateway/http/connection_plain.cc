// The plain-HTTP instantiation of the transport, compiled apart from the TLS one.
#include "gateway/http/connection_events.h"
#include "gateway/http/connection_read.h"
#include "gateway/http/connection_write.h"

namespace mcpgate::gateway {

void serveConnection(boost::asio::ip::tcp::socket socket,
                     std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions,
                     std::shared_ptr<void> slot) {
  transport::spawnConnection<boost::beast::tcp_stream>(
      std::move(socket), nullptr, std::move(current), sessions, std::move(slot));
}

}  // namespace mcpgate::gateway
