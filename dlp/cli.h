#pragma once

// `mcpgate scan` and `mcpgate rules test|lint` as library functions, so they are tested without
// the gateway binary. Each takes the arguments after its command name and returns the exit code:
// 0 clean / passed, 1 findings / failures, 2 usage or load error.

#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "dlp/rule_paths.h"
#include "dlp/rule_set.h"

namespace mcpgate::dlp {

// mcpgate scan [--rules PATH]... [--json] [--direction request|response] FILE|DIR|-...
//
// How a file is read: a JSON object or array as JSON (string values and keys, escapes decoded,
// each finding with its JSON pointer); JSON Lines (*.jsonl, *.ndjson, or any file whose every
// non-empty line is a JSON object or array) line by line as JSON, with the pointer inside that
// line's value (a line that is not JSON is scanned as text); a binary file (a NUL in its first
// 8 KiB) through its printable runs of 8 or more bytes, with a notice on stderr and `binary` in
// the output; anything else as text.
// Where a finding is: `line` and `column` (1-based; the column counts bytes) of the file byte at
// which it starts, and `offset`, that byte's offset in the file. Inside a JSON string this is the
// raw byte in the file, so an escape (\u0041) counts from its backslash; for a secret revealed by
// decoding (base64, hex, percent) it is the first encoded character that carries it. `start` and
// `end` stay offsets in the decoded string (JSON) or the file (text). Line and column are 0 when
// the place is unknown (a JSON file the index could not follow, nested deeper than 512 levels).
[[nodiscard]] int runScanCommand(std::span<char* const> args, std::ostream& out, std::ostream& err);
// mcpgate rules test [PATH]...  |  mcpgate rules lint [--benign DIR] [PATH]...
[[nodiscard]] int runRulesCommand(std::span<char* const> args, std::ostream& out,
                                  std::ostream& err);
[[nodiscard]] int runRulesTest(std::span<char* const> args, std::ostream& out, std::ostream& err);
[[nodiscard]] int runRulesLint(std::span<char* const> args, std::ostream& out, std::ostream& err);

// One example of one rule that did not behave as written.
struct ExampleFailure {
  std::string where;  // file:line of the example
  std::string rule_id;
  std::string message;
};
// Runs every `match` and `no_match` example of every rule through the full scan pipeline.
[[nodiscard]] std::vector<ExampleFailure> runExamples(const std::shared_ptr<const RuleSet>& rules);

}  // namespace mcpgate::dlp
