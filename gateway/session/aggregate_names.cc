#include "gateway/session/aggregate.h"

// The aggregate's name space: every server's lists merged, each tool and
// prompt name prefixed with its server's, and the way back from a name (or
// a resource URI) to the server that listed it.

#include <boost/asio/use_awaitable.hpp>

#include "common/digest.h"
#include "common/encoding.h"
#include "gateway/observe/log.h"
#include "gateway/session/session.h"

// g++ 12 misreads Asio's coroutine frame allocator (awaitable_frame_base's
// own operator new and delete) in large coroutines as a mismatched pair.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace mcpgate::gateway {

using boost::asio::awaitable;
using nlohmann::json;

namespace {

constexpr std::size_t kMaxName = 64;  // what clients (and model APIs) accept for a tool name

std::string shortHash(std::string_view text) {
  const common::Sha256 digest = common::sha256(text);
  return common::toHex(std::span(digest).first(3));
}

}  // namespace

// Every item of every server, each server's pages all fetched, names prefixed.
awaitable<json> AggregateSession::listAll(const std::string& method, const std::string& key) {
  const ListKind* kind = nullptr;
  for (const ListKind& k : kLists) {
    if (k.method == method) kind = &k;
  }
  json items = json::array();
  for (const std::string& server : servers_) {
    auto session = co_await inner(server);
    if (!session) {
      log::warn(
          "aggregate endpoint: server left out of the list",
          {{"session", id_}, {"server", server}, {"method", method}, {"error", session.error()}});
      continue;
    }
    // This listing replaces what the server listed before.
    std::erase_if(names_, [&](const auto& entry) {
      return entry.second.server == server && kind->name_member == "name" &&
             entry.second.kind == method;
    });
    std::erase_if(resources_, [&](const auto& entry) {
      return entry.second == server && kind->name_member != "name";
    });
    json cursor;
    for (int page = 0; page < 100; ++page) {
      json request = {{"jsonrpc", "2.0"}, {"method", method}, {"params", json::object()}};
      if (!cursor.is_null()) request["params"]["cursor"] = cursor;
      json response = co_await ask(*session, std::move(request));
      const json* result = response.contains("result") ? &response["result"] : nullptr;
      if (result == nullptr || !result->is_object() || !result->contains(key) ||
          !(*result)[key].is_array()) {
        // A server without this capability answers with an error: nothing to list.
        break;
      }
      for (json item : (*result)[key]) {
        if (!item.is_object()) continue;
        if (kind->name_member == "name") {
          const std::string name = item.value("name", "");
          auto outside = prefixed(server, name, method);
          if (!outside) {
            log::warn("aggregate endpoint: name taken by another server; left out",
                      {{"session", id_}, {"server", server}, {"method", method}});
            continue;
          }
          item["name"] = *outside;
        } else {
          const std::string uri = item.value(std::string(kind->name_member), "");
          auto [it, added] = resources_.try_emplace(uri, server);
          if (!added && it->second != server) {
            log::warn("aggregate endpoint: resource URI listed by another server; left out",
                      {{"session", id_}, {"server", server}, {"method", method}});
            continue;
          }
          if (item.contains("name") && item["name"].is_string()) {
            item["name"] = server + separator_ + item["name"].get<std::string>();
          }
        }
        items.push_back(std::move(item));
      }
      if (!result->contains("nextCursor") || (*result)["nextCursor"].is_null()) break;
      cursor = (*result)["nextCursor"];
    }
  }
  co_return json{{key, std::move(items)}};
}

std::optional<std::string> AggregateSession::prefixed(const std::string& server,
                                                      const std::string& name,
                                                      const std::string& kind) {
  std::string outside = server + separator_ + name;
  if (outside.size() > kMaxName) {
    // Cut, and keep it unique with a hash of the whole.
    const std::string hash = shortHash(outside);
    outside = outside.substr(0, kMaxName - hash.size() - 1) + "~" + hash;
  }
  // Servers "a" and "a__b" could both claim "a__b__c": the first keeps it.
  auto [it, added] = names_.try_emplace(outside, Target{server, name, kind});
  if (!added && it->second.server != server) return std::nullopt;
  it->second = Target{server, name, kind};
  return outside;
}

std::expected<AggregateSession::Target, std::string> AggregateSession::targetOf(
    const std::string& name) const {
  if (auto it = names_.find(name); it != names_.end()) return it->second;
  // Not listed in this session yet: read the prefix.
  const auto at = name.find(separator_);
  if (at != std::string::npos) {
    const std::string server = name.substr(0, at);
    if (std::ranges::find(servers_, server) != servers_.end()) {
      return Target{server, name.substr(at + separator_.size()), ""};
    }
  }
  return std::unexpected("no tool or prompt '" + name + "' on this endpoint; names are <server>" +
                         separator_ + "<name>");
}

}  // namespace mcpgate::gateway
