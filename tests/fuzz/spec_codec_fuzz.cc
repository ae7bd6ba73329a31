// The sandbox spec codec (what the gateway hands the sandbox init): any text decodes or gives an
// error; what decodes re-encodes to text that decodes to the same spec.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sandbox/spec_codec.h"
#include "tests/fuzz/fuzz_util.h"

using mcpgate::fuzz::check;
namespace sandbox = mcpgate::sandbox;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = sandbox::decodeSpec(text);
  if (!spec) return 0;
  const std::string once = sandbox::encodeSpec(*spec, spec->seccomp);
  auto again = sandbox::decodeSpec(once);
  check(again.has_value(), "an encoded spec does not decode");
  const std::string twice = sandbox::encodeSpec(*again, again->seccomp);
  check(once == twice, "encode(decode(encode(spec))) differs from encode(spec)");
  return 0;
}
