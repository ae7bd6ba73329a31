// The structured log: one JSON object per line on stderr.

#include "gateway/observe/log.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace mcpgate::gateway::log {
namespace {

using nlohmann::json;

std::vector<json> captured(const std::function<void()>& logSome) {
  ::testing::internal::CaptureStderr();
  logSome();
  std::istringstream in(::testing::internal::GetCapturedStderr());
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  return lines;
}

TEST(Log, LinesCarryTimeLevelMessageAndFields) {
  auto lines = captured([] { warn("server exited", {{"server", "fs"}, {"pid", 42}}); });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["level"], "warn");
  EXPECT_EQ(lines[0]["msg"], "server exited");
  EXPECT_EQ(lines[0]["server"], "fs");
  EXPECT_EQ(lines[0]["pid"], 42);
  EXPECT_TRUE(lines[0]["time"].get<std::string>().ends_with("Z"));
}

TEST(Log, ALineIsCompactJsonInAFixedOrder) {
  ::testing::internal::CaptureStderr();
  warn("m \"quoted\"", {{"b", {{"c", json::array({true, nullptr, 1.5})}}}, {"a", "x\ny"}});
  const std::string text = ::testing::internal::GetCapturedStderr();
  // time, level, msg, then the fields by name; one line.
  const std::string rest = R"(,"level":"warn","msg":"m \"quoted\"","a":"x\ny","b":{"c":[true,null,1.5]}})";
  ASSERT_TRUE(text.starts_with(R"({"time":")")) << text;
  EXPECT_TRUE(text.ends_with(rest + "\n")) << text;
  EXPECT_EQ(text.find('\n'), text.size() - 1);
}

TEST(Log, LevelsBelowTheSetOneAreDropped) {
  ASSERT_TRUE(setLevel("warn"));
  auto lines = captured([] {
    debug("d");
    info("i");
    warn("w");
    error("e");
  });
  ASSERT_TRUE(setLevel("info"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["msg"], "w");
  EXPECT_EQ(lines[1]["level"], "error");
  EXPECT_FALSE(setLevel("verbose"));
}

TEST(Log, AFieldCannotReplaceTheMessageOrLevel) {
  auto lines = captured([] { info("real", {{"msg", "forged"}, {"level", "error"}}); });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["msg"], "real");
  EXPECT_EQ(lines[0]["level"], "info");
  EXPECT_EQ(lines[0]["field_msg"], "forged");
}

TEST(Log, InvalidUtf8IsReplacedNotThrown) {
  auto lines = captured([] { info("stderr", {{"line", std::string("bad \xff byte")}}); });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0]["line"].get<std::string>().find("bad "), std::string::npos);
}

}  // namespace
}  // namespace mcpgate::gateway::log
