#include "dlp/gate.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace mcpgate::dlp {
namespace {

// Scratch bitmaps (bit i = byte i of the scanned text), kept per thread so a scan allocates
// nothing once they have grown to the largest text seen.
struct Bitmaps {
  // Per gate, one word per 64 bytes plus a zero word at the end.
  std::vector<std::vector<std::uint64_t>> run;
  std::vector<std::vector<std::uint64_t>> count;
};
thread_local Bitmaps tls_bits;

#if defined(__SSE2__)
// 0xFF in every byte of `x` that lies in one of the ranges. Unsigned range check without SSE4:
// x - lo wraps below lo, so x is in [lo, hi] iff min(x - lo, hi - lo) == x - lo.
__m128i inClass(__m128i x, const ByteClass& c) {
  __m128i acc = _mm_setzero_si128();
  for (const auto& [lo, hi] : c.ranges) {
    if (lo == hi) {
      acc = _mm_or_si128(acc, _mm_cmpeq_epi8(x, _mm_set1_epi8(static_cast<char>(lo))));
    } else {
      const __m128i v = _mm_sub_epi8(x, _mm_set1_epi8(static_cast<char>(lo)));
      acc = _mm_or_si128(
          acc, _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(static_cast<char>(hi - lo))), v));
    }
  }
  return acc;
}

// Bits of the 64 bytes at `p`: in `run`, and in both `run` and `count`.
void classify64(const char* p, const ByteClass& run, const ByteClass& count, std::uint64_t& r,
                std::uint64_t& c) {
  r = 0;
  c = 0;
  for (int k = 0; k < 4; ++k) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i in_run = inClass(x, run);
    const __m128i in_count = _mm_and_si128(in_run, inClass(x, count));
    r |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(in_run)))
         << (16 * k);
    c |= static_cast<std::uint64_t>(static_cast<std::uint16_t>(_mm_movemask_epi8(in_count)))
         << (16 * k);
  }
}
#else
bool inClass(unsigned char b, const ByteClass& c) {
  return std::ranges::any_of(c.ranges,
                             [b](const auto& r) { return b >= r.first && b <= r.second; });
}
void classify64(const char* p, const ByteClass& run, const ByteClass& count, std::uint64_t& r,
                std::uint64_t& c) {
  r = 0;
  c = 0;
  for (int i = 0; i < 64; ++i) {
    const auto b = static_cast<unsigned char>(p[i]);
    if (inClass(b, run)) {
      r |= std::uint64_t{1} << i;
      if (inClass(b, count)) c |= std::uint64_t{1} << i;
    }
  }
}
#endif

#if defined(__x86_64__)
bool haveAvx2() {
  static const bool kHave = __builtin_cpu_supports("avx2");
  return kHave;
}

// For each of `nmasks` masks, the bits (byte i -> bit i) of the 64 bytes at `p` whose
// nibble-table value shares a bit with it.
__attribute__((target("avx2"))) void classifyNibbles64(const char* p, const std::uint8_t* lo_table,
                                                       const std::uint8_t* hi_table,
                                                       const std::uint8_t* masks,
                                                       std::size_t nmasks, std::uint64_t* out) {
  const __m256i lo_t =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo_table)));
  const __m256i hi_t =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(hi_table)));
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  const __m256i zero = _mm256_setzero_si256();
  __m256i t[2];
  for (int h = 0; h < 2; ++h) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * h));
    const __m256i lo = _mm256_and_si256(x, low4);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low4);
    t[h] = _mm256_and_si256(_mm256_shuffle_epi8(lo_t, lo), _mm256_shuffle_epi8(hi_t, hi));
  }
  for (std::size_t m = 0; m < nmasks; ++m) {
    const __m256i mk = _mm256_set1_epi8(static_cast<char>(masks[m]));
    const auto a = static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(t[0], mk), zero)));
    const auto b = static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_and_si256(t[1], mk), zero)));
    out[m] = ~((static_cast<std::uint64_t>(b) << 32) | a);
  }
}
#endif

// Pass 2 of Gates::windows: one walk over the words, carrying the run that is open at a word's
// end. Most words hold too few `count` bytes to finish a qualifying run and cost a few
// instructions. Built twice: std::popcount is a libgcc call without the POPCNT instruction.
// (Not with clang, whose target_clones leaves the vector's emplace_back undefined at link time:
// only the fuzz build uses clang. Nor under TSan: the ifunc resolver, instrumented, runs while
// the loader relocates, before TSan's runtime is up, and crashes the process at start.)
#if defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("popcnt", "default")))
#endif
void findRuns(const std::uint64_t* run_bits, const std::uint64_t* count_bits, std::size_t words,
              std::size_t n, std::size_t min, std::size_t reach,
              std::vector<std::pair<std::size_t, std::size_t>>& out) {
  std::size_t open_start = 0;  // start of the run open at the previous word's end
  std::size_t open_count = 0;  // `count` bytes in it so far
  bool open = false;
  const auto close = [&](std::size_t end) {
    if (open && open_count >= min) {
      out.emplace_back(open_start > reach ? open_start - reach : 0, std::min(n, end + reach));
    }
    open = false;
    open_count = 0;
  };
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t r = run_bits[w];
    const std::uint64_t c = count_bits[w];
    const std::size_t base = 64 * w;
    if (r == ~std::uint64_t{0}) {
      if (!open) open_start = base;
      open = true;
      open_count += static_cast<std::size_t>(std::popcount(c));
      continue;
    }
    // The open run ends at the first byte not in the class.
    const auto lead = static_cast<unsigned>(std::countr_one(r));
    const std::uint64_t lead_mask = lead == 0 ? 0 : (~std::uint64_t{0} >> (64 - lead));
    if (lead != 0 && !open) {  // a run that starts at this word's first byte
      open = true;
      open_start = base;
    }
    if (open) {
      open_count += static_cast<std::size_t>(std::popcount(c & lead_mask));
      close(base + lead);
    }
    // Runs that start in this word. Only look at them one by one if this word alone holds
    // enough `count` bytes for one of them, or one reaches the word's end and may go on.
    const std::uint64_t rest = r & ~lead_mask;
    const std::uint64_t rest_count = c & ~lead_mask;
    const auto trail = static_cast<unsigned>(std::countl_one(r));
    if (static_cast<std::size_t>(std::popcount(rest_count)) >= min) {
      const std::uint64_t inner =
          rest & (trail == 0 ? ~std::uint64_t{0} : ~std::uint64_t{0} >> trail);
      // Bit i of `starts`: bytes i .. i+min-1 are all in the class (a qualifying run is at least
      // `min` long, since `count` bytes are counted only inside it).
      std::uint64_t starts = inner;
      for (std::size_t len = 1; len < min && starts != 0;) {
        const std::size_t k = std::min(len, min - len);
        starts &= starts >> k;
        len += k;
      }
      while (starts != 0) {
        const auto b = static_cast<unsigned>(std::countr_zero(starts));
        const auto len = static_cast<unsigned>(std::countr_one(inner >> b));
        const std::uint64_t m = (len == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << len) - 1))
                                << b;
        if (static_cast<std::size_t>(std::popcount(c & m)) >= min) {
          open = true;
          open_start = base + b;
          open_count = min;
          close(base + b + len);
        }
        starts &= ~m;
      }
    }
    if (trail != 0 && trail != 64) {
      open = true;
      open_start = base + 64 - trail;
      open_count = static_cast<std::size_t>(std::popcount(c >> (64 - trail)));
    }
  }
  close(n);
}

}  // namespace

std::expected<ByteClass, std::string> parseByteClass(std::string_view s) {
  if (s.size() < 3 || s.front() != '[' || s.back() != ']') {
    return std::unexpected("a byte class is a bracket expression such as '[0-9 -]'");
  }
  s = s.substr(1, s.size() - 2);
  if (!s.empty() && s.front() == '^')
    return std::unexpected("negated byte classes are not allowed");
  std::vector<bool> set(256, false);
  std::size_t i = 0;
  const auto next = [&](unsigned char& out) -> bool {
    if (i >= s.size()) return false;
    if (s[i] != '\\') {
      out = static_cast<unsigned char>(s[i++]);
      return true;
    }
    if (i + 1 >= s.size()) return false;
    const char e = s[i + 1];
    i += 2;
    switch (e) {
      case 't':
        out = '\t';
        return true;
      case 'n':
        out = '\n';
        return true;
      case 'r':
        out = '\r';
        return true;
      case '\\':
      case ']':
      case '-':
      case '[':
        out = static_cast<unsigned char>(e);
        return true;
      default:
        return false;
    }
  };
  while (i < s.size()) {
    unsigned char lo = 0;
    if (!next(lo)) return std::unexpected("bad escape in byte class");
    unsigned char hi = lo;
    if (i + 1 < s.size() && s[i] == '-') {
      ++i;
      if (!next(hi)) return std::unexpected("bad escape in byte class");
      if (hi < lo) return std::unexpected("reversed range in byte class");
    }
    for (unsigned b = lo; b <= hi; ++b) set[b] = true;
  }
  ByteClass c;
  for (unsigned b = 0; b < 256;) {
    if (!set[b]) {
      ++b;
      continue;
    }
    unsigned e = b;
    while (e + 1 < 256 && set[e + 1]) ++e;
    c.ranges.emplace_back(static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(e));
    b = e + 1;
  }
  if (c.ranges.empty()) return std::unexpected("empty byte class");
  if (c.ranges.front().first == 0) return std::unexpected("a byte class must not hold NUL");
  return c;
}

std::expected<void, std::string> Gates::add(const GateSpec& spec) {
  auto run = parseByteClass(spec.run);
  if (!run) return std::unexpected("gate run: " + run.error());
  auto count = parseByteClass(spec.count);
  if (!count) return std::unexpected("gate count: " + count.error());
  if (spec.min == 0 || spec.min > kMaxGateMin) {
    return std::unexpected("gate min must be 1.." + std::to_string(kMaxGateMin));
  }
  for (auto& g : gates_) {
    if (g.run == *run && g.count == *count) {
      g.min = std::min(g.min, spec.min);
      return {};
    }
  }
  gates_.push_back(Gate{std::move(*run), std::move(*count), spec.min});
  rebuildTables();
  return {};
}

void Gates::rebuildTables() {
  std::ranges::fill(lo_table_, 0);
  std::ranges::fill(hi_table_, 0);
  // (low-nibble set, high-nibble set) rectangles, shared between classes that have the same one.
  std::vector<std::pair<std::uint16_t, std::uint16_t>> rects;
  const auto bitsOf = [&](const ByteClass& c) -> std::uint8_t {
    std::uint16_t lo_of_hi[16] = {};
    for (const auto& [a, b] : c.ranges) {
      for (unsigned x = a; x <= b; ++x)
        lo_of_hi[x >> 4] |= static_cast<std::uint16_t>(1u << (x & 15));
    }
    std::uint8_t mask = 0;
    for (unsigned h = 0; h < 16; ++h) {
      if (lo_of_hi[h] == 0) continue;
      std::uint16_t his = 0;
      for (unsigned h2 = 0; h2 < 16; ++h2) {
        if (lo_of_hi[h2] == lo_of_hi[h]) his |= static_cast<std::uint16_t>(1u << h2);
      }
      const std::pair<std::uint16_t, std::uint16_t> rect{lo_of_hi[h], his};
      auto it = std::ranges::find(rects, rect);
      if (it == rects.end()) {
        rects.push_back(rect);
        it = rects.end() - 1;
      }
      const auto k = static_cast<std::size_t>(it - rects.begin());
      if (k < 8) mask |= static_cast<std::uint8_t>(1u << k);
    }
    return mask;
  };
  for (auto& g : gates_) {
    g.run_bits = bitsOf(g.run);
    g.count_bits = bitsOf(g.count);
  }
  nibble_ok_ = rects.size() <= 8;
  if (!nibble_ok_) return;
  for (std::size_t k = 0; k < rects.size(); ++k) {
    for (unsigned v = 0; v < 16; ++v) {
      if (rects[k].first & (1u << v)) lo_table_[v] |= static_cast<std::uint8_t>(1u << k);
      if (rects[k].second & (1u << v)) hi_table_[v] |= static_cast<std::uint8_t>(1u << k);
    }
  }
}

void Gates::classify(std::string_view text) const {
  const std::size_t n = text.size();
  const std::size_t words = (n + 63) / 64;
  auto& bits = tls_bits;
  if (bits.run.size() < gates_.size()) {
    bits.run.resize(gates_.size());
    bits.count.resize(gates_.size());
  }
  for (std::size_t g = 0; g < gates_.size(); ++g) {
    if (bits.run[g].size() < words + 1) {
      bits.run[g].resize(words + 1);
      bits.count[g].resize(words + 1);
    }
    bits.run[g][words] = 0;
    bits.count[g][words] = 0;
  }
  const std::size_t full = n / 64;
  char tail[64] = {};
  if (full < words) std::memcpy(tail, text.data() + 64 * full, n - 64 * full);
#if defined(__x86_64__)
  if (nibble_ok_ && gates_.size() <= 8 && haveAvx2()) {
    std::uint8_t masks[16];
    for (std::size_t g = 0; g < gates_.size(); ++g) {
      masks[2 * g] = gates_[g].run_bits;
      masks[2 * g + 1] = gates_[g].count_bits;
    }
    std::uint64_t out[16];
    for (std::size_t w = 0; w < words; ++w) {
      classifyNibbles64(w < full ? text.data() + 64 * w : tail, lo_table_, hi_table_, masks,
                        2 * gates_.size(), out);
      for (std::size_t g = 0; g < gates_.size(); ++g) {
        bits.run[g][w] = out[2 * g];
        bits.count[g][w] = out[2 * g] & out[2 * g + 1];
      }
    }
    return;
  }
#endif
  for (std::size_t g = 0; g < gates_.size(); ++g) {
    for (std::size_t w = 0; w < words; ++w) {
      classify64(w < full ? text.data() + 64 * w : tail, gates_[g].run, gates_[g].count,
                 bits.run[g][w], bits.count[g][w]);
    }
  }
}

void Gates::windows(std::string_view text, std::size_t reach,
                    std::vector<std::pair<std::size_t, std::size_t>>& out) const {
  out.clear();
  const std::size_t n = text.size();
  if (n == 0) return;
  const std::size_t words = (n + 63) / 64;
  classify(text);
  for (std::size_t gi = 0; gi < gates_.size(); ++gi) {
    const Gate& g = gates_[gi];
    const auto& run_bits = tls_bits.run[gi];
    const auto& count_bits = tls_bits.count[gi];
    findRuns(run_bits.data(), count_bits.data(), words, n, g.min, reach, out);
  }
  if (out.size() < 2) return;
  if (gates_.size() > 1) std::ranges::sort(out);  // one gate's windows come out in order
  std::size_t k = 0;
  for (std::size_t i = 1; i < out.size(); ++i) {
    if (out[i].first <= out[k].second) {
      out[k].second = std::max(out[k].second, out[i].second);
    } else {
      out[++k] = out[i];
    }
  }
  out.resize(k + 1);
}

}  // namespace mcpgate::dlp
