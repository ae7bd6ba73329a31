#pragma once

// The audit trail: one record per DLP finding and per policy decision, never
// holding the matched text itself. Every finding and decision the gateway
// makes goes through these two functions and nowhere else.

#include <string_view>

#include "gateway/filter.h"

namespace mcpgate::dlp {
struct Finding;
}

namespace mcpgate::gateway::audit {

// A DLP finding in a message. `preview` is the masked preview; `matched` is
// the matched text, used only for its keyed hash and never written.
void finding(const MessageContext& context, std::string_view method, const dlp::Finding& finding,
             std::string_view preview, std::string_view matched);

// A policy decision about a message: `decision` is a short word ("deny",
// "pin_hidden", "too_large", ...), `reason` what the client was told.
void decision(const MessageContext& context, std::string_view method, std::string_view decision,
              std::string_view reason);

}  // namespace mcpgate::gateway::audit
