#include "dlp/validators.h"

#include <gtest/gtest.h>

namespace mcpgate::dlp {
namespace {

TEST(Luhn, AcceptsValidCardNumbers) {
  EXPECT_TRUE(luhnValid("4111111111111111"));
  EXPECT_TRUE(luhnValid("4111 1111 1111 1111"));
  EXPECT_TRUE(luhnValid("5555-5555-5555-4444"));
  EXPECT_TRUE(luhnValid("378282246310005"));  // Amex, 15 digits
}

TEST(Luhn, RejectsWrongCheckDigitLengthAndCharacters) {
  EXPECT_FALSE(luhnValid("4111111111111112"));
  EXPECT_FALSE(luhnValid("0000000000"));  // valid sum but too short for a card
  EXPECT_FALSE(luhnValid("41111111111111111111"));
  EXPECT_FALSE(luhnValid("4111a11111111111"));
  EXPECT_FALSE(luhnValid(""));
}

TEST(Iban, AcceptsValidIbansInAnyCaseAndGrouping) {
  EXPECT_TRUE(ibanValid("DE89370400440532013000"));
  EXPECT_TRUE(ibanValid("GB82 WEST 1234 5698 7654 32"));
  EXPECT_TRUE(ibanValid("gb82west12345698765432"));
  EXPECT_TRUE(ibanValid("NO9386011117947"));  // shortest in use
}

TEST(Iban, RejectsBadChecksumAndShape) {
  EXPECT_FALSE(ibanValid("DE88370400440532013000"));
  EXPECT_FALSE(ibanValid("GB82WEST1234569876543"));
  EXPECT_FALSE(ibanValid("1282WEST12345698765432"));
  EXPECT_FALSE(ibanValid("DE89-3704-0044-0532-0130-00"));
  EXPECT_FALSE(ibanValid("DE8937040044053201300012345678901234567"));
}

TEST(Entropy, MeasuresBitsPerCharacter) {
  EXPECT_DOUBLE_EQ(shannonEntropy(""), 0.0);
  EXPECT_DOUBLE_EQ(shannonEntropy("aaaaaaaa"), 0.0);
  EXPECT_DOUBLE_EQ(shannonEntropy("abababab"), 1.0);
  EXPECT_DOUBLE_EQ(shannonEntropy("0123456789abcdef"), 4.0);
  EXPECT_GT(shannonEntropy("q8Zt3LmW9xPv2RkN7sYb4HcJ6dFg1TnE"), 4.5);
}

}  // namespace
}  // namespace mcpgate::dlp
