#pragma once

// Durations and sizes as written in the config file ("10s", "4MiB"). The error
// strings are phrases meant to follow the offending value in a message, so the
// loader can say "session.grace '5x' is not a duration (...)".

#include <chrono>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace mcpgate::config {

// The largest duration accepted: later code adds durations to clock readings,
// and a bounded value keeps that free of overflow.
inline constexpr std::chrono::hours kMaxDuration{24 * 365};

// An integer immediately followed by ms, s, m or h ("250ms", "10s", "5m", "1h").
// Zero is accepted here; callers that need a positive value check it.
[[nodiscard]] std::expected<std::chrono::milliseconds, std::string> parseDuration(
    std::string_view text);

// An integer number of bytes, optionally followed by B, KiB, MiB, GiB (powers of
// 1024) or KB, MB, GB (powers of 1000): "4096", "4MiB", "1GB".
[[nodiscard]] std::expected<std::uint64_t, std::string> parseSize(std::string_view text);

// Shortest exact form that parseDuration reads back: "1h", "300s", "250ms".
[[nodiscard]] std::string formatDuration(std::chrono::milliseconds duration);

// Shortest exact form that parseSize reads back: "4MiB", "2GB", "1000B".
[[nodiscard]] std::string formatSize(std::uint64_t bytes);

}  // namespace mcpgate::config
