#include "bench/loadgen_payload.h"

#include <gtest/gtest.h>

#include <string>

namespace mcpgate::bench {
namespace {

std::string replaceSecrets(const Payload& p, std::size_t keep_verbatim = SIZE_MAX) {
  std::string out;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < p.secrets.size(); ++i) {
    out.append(p.text, pos, p.secrets[i].offset - pos);
    out += i == keep_verbatim ? std::string(p.at(p.secrets[i])) : "[REDACTED:some-rule]";
    pos = p.secrets[i].offset + p.secrets[i].size;
  }
  out.append(p.text, pos);
  return out;
}

TEST(LoadgenPayload, ExactSizeAndNothingToEscape) {
  for (std::size_t bytes : {0, 1, 127, 128, 4096, 65536, 1048576}) {
    for (bool secrets : {false, true}) {
      const Payload p = makePayload(bytes, secrets);
      EXPECT_EQ(p.text.size(), bytes);
      EXPECT_EQ(p.text.find_first_of("\"\\\n\r\t"), std::string::npos);
      if (secrets && bytes >= kMinSecretsPayload) {
        EXPECT_EQ(p.secrets.size(), std::max<std::size_t>(1, bytes / kSecretSlot));
        EXPECT_EQ(p.fillers.size(), p.secrets.size() + 1);
      } else {
        EXPECT_TRUE(p.secrets.empty());
        EXPECT_EQ(p.text.find_first_not_of("abcdefghijklmnopqrstuvwxyz "), std::string::npos);
      }
    }
  }
  EXPECT_EQ(makePayload(4096, false).text, makePayload(4096, false).text);  // deterministic
}

TEST(LoadgenPayload, SecretsDifferAndSitBetweenSpaces) {
  const Payload p = makePayload(65536, true);
  ASSERT_EQ(p.secrets.size(), 16u);
  EXPECT_NE(p.at(p.secrets[0]), p.at(p.secrets[3]));
  for (const Span s : p.secrets) {
    EXPECT_EQ(p.text[s.offset - 1], ' ');
    EXPECT_EQ(p.text[s.offset + s.size], ' ');
  }
}

TEST(LoadgenPayload, ChecksExactRedactedLeakedAndMismatched) {
  const Payload p = makePayload(65536, true);
  EXPECT_EQ(checkEcho(p, p.text), EchoCheck::kExact);
  EXPECT_EQ(checkEcho(p, replaceSecrets(p)), EchoCheck::kRedacted);
  EXPECT_EQ(checkEcho(p, replaceSecrets(p, 5)), EchoCheck::kSecretLeaked);
  std::string changed = replaceSecrets(p);
  changed[changed.size() / 2] = changed[changed.size() / 2] == 'a' ? 'b' : 'a';
  EXPECT_EQ(checkEcho(p, changed), EchoCheck::kMismatch);
  EXPECT_EQ(checkEcho(p, replaceSecrets(p) + " "), EchoCheck::kMismatch);
  EXPECT_EQ(checkEcho(p, p.text.substr(1)), EchoCheck::kMismatch);

  const Payload plain = makePayload(4096, false);
  EXPECT_EQ(checkEcho(plain, plain.text), EchoCheck::kExact);
  EXPECT_EQ(checkEcho(plain, plain.text.substr(0, 4095)), EchoCheck::kMismatch);
}

}  // namespace
}  // namespace mcpgate::bench
