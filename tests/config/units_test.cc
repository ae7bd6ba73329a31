#include "config/units.h"

#include <gtest/gtest.h>

namespace mcpgate::config {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(ParseDuration, AcceptsEveryUnit) {
  EXPECT_EQ(parseDuration("250ms"), milliseconds(250));
  EXPECT_EQ(parseDuration("10s"), seconds(10));
  EXPECT_EQ(parseDuration("5m"), minutes(5));
  EXPECT_EQ(parseDuration("1h"), hours(1));
  EXPECT_EQ(parseDuration("0s"), milliseconds(0));  // callers decide whether 0 is allowed
}

TEST(ParseDuration, RejectsOtherFormsAndNamesTheAcceptedOnes) {
  const std::string forms =
      "is not a duration (use an integer followed by ms, s, m or h, e.g. 250ms, 10s, 5m, 1h)";
  for (const char* bad : {"", "10", "s", "1.5s", "-1s", "10 s", "10S", "10sec", "1d", " 1s"}) {
    auto parsed = parseDuration(bad);
    ASSERT_FALSE(parsed.has_value()) << bad;
    EXPECT_EQ(parsed.error(), forms) << bad;
  }
}

TEST(ParseDuration, RejectsValuesPastOneYear) {
  EXPECT_EQ(parseDuration("8760h"), hours(8760));
  EXPECT_EQ(parseDuration("8761h").error(), "is too large (at most 8760h)");
  EXPECT_EQ(parseDuration("99999999999999999999999ms").error(), "is too large (at most 8760h)");
}

TEST(FormatDuration, PicksHoursOnlyWhenExactThenSeconds) {
  EXPECT_EQ(formatDuration(seconds(300)), "300s");
  EXPECT_EQ(formatDuration(minutes(5)), "300s");
  EXPECT_EQ(formatDuration(hours(2)), "2h");
  EXPECT_EQ(formatDuration(milliseconds(1500)), "1500ms");
  EXPECT_EQ(formatDuration(milliseconds(0)), "0s");
}

TEST(ParseSize, AcceptsBytesAndEveryUnit) {
  EXPECT_EQ(parseSize("4096"), 4096U);
  EXPECT_EQ(parseSize("7B"), 7U);
  EXPECT_EQ(parseSize("2KiB"), 2048U);
  EXPECT_EQ(parseSize("4MiB"), 4U * 1024 * 1024);
  EXPECT_EQ(parseSize("1GiB"), 1024U * 1024 * 1024);
  EXPECT_EQ(parseSize("2KB"), 2000U);
  EXPECT_EQ(parseSize("3MB"), 3000000U);
  EXPECT_EQ(parseSize("1GB"), 1000000000U);
}

TEST(ParseSize, RejectsOtherFormsAndNamesTheAcceptedOnes) {
  const std::string forms =
      "is not a size (use an integer number of bytes, optionally followed by B, KiB, MiB, GiB, "
      "KB, MB or GB, e.g. 4MiB)";
  for (const char* bad : {"", "MiB", "4 MiB", "4mib", "4M", "1.5MiB", "-1", "4TiB", "0x10"}) {
    auto parsed = parseSize(bad);
    ASSERT_FALSE(parsed.has_value()) << bad;
    EXPECT_EQ(parsed.error(), forms) << bad;
  }
}

TEST(ParseSize, RejectsOverflow) {
  EXPECT_EQ(parseSize("18446744073709551615"), 18446744073709551615ULL);
  EXPECT_EQ(parseSize("18446744073709551616").error(), "is too large");
  EXPECT_EQ(parseSize("17179869184GiB").error(), "is too large");
}

TEST(FormatSize, UsesTheLargestExactUnit) {
  EXPECT_EQ(formatSize(4 * 1024 * 1024), "4MiB");
  EXPECT_EQ(formatSize(16 * 1024 * 1024), "16MiB");
  EXPECT_EQ(formatSize(2000000000), "2GB");
  EXPECT_EQ(formatSize(1536), "1536B");  // 1.5KiB has no integer spelling
  EXPECT_EQ(formatSize(1001), "1001B");
  EXPECT_EQ(formatSize(0), "0B");
}

TEST(FormatSize, RoundTripsThroughParseSize) {
  for (std::uint64_t bytes : {1ULL, 1000ULL, 1024ULL, 123456789ULL, 5ULL << 30, 3000000000ULL}) {
    EXPECT_EQ(parseSize(formatSize(bytes)), bytes) << formatSize(bytes);
  }
}

}  // namespace
}  // namespace mcpgate::config
