#include "config/address.h"

#include <gtest/gtest.h>

namespace mcpgate::config {
namespace {

TEST(ParseHostPort, AcceptsIpv4Ipv6AndNames) {
  auto v4 = parseHostPort("127.0.0.1:8080");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8080);

  auto v6 = parseHostPort("[::1]:9000");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->host, "::1");  // without brackets, as address parsers want it
  EXPECT_EQ(v6->port, 9000);

  auto name = parseHostPort("gateway-1.internal:443");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->host, "gateway-1.internal");

  auto any = parseHostPort("0.0.0.0:0");  // port 0: the tests bind an ephemeral port
  ASSERT_TRUE(any.has_value());
  EXPECT_EQ(any->port, 0);
  EXPECT_EQ(parseHostPort("localhost:65535")->port, 65535);
}

TEST(ParseHostPort, ExplainsWhatIsWrong) {
  const std::string form = "(use HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080)";
  EXPECT_EQ(parseHostPort("127.0.0.1").error(), "has no port " + form);
  EXPECT_EQ(parseHostPort("127.0.0.1:").error(), "has no port " + form);
  EXPECT_EQ(parseHostPort("[::1]").error(), "has no port " + form);
  EXPECT_EQ(parseHostPort("localhost:65536").error(),
            "has an invalid port '65536' (must be a number from 0 to 65535)");
  EXPECT_EQ(parseHostPort("localhost:http").error(),
            "has an invalid port 'http' (must be a number from 0 to 65535)");
  EXPECT_EQ(parseHostPort("::1:8080").error(), "needs brackets around the IPv6 address " + form);
  EXPECT_EQ(parseHostPort("[::g]:80").error(), "has an invalid IPv6 address '::g' " + form);
  EXPECT_EQ(parseHostPort("300.0.0.1:80").error(), "has an invalid host '300.0.0.1' " + form);
  EXPECT_EQ(parseHostPort("my host:80").error(), "has an invalid host 'my host' " + form);
  EXPECT_EQ(parseHostPort(":80").error(), "has an invalid host '' " + form);
  EXPECT_EQ(parseHostPort("-bad.example:80").error(), "has an invalid host '-bad.example' " + form);
}

TEST(FormatHostPort, BracketsIpv6Only) {
  EXPECT_EQ(formatHostPort("::1", 8080), "[::1]:8080");
  EXPECT_EQ(formatHostPort("127.0.0.1", 0), "127.0.0.1:0");
}

}  // namespace
}  // namespace mcpgate::config
