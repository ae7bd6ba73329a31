// The TLS instantiation of the transport: SSE answers (connection_tls.cc).
#include "gateway/http/connection_events.h"
#include "gateway/http/tls_stream.h"

namespace mcpgate::gateway::transport {

template awaitable<bool> Connection<TlsStream>::streamEvents(const Exchange& exchange,
                                                             EventStream& stream);

}  // namespace mcpgate::gateway::transport
