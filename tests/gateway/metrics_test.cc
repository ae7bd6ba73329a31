// The metrics registry's text format, on its own.

#include "gateway/observe/metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpgate::gateway::metrics {
namespace {

TEST(Metrics, LabelValuesAreEscapedAsTheExpositionFormatSays) {
  EXPECT_EQ(escapeLabelValue("plain"), "plain");
  EXPECT_EQ(escapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(Metrics, OnlyMcpMethodNamesBecomeLabels) {
  EXPECT_EQ(methodLabel("tools/call"), "tools/call");
  EXPECT_EQ(methodLabel("resources/read"), "resources/read");
  EXPECT_EQ(methodLabel("tools/call2"), "other");
  EXPECT_EQ(methodLabel(""), "other");
}

TEST(Metrics, AHistogramHasCumulativeBucketsSumAndCount) {
  requestDone("unit", "ping", "ok", std::chrono::milliseconds(3));
  requestDone("unit", "ping", "ok", std::chrono::seconds(100));
  const std::string text = render();
  EXPECT_NE(text.find("# TYPE mcpgate_request_duration_seconds histogram\n"), std::string::npos);
  const std::string series =
      "mcpgate_request_duration_seconds_bucket{server=\"unit\",method=\"ping\",";
  EXPECT_NE(text.find(series + "le=\"0.0025\"} 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find(series + "le=\"0.005\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find(series + "le=\"30\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find(series + "le=\"+Inf\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(
      text.find("mcpgate_request_duration_seconds_sum{server=\"unit\",method=\"ping\"} 100.003"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find("mcpgate_request_duration_seconds_count{server=\"unit\",method=\"ping\"} 2\n"),
      std::string::npos);
  EXPECT_NE(
      text.find(
          "mcpgate_jsonrpc_requests_total{server=\"unit\",method=\"ping\",outcome=\"ok\"} 2\n"),
      std::string::npos);
}

TEST(Metrics, ReadinessSaysWhyNot) {
  EXPECT_EQ(notReadyReason(), "starting");
  setReady();
  EXPECT_EQ(notReadyReason(), std::nullopt);
  setNotReady("shutting down");
  EXPECT_EQ(notReadyReason(), "shutting down");
}

}  // namespace
}  // namespace mcpgate::gateway::metrics
