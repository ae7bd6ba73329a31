// The TLS instantiation of the transport, reading side: the handshake and
// requests. Beast's TLS templates are slow to compile, so the writing side is
// instantiated in connection_tls_write.cc and connection_tls_events.cc.
#include "gateway/http/connection_read.h"
#include "gateway/http/tls_stream.h"

namespace mcpgate::gateway {

void serveTlsConnection(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& tls,
                        std::shared_ptr<const CurrentGeneration> current, SessionTable& sessions,
                        std::shared_ptr<void> slot) {
  transport::spawnConnection<transport::TlsStream>(std::move(socket), &tls, std::move(current),
                                                   sessions, std::move(slot));
}

}  // namespace mcpgate::gateway
