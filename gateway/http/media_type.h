#pragma once

// Content-Type and Accept read as media types (RFC 9110 8.3.1, 12.5.1), not
// searched as text: "text/plain; x=application/json" is text/plain.

#include <string_view>

namespace mcpgate::gateway {

// Content-Type `header` names `type` ("application/json"): type and subtype
// equal ignoring case, parameters (charset=utf-8) allowed. False for anything
// malformed.
[[nodiscard]] bool isMediaType(std::string_view header, std::string_view type);

// Accept `header` admits `type`: some media range (`type`, or with
// `wildcards` its "main/*" or "*/*") without q=0. An empty header accepts
// everything with `wildcards`, nothing without; a malformed header admits nothing.
[[nodiscard]] bool acceptsMediaType(std::string_view header, std::string_view type,
                                    bool wildcards = true);

}  // namespace mcpgate::gateway
