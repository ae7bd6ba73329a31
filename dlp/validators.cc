#include "dlp/validators.h"

#include <array>
#include <cctype>
#include <cmath>

namespace mcpgate::dlp {

bool luhnValid(std::string_view s) {
  int sum = 0;
  int digits = 0;
  // Walk from the right: every second digit is doubled.
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    const char c = *it;
    if (c == ' ' || c == '-') continue;
    if (c < '0' || c > '9') return false;
    int d = c - '0';
    if (digits % 2 == 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    ++digits;
  }
  return digits >= 12 && digits <= 19 && sum % 10 == 0;
}

bool ibanValid(std::string_view s) {
  std::array<char, 34> buf{};
  std::size_t n = 0;
  for (const char c : s) {
    if (c == ' ') continue;
    if (n == buf.size() || !std::isalnum(static_cast<unsigned char>(c))) return false;
    buf[n++] = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (n < 15) return false;  // Norway's 15 is the shortest IBAN in use
  if (!std::isalpha(static_cast<unsigned char>(buf[0])) ||
      !std::isalpha(static_cast<unsigned char>(buf[1])) ||
      !std::isdigit(static_cast<unsigned char>(buf[2])) ||
      !std::isdigit(static_cast<unsigned char>(buf[3]))) {
    return false;
  }
  // Move the first four characters to the end, letters become 10..35, and reduce mod 97 as we go
  // so the number never overflows.
  int rem = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const char c = buf[(k + 4) % n];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      rem = (rem * 10 + (c - '0')) % 97;
    } else {
      rem = (rem * 100 + (c - 'A' + 10)) % 97;
    }
  }
  return rem == 1;
}

double shannonEntropy(std::string_view s) {
  if (s.empty()) return 0.0;
  std::array<unsigned, 256> counts{};
  for (const char c : s) ++counts[static_cast<unsigned char>(c)];
  double h = 0.0;
  const double n = static_cast<double>(s.size());
  for (const unsigned k : counts) {
    if (k == 0) continue;
    const double p = k / n;
    h -= p * std::log2(p);
  }
  return h;
}

}  // namespace mcpgate::dlp
