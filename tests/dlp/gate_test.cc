#include "dlp/gate.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "dlp/scanner.h"
#include "test_util.h"

namespace mcpgate::dlp {
namespace {

using Windows = std::vector<std::pair<std::size_t, std::size_t>>;

Windows windowsOf(const Gates& g, std::string_view text, std::size_t reach = 0) {
  Windows w;
  g.windows(text, reach, w);
  return w;
}

TEST(ByteClass, ParsesRangesSinglesAndEscapes) {
  const auto c = parseByteClass("[0-9 \\-A-C]");
  ASSERT_TRUE(c) << c.error();
  EXPECT_EQ(c->ranges, (std::vector<std::pair<std::uint8_t, std::uint8_t>>{
                           {' ', ' '}, {'-', '-'}, {'0', '9'}, {'A', 'C'}}));
  EXPECT_FALSE(parseByteClass("0-9"));
  EXPECT_FALSE(parseByteClass("[^0-9]"));
  EXPECT_FALSE(parseByteClass("[9-0]"));
  EXPECT_FALSE(parseByteClass("[]"));
}

TEST(Gates, FindsRunsWithEnoughCountedBytes) {
  Gates g;
  ASSERT_TRUE(g.add({"[0-9 -]", "[0-9]", 16}));
  EXPECT_EQ(windowsOf(g, "card 4111 1111 1111 1111 x"), (Windows{{4, 25}}));
  EXPECT_EQ(windowsOf(g, "4111111111111111"), (Windows{{0, 16}}));
  // Spaces alone (indentation) and too few digits do not open a window.
  EXPECT_TRUE(windowsOf(g, std::string(200, ' ') + "x").empty());
  EXPECT_TRUE(windowsOf(g, "id 411111111111111 and 2026-11-20 12").empty());
  // Widened by the reach, clipped to the text.
  EXPECT_EQ(windowsOf(g, "ab 4111111111111111 cd", 5), (Windows{{0, 22}}));
}

TEST(Gates, RunsCrossingWordBoundariesAreFound) {
  Gates g;
  ASSERT_TRUE(g.add({"[0-9 -]", "[0-9]", 16}));
  const std::string card = "4111111111111111";
  // Every position of the card relative to the 64-byte words of the bitmaps.
  for (std::size_t pad = 0; pad < 140; ++pad) {
    const std::string text = std::string(pad, 'x') + card + "y" + std::string(pad % 70, 'z');
    EXPECT_EQ(windowsOf(g, text), (Windows{{pad, pad + card.size()}})) << "pad " << pad;
  }
  // A run that starts at a word's first byte after a non-class byte ends the previous word.
  const std::string text = std::string(63, ' ') + "x" + "   " + card + " ";
  EXPECT_EQ(windowsOf(g, text), (Windows{{64, 64 + 3 + card.size() + 1}}));
  // A long run spanning several words counts all its digits.
  const std::string sparse = "x" + std::string(100, ' ') + "1 2 3 4 5 6 7 8" +
                             std::string(100, ' ') + "9 0 1 2 3 4 5 6" + "x";
  EXPECT_EQ(windowsOf(g, sparse), (Windows{{1, sparse.size() - 1}}));
}

TEST(Gates, TwoGatesMergeOverlappingWindows) {
  Gates g;
  ASSERT_TRUE(g.add({"[0-9 -]", "[0-9]", 16}));
  ASSERT_TRUE(g.add({"[A-Z0-9 ]", "[A-Z]", 3}));
  ASSERT_TRUE(g.add({"[0-9 -]", "[0-9]", 15}));  // same classes: the smaller min wins
  EXPECT_EQ(windowsOf(g, "x 411111111111111 y"), (Windows{{1, 18}}));
  EXPECT_EQ(windowsOf(g, "ni AB123456C and 4111111111111111.", 4), (Windows{{0, 34}}));
  EXPECT_FALSE(g.add({"[0-9]", "[0-9]", 0}));
  EXPECT_FALSE(g.add({"[0-9]", "[0-9]", kMaxGateMin + 1}));
}

TEST(Gates, ManyClassesFallBackToRangeComparesWithTheSameResult) {
  // More distinct nibble rectangles than the 8 bits of the AVX2 tables: the SSE2 range path runs.
  Gates g;
  ASSERT_TRUE(g.add({"[0-9 -]", "[0-9]", 16}));
  const char* letters[] = {"[A]", "[AB]", "[A-C]", "[A-D]", "[A-E]", "[A-F]", "[A-G]", "[A-H]"};
  for (const char* c : letters) ASSERT_TRUE(g.add({c, c, 60}));
  const std::string card = "4111111111111111";
  for (std::size_t pad = 0; pad < 130; pad += 7) {
    const std::string text = std::string(pad, 'x') + card + "y";
    EXPECT_EQ(windowsOf(g, text), (Windows{{pad, pad + card.size()}})) << "pad " << pad;
  }
  EXPECT_TRUE(windowsOf(g, std::string(100, 'A') + "!").size() == 1);
}

// The gate only narrows where Hyperscan looks: a gated rule finds exactly what it finds without
// the gate, wherever the match sits in a long text.
TEST(Gates, GatedRuleFindsWhatTheUngatedRuleFinds) {
  const std::string rule = R"(
rules:
  - id: card
    description: card
    pattern: '(?:^|[^0-9])(4[0-9]{3}(?:[ -]?[0-9]{4}){3})(?:[^0-9]|$)'
    secret_group: 1
    validator: luhn
)";
  const auto plain = testing::rulesFromYaml(rule);
  const auto gated =
      testing::rulesFromYaml(rule + "    gate: {run: '[0-9 -]', count: '[0-9]', min: 16}\n");
  ASSERT_TRUE(plain && gated);
  ASSERT_NE(gated->gatedDatabase(), nullptr);
  EXPECT_EQ(gated->database(), nullptr);
  const Scanner a(plain), b(gated);
  std::string text;
  for (int i = 0; i < 300; ++i) {
    text += std::string(static_cast<std::size_t>(i % 67), i % 3 == 0 ? ' ' : 'q');
    text += i % 2 == 0 ? "4111 1111 1111 1111" : "4111-1111-1111-1111";
    text += i % 5 == 0 ? "\n" : ", 2026-11-20 12345 ";
  }
  const auto fa = a.scanText(text, Direction::kRequest);
  const auto fb = b.scanText(text, Direction::kRequest);
  ASSERT_GE(fa.items.size(), 290u);
  ASSERT_EQ(fb.items.size(), fa.items.size());
  for (std::size_t i = 0; i < fa.items.size(); ++i) {
    EXPECT_EQ(fb.items[i].start, fa.items[i].start);
    EXPECT_EQ(fb.items[i].end, fa.items[i].end);
  }
}

TEST(Gates, RuleLoadingChecksTheGate) {
  const auto bad = loadRuleText(R"(
rules:
  - id: card
    pattern: '[0-9]{16}'
    gate: {run: '[0-9', count: '[0-9]', min: 16}
)",
                                "gate.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("gate.yaml:"), std::string::npos) << bad.error().message;
  const auto unbounded = loadRuleText(R"(
rules:
  - id: digits
    pattern: '[0-9]{16,}'
    gate: {run: '[0-9]', count: '[0-9]', min: 16}
)",
                                      "gate.yaml");
  ASSERT_FALSE(unbounded);
  EXPECT_NE(unbounded.error().message.find("bounded"), std::string::npos);
}

}  // namespace
}  // namespace mcpgate::dlp
