#pragma once

// The server must run what the gateway checked: a message that another
// parser could read differently from the one the filters and the policy
// read is refused before them.

#include <optional>
#include <string>

#include "gateway/guard/filter.h"
#include "gateway/mcp/message.h"

namespace mcpgate::gateway {

// The refusal of a message that another parser could read differently from
// nlohmann (which the filters and the policy use): a member spelt in another
// case, which a case-insensitive server matches, and for tools/call a name
// that is not a plain string. Duplicate keys need no check here: the reader
// keeps the last, and text that held any is sent re-serialised, so the
// server never sees the other. nullopt: the message may go on to the filters.
[[nodiscard]] std::optional<Verdict> ambiguity(const mcp::Message& message,
                                               const std::string& server);

}  // namespace mcpgate::gateway
