#include "gateway/guard/policy_filter.h"

#include <algorithm>
#include <string>

#include "gateway/mcp/jsonrpc.h"
#include "gateway/observe/audit.h"
#include "gateway/observe/log.h"

namespace mcpgate::gateway {

using nlohmann::json;

namespace {

Verdict refused(const MessageContext& context, std::string_view reason, std::string message,
                json extra = json::object()) {
  Verdict verdict;
  verdict.action = Verdict::Action::kReject;
  verdict.code = jsonrpc::kPolicyRefused;
  verdict.message = std::move(message);
  verdict.data = {{"reason", reason}, {"server", context.server}};
  if (!context.tool.empty()) verdict.data["tool"] = context.tool;
  verdict.data.update(extra);
  return verdict;
}

std::string toolName(std::string_view tool) { return "'" + std::string(tool) + "'"; }

}  // namespace

PolicyFilter::PolicyFilter(std::shared_ptr<const PolicyTable> policies,
                           std::shared_ptr<PinStore> pins, config::PinsConfig::OnChange on_change)
    : policies_(std::move(policies)), pins_(std::move(pins)), on_change_(on_change) {}

Verdict PolicyFilter::onMessage(const MessageContext& context, mcp::Message& message) const {
  if (context.direction == Direction::kToServer) {
    if (!context.tool.empty()) {
      return onToolCall(context, message.value, policies_->of(context, message));
    }
    // A tools/call without an id is no valid request, but a lax server may
    // still run it: it gets the same checks (and is dropped if refused).
    if (message.method == "tools/call" && !message.value.contains("id")) {
      auto params = message.value.find("params");
      if (params != message.value.end() && params->is_object()) {
        auto name = params->find("name");
        if (name != params->end() && name->is_string()) {
          MessageContext named = context;
          named.tool = name->get_ref<const std::string&>();
          // Not kept in the message: DLP scans it as naming no tool.
          return onToolCall(named, message.value,
                            policies_->resolve(named.server, named.tool, named.client));
        }
      }
    }
    return {};
  }
  if (context.request_method != "tools/list") return {};
  auto result = message.value.find("result");
  if (result == message.value.end() || !result->is_object()) return {};
  auto tools = result->find("tools");
  if (tools == result->end() || !tools->is_array()) return {};
  return onToolList(context, *tools);
}

Verdict PolicyFilter::onToolCall(const MessageContext& context, const json& message,
                                 const EffectivePolicy& policy) const {
  if (policy.deny) {
    std::string why = "tool " + toolName(context.tool) + " is denied by policy";
    audit::decision(context, "tools/call", "deny", why);
    return refused(context, "tool_denied", std::move(why));
  }
  if (pins_) {
    auto callable = pins_->callable(std::string(context.server), context.tool);
    if (!callable) {
      log::error("tool pins unreadable; call refused",
                 {{"server", context.server}, {"error", callable.error()}});
      audit::decision(context, "tools/call", "pin_error", "the tool pins could not be read");
      return refused(context, "pin_store_error",
                     "tool " + toolName(context.tool) + " cannot be checked against its pin");
    }
    if (!*callable) {
      std::string why = "tool " + toolName(context.tool) +
                        " is new or changed since it was approved and is held until an "
                        "operator approves it (mcpgate pins approve)";
      if (on_change_ == config::PinsConfig::OnChange::kHide) {
        audit::decision(context, "tools/call", "pin_refused", why);
        return refused(context, "tool_not_approved", std::move(why));
      }
      audit::decision(context, "tools/call", "pin_changed_warn", why);
    }
  }
  if (policy.max_argument_bytes) {
    std::size_t size = 0;
    if (auto params = message.find("params"); params != message.end() && params->is_object()) {
      if (auto arguments = params->find("arguments"); arguments != params->end()) {
        size = arguments->dump(-1, ' ', false, json::error_handler_t::replace).size();
      }
    }
    if (size > *policy.max_argument_bytes) {
      std::string why = "arguments of tool " + toolName(context.tool) + " are " +
                        std::to_string(size) + " bytes, over the policy limit of " +
                        std::to_string(*policy.max_argument_bytes) + " bytes (max_argument_bytes)";
      audit::decision(context, "tools/call", "too_large", why);
      return refused(context, "arguments_too_large", std::move(why),
                     {{"limit", "max_argument_bytes"},
                      {"max_argument_bytes", *policy.max_argument_bytes},
                      {"size", size}});
    }
  }
  return {};
}

Verdict PolicyFilter::onToolList(const MessageContext& context, json& tools) const {
  std::vector<std::string> held;
  if (pins_) {
    auto checked = pins_->check(std::string(context.server), tools);
    if (!checked) {
      // Closed: without the pins nothing tells a changed tool from a trusted one.
      log::error("tool pins unreadable; tools/list refused",
                 {{"server", context.server}, {"error", checked.error()}});
      audit::decision(context, "tools/list", "pin_error", "the tool pins could not be read");
      return refused(context, "pin_store_error",
                     "the tool list cannot be checked against its pins");
    }
    held = std::move(*checked);
  }
  const bool hide_changed = on_change_ == config::PinsConfig::OnChange::kHide;
  Verdict verdict;
  json kept = json::array();
  for (json& tool : tools) {
    std::string name;
    if (tool.is_object()) {
      if (auto it = tool.find("name"); it != tool.end() && it->is_string()) name = *it;
    }
    MessageContext about = context;
    about.tool = name;
    if (!name.empty() && policies_->resolve(context.server, name, context.client).deny) {
      audit::decision(about, "tools/list", "deny_hidden",
                      "tool " + toolName(name) + " is denied by policy and hidden");
      verdict.modified = true;
      continue;
    }
    if (!name.empty() && std::ranges::find(held, name) != held.end()) {
      const std::string why = "tool " + toolName(name) +
                              " is new or changed since it was approved (mcpgate pins approve)";
      log::warn("tool definition not approved",
                {{"server", context.server}, {"tool", name}, {"hidden", hide_changed}});
      if (hide_changed) {
        audit::decision(about, "tools/list", "pin_hidden", why + "; hidden");
        verdict.modified = true;
        continue;
      }
      audit::decision(about, "tools/list", "pin_changed_warn", why);
    }
    kept.push_back(std::move(tool));
  }
  tools = std::move(kept);  // every kept tool was moved there
  return verdict;
}

}  // namespace mcpgate::gateway
