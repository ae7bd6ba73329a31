// SEP-1699 (2025-11-25 Streamable HTTP resumability): what a POST's SSE
// stream named before the server closed it is where the gateway resumes it.

#include "gateway/upstream/stream_resume.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace mcpgate::gateway {
namespace {

TEST(StreamResume, APrimingEventNamesTheIdAndDelayOfTheResumption) {
  SseParser sse(1024);
  int delivered = 0;
  ASSERT_TRUE(sse.feed("id: 7\nretry: 250\ndata: \n\n", [&](std::string) { ++delivered; }));
  EXPECT_EQ(delivered, 0);  // a priming event carries no message
  StreamResume resume;
  EXPECT_FALSE(resume.pending());
  resume.noteStream(sse);
  ASSERT_TRUE(resume.pending());
  EXPECT_EQ(resume.delay(), std::chrono::milliseconds(250));
  EXPECT_EQ(resume.take(), "7");
  EXPECT_FALSE(resume.pending());  // the resumed stream must name a new id

  // A resumed stream that names no id: nothing more to resume from.
  SseParser quiet(1024);
  ASSERT_TRUE(quiet.feed("data: {}\n\n", [](std::string) {}));
  resume.noteStream(quiet);
  EXPECT_FALSE(resume.pending());

  // No retry: one second; an absurd one is capped; ids with CR are ignored.
  SseParser odd(1024);
  ASSERT_TRUE(odd.feed("id: 8\nretry: 999999999\nid: a\rb\ndata: \n\n", [](std::string) {}));
  StreamResume capped;
  capped.noteStream(odd);
  EXPECT_EQ(capped.delay(), std::chrono::milliseconds(StreamResume::kMaxRetryMs));
  EXPECT_EQ(capped.take(), "8");
  SseParser plain(1024);
  ASSERT_TRUE(plain.feed("id: 9\ndata: \n\n", [](std::string) {}));
  StreamResume later;
  later.noteStream(plain);
  EXPECT_EQ(later.delay(), std::chrono::milliseconds(StreamResume::kDefaultRetryMs));

  // Not forever: a server priming stream after stream is given up on.
  StreamResume endless;
  for (int i = 0; i < StreamResume::kMaxResumes; ++i) {
    endless.noteStream(plain);
    ASSERT_TRUE(endless.pending()) << i;
    (void)endless.take();
  }
  endless.noteStream(plain);
  EXPECT_FALSE(endless.pending());
}

}  // namespace
}  // namespace mcpgate::gateway
