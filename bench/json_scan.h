#pragma once

// The benchmark tools scan raw JSON with the gateway's scanner: one home.

#include "gateway/mcp/json_scan.h"

namespace mcpgate::bench {

using gateway::jsonscan::firstElement;
using gateway::jsonscan::forEachMember;
using gateway::jsonscan::isDelimiter;
using gateway::jsonscan::kBad;
using gateway::jsonscan::kMaxDepth;
using gateway::jsonscan::member;
using gateway::jsonscan::skipString;
using gateway::jsonscan::skipValue;
using gateway::jsonscan::skipWs;
using gateway::jsonscan::stringContent;

}  // namespace mcpgate::bench
