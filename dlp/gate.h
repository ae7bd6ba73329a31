#pragma once

// Structural gates for rules without a literal (card numbers, IBANs, national ids). Hyperscan
// has no literal to look for in `[0-9]{4}[0-9 -]{10,14}[0-9]{2}`, so it steps an automaton over
// every byte: each such rule alone costs about 1 GB/s on this machine, and a handful of them
// cost more than the 190 prefixed secret rules together. A gate says what every match must
// contain ("a run of [0-9 -] holding at least 15 digits"); one SSE2 pass finds those runs, and
// the gated rules' own database runs only on windows around them.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcpgate::dlp {

// A set of bytes as inclusive ranges, parsed from a bracket expression: "[0-9 -]", "[A-Z0-9]".
// Supports ranges, single bytes and the escapes \\ \] \- \t \n \r.
struct ByteClass {
  std::vector<std::pair<std::uint8_t, std::uint8_t>> ranges;
  friend bool operator==(const ByteClass&, const ByteClass&) = default;
};
[[nodiscard]] std::expected<ByteClass, std::string> parseByteClass(std::string_view bracket);

// One gate as a rule states it: a maximal run of `run` bytes with at least `min` bytes of
// `count` in it (counted only inside the run).
struct GateSpec {
  std::string run;
  std::string count;
  std::size_t min = 0;
};

// Largest `min` a gate may ask for (the run finder looks at two 64-bit words at a time).
inline constexpr std::size_t kMaxGateMin = 64;

// The gates of a rule set, deduplicated by their two classes (the smallest `min` wins).
class Gates {
 public:
  // Returns an error message if a class does not parse or `min` is out of range.
  [[nodiscard]] std::expected<void, std::string> add(const GateSpec& spec);
  [[nodiscard]] bool empty() const { return gates_.empty(); }

  // Spans [begin, end) of `text` where a gated rule can match: every qualifying run widened by
  // `reach` bytes on both sides, sorted and merged. Cleared first.
  void windows(std::string_view text, std::size_t reach,
               std::vector<std::pair<std::size_t, std::size_t>>& out) const;

 private:
  struct Gate {
    ByteClass run;
    ByteClass count;
    std::size_t min = 0;
    std::uint8_t run_bits = 0;  // nibble-table bits of `run` and of `count` (see rebuildTables)
    std::uint8_t count_bits = 0;
  };
  // Classifies bytes by their two nibbles (two table lookups per 32 bytes with AVX2): each class
  // is a union of "high nibble in H and low nibble in L" rectangles, one table bit per rectangle.
  void rebuildTables();
  void classify(std::string_view text) const;

  std::vector<Gate> gates_;
  std::uint8_t lo_table_[16] = {};
  std::uint8_t hi_table_[16] = {};
  bool nibble_ok_ = false;  // at most 8 distinct rectangles over all classes
};

}  // namespace mcpgate::dlp
