// The sealed requestState: what comes back from a client is trusted only as
// far as the seal proves, and each refusal says why.

#include "gateway/modern/request_state.h"

#include <gtest/gtest.h>

#include "common/encoding.h"

namespace mcpgate::gateway::modern {
namespace {

using std::chrono::minutes;
using std::chrono::system_clock;

const system_clock::time_point kNow = system_clock::time_point(std::chrono::hours(490000));

StateClaims claims() { return {"alice", "files", "ticket-1", "tools/call", kNow + minutes(5)}; }

StateSealer sealer(unsigned char fill = 7, std::uint64_t instance = 42) {
  std::array<unsigned char, 32> key{};
  key.fill(fill);
  return StateSealer(key, instance);
}

TEST(RequestState, RoundTripsForTheClientItWasMintedFor) {
  auto s = sealer();
  auto sealed = s.seal(claims());
  ASSERT_TRUE(sealed);
  EXPECT_LT(sealed->size(), 400U);
  EXPECT_EQ(sealed->find("alice"), std::string::npos);  // not readable
  auto opened = s.open(*sealed, "alice", "files", "tools/call", kNow);
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(opened->ticket, "ticket-1");
  // Two seals of the same claims differ (a fresh nonce each time).
  EXPECT_NE(*s.seal(claims()), *sealed);
}

TEST(RequestState, AnotherClientIsRefused) {
  auto s = sealer();
  auto opened = s.open(*s.seal(claims()), "mallory", "files", "tools/call", kNow);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().kind, StateError::Kind::kOtherClient);
}

TEST(RequestState, ExpiredIsRefused) {
  auto s = sealer();
  auto opened = s.open(*s.seal(claims()), "alice", "files", "tools/call", kNow + minutes(6));
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().kind, StateError::Kind::kExpired);
}

TEST(RequestState, AnotherServerOrMethodIsTheWrongPlace) {
  auto s = sealer();
  const std::string sealed = *s.seal(claims());
  auto server = s.open(sealed, "alice", "shell", "tools/call", kNow);
  ASSERT_FALSE(server);
  EXPECT_EQ(server.error().kind, StateError::Kind::kWrongPlace);
  auto method = s.open(sealed, "alice", "files", "prompts/get", kNow);
  ASSERT_FALSE(method);
  EXPECT_EQ(method.error().kind, StateError::Kind::kWrongPlace);
}

TEST(RequestState, AFlippedBitIsForged) {
  auto s = sealer();
  const std::string sealed = *s.seal(claims());
  ASSERT_TRUE(isGatewayState(sealed));
  std::string raw = *common::decodeBase64Url(sealed.substr(kRequestStatePrefix.size()));
  for (std::size_t at : {std::size_t{9}, std::size_t{25}, raw.size() - 1}) {
    std::string bad = raw;
    bad[at] = static_cast<char>(bad[at] ^ 1);
    auto opened = s.open(std::string(kRequestStatePrefix) + common::encodeBase64Url(bad), "alice", "files", "tools/call", kNow);
    ASSERT_FALSE(opened) << at;
    EXPECT_EQ(opened.error().kind, StateError::Kind::kForged) << at;
  }
}

TEST(RequestState, AnotherKeyIsForgedAndAnotherInstanceIsElsewhere) {
  const std::string sealed = *sealer(7, 42).seal(claims());
  auto other_key = sealer(8, 42).open(sealed, "alice", "files", "tools/call", kNow);
  ASSERT_FALSE(other_key);
  EXPECT_EQ(other_key.error().kind, StateError::Kind::kForged);
  auto restarted = sealer(8, 43).open(sealed, "alice", "files", "tools/call", kNow);
  ASSERT_FALSE(restarted);
  EXPECT_EQ(restarted.error().kind, StateError::Kind::kElsewhere);
  EXPECT_NE(restarted.error().message.find("send the original request again"), std::string::npos);
}

TEST(RequestState, GarbageAndOversizeAreRefusedUnread) {
  auto s = sealer();
  for (std::string_view junk : {"", "not base64 !", "AAAA", "eyJhIjoxfQ", "mcpgate.1.AAAA", "mcpgate.1.%%"}) {
    auto opened = s.open(junk, "alice", "files", "tools/call", kNow);
    ASSERT_FALSE(opened) << junk;
    EXPECT_EQ(opened.error().kind, StateError::Kind::kMalformed) << junk;
  }
  auto huge = s.open(std::string(kMaxRequestStateBytes + 1, 'A'), "alice", "files", "tools/call",
                     kNow);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().kind, StateError::Kind::kTooLarge);
}

TEST(RequestState, FreshSealersHaveTheirOwnKeys) {
  auto a = StateSealer::create();
  auto b = StateSealer::create();
  ASSERT_TRUE(a && b);
  const std::string sealed = *a->seal(claims());
  EXPECT_TRUE(a->open(sealed, "alice", "files", "tools/call", kNow));
  auto opened = b->open(sealed, "alice", "files", "tools/call", kNow);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().kind, StateError::Kind::kElsewhere);
}

}  // namespace
}  // namespace mcpgate::gateway::modern
