#pragma once

// Per-tool policy and tool pinning in the message path, ahead of DLP:
// - tools/call to a denied tool, to a tool pinning holds, or with arguments
//   over the policy's max_argument_bytes gets a JSON-RPC error and is never
//   forwarded;
// - a tools/list result loses the denied tools and the tools pinning holds
//   (new or changed definitions not yet approved), and records what it saw.
// Every refusal and hidden tool is an audit::decision.

#include <memory>
#include <nlohmann/json.hpp>

#include "config/config.h"
#include "gateway/guard/filter.h"
#include "gateway/guard/pins.h"
#include "gateway/guard/policy.h"

namespace mcpgate::gateway {

class PolicyFilter final : public MessageFilter {
 public:
  // `pins` is null when pinning is off.
  PolicyFilter(std::shared_ptr<const PolicyTable> policies, std::shared_ptr<PinStore> pins,
               config::PinsConfig::OnChange on_change);

  [[nodiscard]] Verdict onMessage(const MessageContext& context,
                                  mcp::Message& message) const override;

 private:
  // `policy` is the message's effective policy.
  [[nodiscard]] Verdict onToolCall(const MessageContext& context, const nlohmann::json& message,
                                   const EffectivePolicy& policy) const;
  [[nodiscard]] Verdict onToolList(const MessageContext& context, nlohmann::json& tools) const;

  std::shared_ptr<const PolicyTable> policies_;
  std::shared_ptr<PinStore> pins_;
  config::PinsConfig::OnChange on_change_;
};

}  // namespace mcpgate::gateway
