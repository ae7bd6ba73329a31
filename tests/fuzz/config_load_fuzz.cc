// The gateway config loader: any file (YAML, or JSON in the mcpServers format) loads or gives
// "FILE:LINE: message", never a crash or an exception.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "config/config.h"
#include "tests/fuzz/fuzz_util.h"

using mcpgate::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;
  // The loader reads a file (and resolves relative paths from its directory): one per process.
  static const std::string dir = [] {
    std::string d = "/tmp/mcpgate-config-fuzz-XXXXXX";
    if (::mkdtemp(d.data()) == nullptr) mcpgate::fuzz::broken("mkdtemp");
    return d;
  }();
  // A file that starts like JSON is named like the clients' mcp.json; anything else is YAML.
  const bool as_json = size > 0 && data[0] == '{';
  const std::string path = dir + (as_json ? "/mcp.json" : "/gateway.yaml");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto config = mcpgate::config::loadConfig(path);
  if (!config) {
    check(config.error().message.starts_with(path), "an error that does not name the file");
    return 0;
  }
  (void)mcpgate::config::describeConfig(**config);
  return 0;
}
