#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/digest.h"
#include "common/encoding.h"
#include "common/errno_text.h"
#include "common/loopback.h"
#include "common/read_file.h"

namespace mcpgate::common {
namespace {

TEST(Digest, Sha256AndHmacKnownAnswers) {
  // FIPS 180-2 "abc" and RFC 4231 test case 2.
  EXPECT_EQ(toHex(sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(toHex(hmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Digest, Crc32cKnownAnswers) {
  // The check value of CRC-32C and RFC 3720 B.4's 32-byte vectors (the 8-byte and 1-byte steps).
  EXPECT_EQ(crc32c("123456789"), 0xe3069283U);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8a9136aaU);
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62a8ab43U);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending += static_cast<char>(i);
  EXPECT_EQ(crc32c(ascending), 0x46dd794eU);
  EXPECT_EQ(crc32c(std::string_view(ascending).substr(1)), crc32c(ascending.substr(1)));
  EXPECT_EQ(crc32c(""), 0U);
}

TEST(Encoding, HexIsLowerCaseAndKeepsEveryByte) {
  EXPECT_EQ(toHex(std::string_view("\x00\xff\x10", 3)), "00ff10");
  EXPECT_EQ(toHex(std::string_view()), "");
}

TEST(Encoding, Base64UrlRoundTripsEveryLengthWithoutPadding) {
  std::string bytes;
  for (int n = 0; n < 40; ++n) {
    const std::string encoded = encodeBase64Url(bytes);
    EXPECT_EQ(encoded.find_first_of("+/="), std::string::npos) << encoded;
    EXPECT_EQ(decodeBase64Url(encoded), bytes);
    bytes += static_cast<char>(n * 37 + 250);
  }
  EXPECT_EQ(encodeBase64Url("\xfb\xff"), "-_8");
  EXPECT_EQ(decodeBase64Url("-_8="), std::string("\xfb\xff"));
}

TEST(Encoding, Base64UrlRefusesOtherAlphabetsAndImpossibleLengths) {
  EXPECT_EQ(decodeBase64Url("+/8"), std::nullopt);  // standard base64, not base64url
  EXPECT_EQ(decodeBase64Url("abcde"), std::nullopt);
  EXPECT_EQ(decodeBase64Url("ab cd"), std::nullopt);
}

TEST(Loopback, NamesAndAddressesInAnyCase) {
  for (const char* host : {"localhost", "LocalHost", "LOCALHOST", "127.0.0.1", "127.8.9.10", "::1",
                           "0:0:0:0:0:0:0:1"}) {
    EXPECT_TRUE(isLoopbackHost(host)) << host;
  }
  for (const char* host : {"", "0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "localhost.example",
                           "mylocalhost", "::ffff:10.0.0.1", "[::1]"}) {
    EXPECT_FALSE(isLoopbackHost(host)) << host;
  }
}

TEST(ReadFile, EveryByteOfAFileAndNothingForAMissingOne) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("mcpgate-read-file-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string bytes(3 * 1024 * 1024 + 17, '\0');  // several pages, NULs included
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 31 % 251);
  std::ofstream(dir / "big", std::ios::binary) << bytes;
  std::ofstream(dir / "empty", std::ios::binary).flush();

  EXPECT_EQ(readWholeFile(dir / "big"), bytes);
  EXPECT_EQ(readWholeFile(dir / "empty"), std::string());
  EXPECT_EQ(readWholeFile(dir / "missing"), std::nullopt);
  // A file whose size stat does not know (procfs says 0) is read to its end.
  const auto status = readWholeFile("/proc/self/status");
  ASSERT_TRUE(status.has_value());
  EXPECT_NE(status->find("Pid:"), std::string::npos);

  auto mapped = MappedFile::open(dir / "big");
  ASSERT_TRUE(mapped.has_value());
  EXPECT_EQ(mapped->bytes(), bytes);
  MappedFile moved = std::move(*mapped);  // the mapping moves, unmapped once
  EXPECT_EQ(moved.bytes().size(), bytes.size());
  EXPECT_FALSE(MappedFile::open(dir / "empty").has_value());
  EXPECT_FALSE(MappedFile::open(dir / "missing").has_value());
  EXPECT_FALSE(MappedFile::open(dir).has_value());  // a directory is not mapped
  std::filesystem::remove_all(dir);
}

TEST(ErrnoText, SaysWhatTheErrorIs) {
  EXPECT_EQ(errnoText(ENOENT), "No such file or directory");
  errno = EACCES;
  EXPECT_EQ(errnoText(), "Permission denied");
}

}  // namespace
}  // namespace mcpgate::common
