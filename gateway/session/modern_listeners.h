#pragma once

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>

#include "gateway/session/lanes.h"

namespace mcpgate::gateway {

// Hands a change notification to the lane's listen streams: a modern
// server's by the subscription id it tagged (the gateway's id of the listen
// request, given back as the client's), a legacy server's to every stream
// whose filter asks for it, tagged with that stream's id. False when it is
// no such notification.
bool deliverToListeners(Lane& lane, const nlohmann::json& notification);

// What a message the session has already parsed (within limits.max_json_depth)
// may nest when the gateway reads it again.
inline constexpr std::uint32_t kReparseDepth = 1024;

// subscriptions/listen for a legacy server on `lane` (held, given back here):
// the gateway acknowledges on `out` what the server can notify (its
// capabilities; a resource by resources/subscribe), then hands the server's
// change notifications to the stream.
[[nodiscard]] boost::asio::awaitable<void> listenLegacy(std::shared_ptr<Lane> lane,
                                                        nlohmann::json client_id,
                                                        nlohmann::json asked,
                                                        std::shared_ptr<Mailbox> out);

}  // namespace mcpgate::gateway
