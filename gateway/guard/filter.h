#pragma once

// The one place a message is inspected on its way through the gateway, in
// either direction. Filters run in order on the parsed message; each may let
// it pass, change it (its value), or refuse it (DLP and policy plug in here).
// The message comes with its facts (kind, id, method, tool) derived once at
// its entry; the first filter that needs its effective policy resolves it
// into the message (PolicyTable::of), and the others read it there: the
// filters of one chain share one policy table.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/mcp/message.h"
#include "gateway/mcp/message_context.h"

namespace mcpgate::gateway {

struct Verdict {
  enum class Action { kForward, kReject };
  Action action = Action::kForward;
  bool modified = false;  // the filter changed the message: it must be serialised again
  int code = 0;           // for kReject: the JSON-RPC error the sender gets
  std::string message;
  nlohmann::json data;
};

class MessageFilter {
 public:
  virtual ~MessageFilter() = default;
  [[nodiscard]] virtual Verdict onMessage(const MessageContext& context,
                                          mcp::Message& message) const = 0;
};

// Immutable once built; shared by every session of a config generation.
class FilterChain {
 public:
  void add(std::shared_ptr<const MessageFilter> filter) { filters_.push_back(std::move(filter)); }
  [[nodiscard]] bool empty() const { return filters_.empty(); }

  [[nodiscard]] Verdict run(const MessageContext& context, mcp::Message& message) const {
    Verdict result;
    for (const auto& filter : filters_) {
      Verdict v = filter->onMessage(context, message);
      if (v.action == Verdict::Action::kReject) return v;
      result.modified = result.modified || v.modified;
    }
    return result;
  }

 private:
  std::vector<std::shared_ptr<const MessageFilter>> filters_;
};

}  // namespace mcpgate::gateway
