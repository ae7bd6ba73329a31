#pragma once

// One generation of what the config file builds: the config itself and
// everything compiled from it (rules, filters). `serve` holds the current one
// in a CurrentGeneration; a reload builds the next off the request path and
// swaps it in whole, so a request sees one generation or the other, never a
// mix. In-flight requests keep the generation they started with.

#include <cstdint>
#include <expected>
#include <memory>
#include <string>

#include "common/shared_slot.h"
#include "config/config.h"
#include "gateway/guard/auth.h"
#include "gateway/guard/filter.h"

namespace mcpgate::gateway {

struct Generation {
  std::shared_ptr<const config::Config> config;
  std::shared_ptr<const FilterChain> filters;
  // Who gets in: null when the config has no auth. The rate buckets start
  // full again with each generation.
  std::shared_ptr<const auth::Authenticator> authenticator;
  std::shared_ptr<auth::RateLimiter> rate;
  std::uint64_t number = 1;  // 1 at startup, +1 per successful reload
};

// Builds a generation from a loaded config: compiles the DLP rules and the
// filters, and builds the JWKS keys. An error names the file and line.
[[nodiscard]] std::expected<std::shared_ptr<const Generation>, std::string> buildGeneration(
    std::shared_ptr<const config::Config> config, std::uint64_t number = 1);

class CurrentGeneration {
 public:
  explicit CurrentGeneration(std::shared_ptr<const Generation> first)
      : current_(std::move(first)) {}

  [[nodiscard]] std::shared_ptr<const Generation> get() const {
    return current_.load();
  }
  // The one generation every new request sees from now on.
  void set(std::shared_ptr<const Generation> next) {
    current_.store(std::move(next));
  }

 private:
  SharedSlot<const Generation> current_;
};

}  // namespace mcpgate::gateway
