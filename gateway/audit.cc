#include "gateway/audit.h"

#include <nlohmann/json.hpp>

#include "dlp/scanner.h"
#include "gateway/log.h"

namespace mcpgate::gateway::audit {

using nlohmann::json;

namespace {

std::string_view directionName(Direction direction) {
  return direction == Direction::kToServer ? "request" : "response";
}

json common(const MessageContext& context, std::string_view method) {
  json fields = {{"server", context.server},
                 {"session", context.session},
                 {"direction", directionName(context.direction)},
                 {"method", method.empty() ? json(nullptr) : json(method)}};
  if (!context.client.empty()) fields["client"] = context.client;
  if (!context.tool.empty()) fields["tool"] = context.tool;
  return fields;
}

}  // namespace

void finding(const MessageContext& context, std::string_view method, const dlp::Finding& finding,
             std::string_view preview, std::string_view /*matched*/) {
  json fields = common(context, method);
  fields["rule"] = finding.rule->id;
  fields["category"] = dlp::toString(finding.rule->category);
  fields["severity"] = dlp::toString(finding.rule->severity);
  fields["action"] = dlp::toString(finding.action);
  fields["pointer"] = finding.pointer;
  fields["decoded_by"] = finding.decoded_by;
  fields["preview"] = preview;
  if (finding.in_key) fields["in_key"] = true;
  if (finding.action == dlp::Action::kLog) {
    log::info("dlp finding", fields);
  } else {
    log::warn("dlp finding", fields);
  }
}

void decision(const MessageContext& context, std::string_view method, std::string_view decision,
              std::string_view reason) {
  json fields = common(context, method);
  fields["decision"] = decision;
  fields["reason"] = reason;
  log::warn("policy decision", fields);
}

}  // namespace mcpgate::gateway::audit
