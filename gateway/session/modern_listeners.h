#pragma once

#include <nlohmann/json.hpp>

#include "gateway/session/lanes.h"

namespace mcpgate::gateway {

// Hands a change notification to the lane's listen streams: a modern
// server's by the subscription id it tagged (the gateway's id of the listen
// request, given back as the client's), a legacy server's to every stream
// whose filter asks for it, tagged with that stream's id. False when it is
// no such notification.
bool deliverToListeners(Lane& lane, const nlohmann::json& notification);

}  // namespace mcpgate::gateway
