#include "config/units.h"

#include <array>
#include <limits>
#include <utility>

namespace mcpgate::config {
namespace {

constexpr std::string_view kDurationForms =
    "is not a duration (use an integer followed by ms, s, m or h, e.g. 250ms, 10s, 5m, 1h)";
constexpr std::string_view kSizeForms =
    "is not a size (use an integer number of bytes, optionally followed by B, KiB, MiB, GiB, "
    "KB, MB or GB, e.g. 4MiB)";

// Reads the leading decimal digits; false when there are none or they overflow.
bool leadingInteger(std::string_view text, std::uint64_t& value, std::size_t& digits) {
  value = 0;
  digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[digits] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;
    value = value * 10 + digit;
    ++digits;
  }
  return digits > 0;
}

struct SizeUnit {
  std::string_view name;
  std::uint64_t bytes;
};

// Largest first, so formatSize picks the biggest unit that divides exactly.
constexpr std::array<SizeUnit, 7> kSizeUnits{{
    {"GiB", 1024ULL * 1024 * 1024},
    {"GB", 1000ULL * 1000 * 1000},
    {"MiB", 1024ULL * 1024},
    {"MB", 1000ULL * 1000},
    {"KiB", 1024},
    {"KB", 1000},
    {"B", 1},
}};

}  // namespace

std::expected<std::chrono::milliseconds, std::string> parseDuration(std::string_view text) {
  std::uint64_t value = 0;
  std::size_t digits = 0;
  if (!leadingInteger(text, value, digits)) {
    // Digits that overflow are still a number: say so rather than "not a duration".
    if (!text.empty() && text[0] >= '0' && text[0] <= '9') {
      return std::unexpected("is too large (at most " + formatDuration(kMaxDuration) + ")");
    }
    return std::unexpected(std::string(kDurationForms));
  }
  const std::string_view unit = text.substr(digits);
  std::uint64_t unit_ms = 0;
  if (unit == "ms") {
    unit_ms = 1;
  } else if (unit == "s") {
    unit_ms = 1000;
  } else if (unit == "m") {
    unit_ms = 60 * 1000;
  } else if (unit == "h") {
    unit_ms = 60 * 60 * 1000;
  } else {
    return std::unexpected(std::string(kDurationForms));
  }
  const auto max_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(kMaxDuration).count());
  if (value > max_ms / unit_ms) {
    return std::unexpected("is too large (at most " + formatDuration(kMaxDuration) + ")");
  }
  return std::chrono::milliseconds(static_cast<std::int64_t>(value * unit_ms));
}

std::expected<std::uint64_t, std::string> parseSize(std::string_view text) {
  std::uint64_t value = 0;
  std::size_t digits = 0;
  if (!leadingInteger(text, value, digits)) {
    if (!text.empty() && text[0] >= '0' && text[0] <= '9') {
      return std::unexpected(std::string("is too large"));
    }
    return std::unexpected(std::string(kSizeForms));
  }
  const std::string_view unit = text.substr(digits);
  if (unit.empty()) return value;
  for (const SizeUnit& candidate : kSizeUnits) {
    if (unit != candidate.name) continue;
    if (value > std::numeric_limits<std::uint64_t>::max() / candidate.bytes) {
      return std::unexpected(std::string("is too large"));
    }
    return value * candidate.bytes;
  }
  return std::unexpected(std::string(kSizeForms));
}

std::string formatDuration(std::chrono::milliseconds duration) {
  const std::int64_t ms = duration.count();
  // Minutes are skipped on purpose: "300s" reads better next to the defaults
  // than "5m", and hours are only used when exact.
  constexpr std::int64_t kHourMs = 60 * 60 * 1000;
  if (ms != 0 && ms % kHourMs == 0) return std::to_string(ms / kHourMs) + "h";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

std::string formatSize(std::uint64_t bytes) {
  if (bytes == 0) return "0B";
  for (const SizeUnit& unit : kSizeUnits) {
    if (bytes % unit.bytes == 0) return std::to_string(bytes / unit.bytes) + std::string(unit.name);
  }
  return std::to_string(bytes) + "B";  // unreachable: "B" divides everything
}

}  // namespace mcpgate::config
