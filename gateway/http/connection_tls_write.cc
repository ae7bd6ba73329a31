// The TLS instantiation of the transport: whole answers (connection_tls.cc).
#include "gateway/http/connection_write.h"
#include "gateway/http/tls_stream.h"

namespace mcpgate::gateway::transport {

template awaitable<bool> Connection<TlsStream>::send(Exchange& exchange);

}  // namespace mcpgate::gateway::transport
