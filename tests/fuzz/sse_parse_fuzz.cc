// The parser of a remote MCP server's Server-Sent Events: the events do not depend on how the
// stream was cut into reads, and none is delivered empty or over the limit.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/upstream/sse_parser.h"
#include "tests/fuzz/fuzz_check.h"

using mcpgate::fuzz::check;
using mcpgate::gateway::SseParser;

namespace {

struct Outcome {
  std::vector<std::string> events;
  bool fits = true;
};

// Feeds `text` in pieces of `piece` bytes (all at once when 0).
Outcome run(std::string_view text, std::size_t limit, std::size_t piece) {
  SseParser parser(limit);
  Outcome out;
  const std::size_t step = piece == 0 ? text.size() + 1 : piece;
  for (std::size_t at = 0; at < text.size() && out.fits; at += step) {
    out.fits = parser.feed(text.substr(at, step),
                           [&](std::string event) { out.events.push_back(std::move(event)); });
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // The first bytes pick the limit and the read size.
  const std::size_t limit = 1 + static_cast<std::size_t>(data[0]) * 4;
  const std::size_t piece = data[1] % 17;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  const Outcome whole = run(text, limit, 0);
  const Outcome pieces = run(text, limit, piece == 0 ? 1 : piece);
  check(whole.fits == pieces.fits, "the limit depends on how the stream was read");
  if (whole.fits) check(whole.events == pieces.events, "events depend on how the stream was read");
  for (const auto& event : whole.events) {
    check(!event.empty(), "an empty event was delivered");
    check(event.size() <= limit + 1, "an event over the limit was delivered");
  }
  return 0;
}
