#include "gateway/guard/generation.h"

#include "gateway/guard/dlp_filter.h"

namespace mcpgate::gateway {

std::expected<std::shared_ptr<const Generation>, std::string> buildGeneration(
    std::shared_ptr<const config::Config> config, std::uint64_t number) {
  auto filters = buildFilterChain(*config);
  if (!filters) return std::unexpected(filters.error());
  auto generation = std::make_shared<Generation>();
  if (config->auth.enabled()) {
    auto authenticator = auth::Authenticator::create(*config);
    if (!authenticator) return std::unexpected(authenticator.error());
    generation->authenticator = std::move(*authenticator);
  }
  generation->rate = std::make_shared<auth::RateLimiter>(*config);
  generation->config = std::move(config);
  generation->filters = std::move(*filters);
  generation->number = number;
  return generation;
}

}  // namespace mcpgate::gateway
