// The environment every dlp_test process starts with, set before main (without overwriting what
// the caller set): the shipped packs as the default rules, and a database cache in the build tree
// so each test process (ctest runs one per test) loads the compiled packs instead of compiling
// them again. Not done with ctest's ENVIRONMENT: gtest_discover_tests flattens a list-valued
// property, and only the first variable survived (every test compiled the packs: 4 s each in the
// release tree, 13 s under ASan).
#include <cstdlib>

namespace {

[[maybe_unused]] const bool kEnvSet = [] {
  ::setenv("MCPGATE_RULES", MCPGATE_SOURCE_DIR "/rules", 0);
  ::setenv("MCPGATE_CACHE_DIR", MCPGATE_TEST_CACHE_DIR, 0);
  return true;
}();

}  // namespace
