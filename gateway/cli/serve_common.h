#pragma once

// Pieces `serve` and `stdio` share.

#include <expected>
#include <memory>
#include <string>
#include <utility>

#include "config/config.h"

namespace mcpgate::gateway {

// Loads the config, reports errors on stderr and applies its log level.
[[nodiscard]] std::expected<std::shared_ptr<const config::Config>, std::string> loadForServing(
    const std::string& path, config::LoadOptions options = {});

// Warns about what will keep the config's servers from starting: packages not
// installed yet, and sandbox layers this host cannot enforce. At startup and
// after each reload.
void announceServers(const config::Config& config);

// Logs each sandbox layer this host cannot enforce (`mcpgate sandbox probe`).
void warnAboutUnenforceableLayers(const config::Config& config);

// Closed by default: a listener beyond loopback needs auth, or the operator's
// explicit `insecure_no_auth: true`. At startup and on every reload, so a
// rewritten config cannot open the gateway to the network. The error says why
// and what to change.
[[nodiscard]] std::expected<void, std::string> checkListenerAuth(const std::string& host,
                                                                 const config::Config& config);

}  // namespace mcpgate::gateway
