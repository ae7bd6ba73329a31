// The egress decision on resolved addresses. Nothing here connects anywhere:
// every refusal of metadata, link-local, private and loopback ranges is
// proven on the decision itself.

#include "egress/allowlist.h"

#include <gtest/gtest.h>

namespace mcpgate::egress {
namespace {

std::vector<AllowEntry> entries(std::initializer_list<const char*> texts) {
  std::vector<AllowEntry> out;
  for (const char* t : texts) {
    auto e = parseAllowEntry(t);
    EXPECT_TRUE(e) << t << ": " << e.error();
    if (e) out.push_back(*e);
  }
  return out;
}

IpAddress ip(const char* text) {
  auto a = parseIp(text);
  EXPECT_TRUE(a) << text;
  return a.value_or(IpAddress{});
}

Decision check(const std::vector<AllowEntry>& list, const char* host, const char* address,
               std::uint16_t port, const OwnEndpoints& own = {}) {
  return decide(list, host, ip(address), port, own);
}

TEST(AddressClassTest, SpecialRangesInEveryForm) {
  const std::pair<const char*, AddressClass> cases[] = {
      {"169.254.169.254", AddressClass::kMetadata},
      {"::ffff:169.254.169.254", AddressClass::kMetadata},
      {"::ffff:a9fe:a9fe", AddressClass::kMetadata},
      {"64:ff9b::a9fe:a9fe", AddressClass::kMetadata},  // NAT64 of 169.254.169.254
      {"2002:a9fe:a9fe::1", AddressClass::kMetadata},   // 6to4 of it
      {"fd00:ec2::254", AddressClass::kMetadata},
      {"100.100.100.200", AddressClass::kMetadata},
      {"168.63.129.16", AddressClass::kMetadata},
      {"169.254.1.1", AddressClass::kLinkLocal},
      {"fe80::1", AddressClass::kLinkLocal},
      {"127.0.0.1", AddressClass::kLoopback},
      {"127.255.0.9", AddressClass::kLoopback},
      {"::ffff:127.0.0.1", AddressClass::kLoopback},
      {"::1", AddressClass::kLoopback},
      {"::", AddressClass::kLoopback},
      {"0.0.0.0", AddressClass::kLoopback},
      {"::127.0.0.1", AddressClass::kLoopback},  // IPv4-compatible
      {"10.1.2.3", AddressClass::kPrivate},
      {"172.16.0.1", AddressClass::kPrivate},
      {"172.31.255.255", AddressClass::kPrivate},
      {"192.168.1.1", AddressClass::kPrivate},
      {"::ffff:192.168.1.1", AddressClass::kPrivate},
      {"100.64.0.1", AddressClass::kPrivate},
      {"100.127.255.255", AddressClass::kPrivate},
      {"fc00::1", AddressClass::kPrivate},
      {"fd12:3456::1", AddressClass::kPrivate},
      {"224.0.0.1", AddressClass::kReserved},
      {"255.255.255.255", AddressClass::kReserved},
      {"ff02::1", AddressClass::kReserved},
      {"192.0.2.10", AddressClass::kReserved},
      {"8.8.8.8", AddressClass::kPublic},
      {"172.32.0.1", AddressClass::kPublic},
      {"100.128.0.1", AddressClass::kPublic},
      {"2606:4700::1111", AddressClass::kPublic},
      {"::ffff:8.8.8.8", AddressClass::kPublic},
  };
  for (const auto& [text, expected] : cases) {
    EXPECT_EQ(classify(ip(text)), expected) << text;
  }
}

TEST(AllowEntryTest, ParsesEveryForm) {
  auto host = parseAllowEntry("API.Example.com.:443");
  ASSERT_TRUE(host);
  EXPECT_EQ(host->kind, AllowEntry::Kind::kHost);
  EXPECT_EQ(host->host, "api.example.com");
  EXPECT_EQ(host->ports->first, 443);
  auto wild = parseAllowEntry("*.example.com");
  ASSERT_TRUE(wild);
  EXPECT_EQ(wild->kind, AllowEntry::Kind::kWildcard);
  EXPECT_FALSE(wild->ports);
  auto cidr = parseAllowEntry("10.1.0.0/16:8000-8100");
  ASSERT_TRUE(cidr);
  EXPECT_EQ(cidr->prefix, 96u + 16u);
  EXPECT_EQ(cidr->ports->last, 8100);
  EXPECT_TRUE(parseAllowEntry("[2001:db8::/32]:443"));
  EXPECT_TRUE(parseAllowEntry("2001:db8::1"));
  EXPECT_TRUE(parseAllowEntry("127.0.0.1:5000")->singleAddress());
  for (const char* bad : {"", "*", "a.*.com", "ex ample.com", "host:0", "host:70000", "host:9-1",
                          "10.0.0.1/24", "10.0.0.0/33", "[::1", "[::1]x", "host:", "a..b"}) {
    EXPECT_FALSE(parseAllowEntry(bad)) << bad;
  }
}

TEST(EgressDecisionTest, MetadataIsRefusedEvenUnderAListedNameOrACoveringCidr) {
  const auto list = entries({"api.example.com", "169.254.0.0/16", "0.0.0.0/0", "::/0"});
  for (const char* address :
       {"169.254.169.254", "::ffff:169.254.169.254", "fd00:ec2::254", "100.100.100.200"}) {
    const Decision d = check(list, "api.example.com", address, 80);
    EXPECT_FALSE(d.allowed) << address;
    EXPECT_EQ(d.address_class, AddressClass::kMetadata) << address;
  }
  EXPECT_TRUE(
      check(entries({"169.254.169.254:80"}), "169.254.169.254", "169.254.169.254", 80).allowed);
}

TEST(EgressDecisionTest, AListedNameResolvingToASpecialAddressIsRefused) {
  const auto list = entries({"api.example.com", "*.example.org"});
  for (const char* address :
       {"127.0.0.1", "::1", "::ffff:127.0.0.1", "10.0.0.5", "192.168.0.1", "100.64.1.1", "fd00::5",
        "fe80::1", "169.254.3.3", "0.0.0.0", "::ffff:10.0.0.5", "64:ff9b::a00:5"}) {
    const Decision d = check(list, "api.example.com", address, 443);
    EXPECT_FALSE(d.allowed) << address;
    EXPECT_NE(d.reason.find("resolved there"), std::string::npos) << d.reason;
  }
  EXPECT_TRUE(check(list, "api.example.com", "93.184.216.34", 443).allowed);
  EXPECT_TRUE(check(list, "a.b.example.org", "93.184.216.34", 443).allowed);
  EXPECT_FALSE(check(list, "example.org", "93.184.216.34", 443).allowed);
  EXPECT_FALSE(check(list, "other.example.net", "93.184.216.34", 443).allowed);
  EXPECT_FALSE(check(list, "93.184.216.34", "93.184.216.34", 443).allowed);  // literal, not listed
}

TEST(EgressDecisionTest, SpecialRangesOpenOnlyToAnAddressOrCidrEntryWithTheRightPort) {
  const auto list = entries({"127.0.0.1:5000", "10.1.0.0/16:443"});
  EXPECT_TRUE(check(list, "127.0.0.1", "127.0.0.1", 5000).allowed);
  EXPECT_FALSE(check(list, "127.0.0.1", "127.0.0.1", 5001).allowed);
  EXPECT_FALSE(check(list, "127.0.0.2", "127.0.0.2", 5000).allowed);
  EXPECT_TRUE(check(list, "db.internal", "10.1.200.3", 443).allowed);
  EXPECT_TRUE(check(list, "10.1.200.3", "::ffff:10.1.200.3", 443).allowed);
  EXPECT_FALSE(check(list, "10.2.0.1", "10.2.0.1", 443).allowed);
  EXPECT_FALSE(check(list, "10.1.0.1", "10.1.0.1", 80).allowed);
}

TEST(EgressDecisionTest, TheGatewaysOwnListenersNeedAnExactEntry) {
  OwnEndpoints own;
  own.listeners.push_back({ip("0.0.0.0"), 8080, true});
  own.listeners.push_back({ip("127.0.0.1"), 9090, false});
  own.local_addresses.push_back(ip("203.0.113.50"));
  own.local_addresses.push_back(ip("198.51.100.9"));
  const auto broad = entries({"127.0.0.0/8", "0.0.0.0/0"});
  EXPECT_FALSE(check(broad, "127.0.0.1", "127.0.0.1", 8080, own).allowed);
  EXPECT_FALSE(check(broad, "127.0.0.5", "127.0.0.5", 8080, own).allowed);
  EXPECT_FALSE(check(broad, "198.51.100.9", "198.51.100.9", 8080, own).allowed);
  EXPECT_FALSE(check(broad, "127.0.0.1", "127.0.0.1", 9090, own).allowed);
  EXPECT_TRUE(check(broad, "127.0.0.1", "127.0.0.1", 9091, own).allowed);
  EXPECT_FALSE(check(entries({"127.0.0.1"}), "127.0.0.1", "127.0.0.1", 9090, own).allowed);
  EXPECT_TRUE(check(entries({"127.0.0.1:9090"}), "127.0.0.1", "127.0.0.1", 9090, own).allowed);
}

TEST(EgressDecisionTest, AnEmptyListAllowsNothing) {
  EXPECT_FALSE(check({}, "api.example.com", "93.184.216.34", 443).allowed);
  EXPECT_FALSE(nameListed({}, "api.example.com", 443));
  const auto list = entries({"api.example.com:443", "*.example.org"});
  EXPECT_TRUE(nameListed(list, "API.example.com.", 443));
  EXPECT_FALSE(nameListed(list, "api.example.com", 80));
  EXPECT_TRUE(nameListed(list, "x.example.org", 80));
  EXPECT_FALSE(nameListed(list, "evil.com", 443));
}

// network: host: the supervisor's decision on the address it copied from a
// connect or an addressed send.
OwnEndpoints gatewayOnPort(std::uint16_t port) {
  OwnEndpoints own;
  own.listeners.push_back({ip("0.0.0.0"), port, true});
  own.local_addresses.push_back(ip("192.0.2.10"));  // an address of this host
  own.local_addresses.push_back(ip("fe80::5"));
  return own;
}

bool hostAllows(const std::vector<AllowEntry>& list, const char* address, std::uint16_t port,
                const OwnEndpoints& own = {}) {
  return decideHost(list, ip(address), port, own).allowed;
}

TEST(HostDecisionTest, MetadataIsRefusedInEveryForm) {
  for (const char* a : {"169.254.169.254", "::ffff:169.254.169.254", "::ffff:a9fe:a9fe",
                        "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "::169.254.169.254",
                        "fd00:ec2::254", "100.100.100.200", "168.63.129.16", "169.254.170.2"}) {
    const Decision d = decideHost({}, ip(a), 80, {});
    EXPECT_FALSE(d.allowed) << a;
    EXPECT_EQ(d.address_class, AddressClass::kMetadata) << a;
    EXPECT_NE(d.reason.find("metadata"), std::string::npos) << d.reason;
  }
}

TEST(HostDecisionTest, LinkLocalIsRefusedInEveryForm) {
  for (const char* a : {"169.254.0.1", "169.254.255.254", "::ffff:169.254.7.7", "fe80::1",
                        "febf:ffff::1", "64:ff9b::a9fe:0101"}) {
    EXPECT_FALSE(hostAllows({}, a, 443)) << a;
  }
}

TEST(HostDecisionTest, LoopbackPrivateAndPublicStayOpen) {
  for (const char* a : {"127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "10.0.0.2",
                        "192.168.1.1", "fd12::1", "93.184.216.34", "2606:4700::1"}) {
    const Decision d = decideHost({}, ip(a), 443, gatewayOnPort(8080));
    EXPECT_TRUE(d.allowed) << a;
    EXPECT_EQ(d.entry, "network: host");
  }
}

TEST(HostDecisionTest, TheGatewaysPortIsRefusedOnEveryLocalAddress) {
  const OwnEndpoints own = gatewayOnPort(8080);
  for (const char* a : {"127.0.0.1", "127.0.0.53", "::1", "::ffff:127.0.0.1", "0.0.0.0",
                        "::", "192.0.2.10", "::ffff:192.0.2.10"}) {
    const Decision d = decideHost({}, ip(a), 8080, own);
    EXPECT_FALSE(d.allowed) << a;
    EXPECT_NE(d.reason.find("gateway's own"), std::string::npos) << d.reason;
  }
  EXPECT_TRUE(hostAllows({}, "127.0.0.1", 8081, own));
  EXPECT_TRUE(hostAllows({}, "10.9.9.9", 8080, own));  // not this host's address
}

TEST(HostDecisionTest, ExceptionsOpenOnlyWhatTheyName) {
  const auto list = entries({"169.254.169.253:53", "fe80::/10", "127.0.0.1:8080"});
  EXPECT_TRUE(hostAllows(list, "169.254.169.253", 53));  // a link-local resolver
  EXPECT_FALSE(hostAllows(list, "169.254.169.253", 80));
  EXPECT_FALSE(hostAllows(list, "169.254.169.254", 53));  // metadata needs its own address
  EXPECT_TRUE(hostAllows(list, "fe80::1234", 22));
  EXPECT_TRUE(hostAllows(list, "127.0.0.1", 8080, gatewayOnPort(8080)));
  EXPECT_FALSE(hostAllows(list, "::1", 8080, gatewayOnPort(8080)));
  // A CIDR covering a metadata address does not open it, nor a name.
  EXPECT_FALSE(hostAllows(entries({"169.254.0.0/16"}), "169.254.169.254", 80));
  EXPECT_TRUE(hostAllows(entries({"169.254.169.254"}), "169.254.169.254", 80));
  EXPECT_FALSE(hostAllows(entries({"metadata.google.internal"}), "169.254.169.254", 80));
}

}  // namespace
}  // namespace mcpgate::egress
