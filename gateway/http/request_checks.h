#pragma once

// What the HTTP parser accepts but the gateway refuses, to leave no room for
// request smuggling or header confusion between it and anything in front:
// folded header lines (obs-fold, which Beast joins silently), a
// Transfer-Encoding other than one final "chunked" (Beast then reads no
// body, and the rest would be read as the next request), and zero or
// several Host lines.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mcpgate::gateway {

// Where the header section in `data` ends (just after its empty line), or
// npos while it is incomplete. Leading empty lines are skipped, as HTTP allows.
[[nodiscard]] std::size_t headerSectionEnd(std::string_view data);

// `head`: the header section. Why it is refused, or nullopt.
[[nodiscard]] std::optional<std::string> foldedHeaderProblem(std::string_view head);

// From the parsed request: the Transfer-Encoding lines and the first one's
// value, the Host lines and the HTTP version (10 or 11). Why it is refused,
// or nullopt.
[[nodiscard]] std::optional<std::string> framingProblem(std::size_t transfer_encodings,
                                                        std::string_view transfer_encoding,
                                                        std::size_t hosts, unsigned version);

}  // namespace mcpgate::gateway
