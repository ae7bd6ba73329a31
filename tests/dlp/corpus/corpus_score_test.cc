// Scores the shipped rule packs on the development corpus (gen.py beside this file): every sample
// is an MCP JSON-RPC message scanned the way the gateway scans it (Scanner::scan on the parsed
// message, in the sample's direction, with the default policy, so each rule's `directions`
// apply). Prints recall per family, false-positive rate per benign source and precision per label,
// and fails below the thresholds at the end of this file.
//
// A positive secret sample counts as found when a secret-category finding is reported on it; an
// injection sample when an injection- or command-category finding is; a benign sample is a false
// positive when anything at all is reported on it. MCPGATE_CORPUS_VERBOSE=1 lists every miss and
// every false positive with its rule and the detector signals (+id(weight)) it saw.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "dlp/rule_set.h"
#include "dlp/scanner.h"

namespace mcpgate::dlp {
namespace {

const std::filesystem::path kCorpus =
    std::filesystem::path(MCPGATE_SOURCE_DIR) / "tests" / "dlp" / "corpus";

struct Sample {
  std::string id, label, family, kind;
  Direction direction = Direction::kRequest;
  nlohmann::json message;
};

std::vector<Sample> readCorpus(const std::string& file) {
  std::vector<Sample> out;
  std::ifstream in(kCorpus / file);
  EXPECT_TRUE(in) << "cannot read " << (kCorpus / file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    Sample s;
    s.id = j.at("id");
    s.label = j.at("label");
    s.family = j.at("family");
    s.kind = j.value("kind", "");
    s.direction = j.at("direction") == "response" ? Direction::kResponse : Direction::kRequest;
    s.message = j.at("message");
    out.push_back(std::move(s));
  }
  return out;
}

struct Tally {
  int n = 0;
  int hit = 0;  // positives: found; benign: flagged
  [[nodiscard]] double rate() const { return n == 0 ? 0.0 : static_cast<double>(hit) / n; }
};

struct Score {
  std::map<std::string, Tally> family;  // "label/family"
  std::map<std::string, Tally> label;   // secret, encoded, injection, benign
  // Per finding category: samples flagged with it that should be, and that should not be.
  int secret_tp = 0, secret_fp = 0, injection_tp = 0, injection_fp = 0;
  std::map<std::string, std::pair<int, std::string>> fp_rules;  // rule -> (count, first sample)
};

bool hasCategory(const Findings& f, std::initializer_list<Category> cats) {
  return std::ranges::any_of(f.items, [&](const Finding& x) {
    return std::ranges::find(cats, x.rule->category) != cats.end();
  });
}

Score score(const Scanner& scanner, const std::vector<Sample>& samples, const std::string& group,
            bool verbose) {
  Score s;
  const Policy policy;  // the gateway's defaults
  for (const auto& x : samples) {
    const Findings f = scanner.scan(x.message, x.direction, policy);
    const bool secret = hasCategory(f, {Category::kSecret});
    const bool injection = hasCategory(f, {Category::kInjection, Category::kCommand});
    bool hit = false;
    if (x.label == "secret") hit = secret;
    if (x.label == "injection") hit = injection;
    if (x.label == "benign") hit = f.failed || !f.empty();
    auto& fam = s.family[group + "/" + x.family];
    auto& lab = s.label[group];
    ++fam.n;
    ++lab.n;
    fam.hit += hit ? 1 : 0;
    lab.hit += hit ? 1 : 0;
    (x.label == "secret" ? s.secret_tp : s.secret_fp) += secret ? 1 : 0;
    (x.label == "injection" ? s.injection_tp : s.injection_fp) += injection ? 1 : 0;
    if (x.label == "benign") {
      for (const auto& item : f.items) {
        auto& [count, first] = s.fp_rules[item.rule->id];
        if (count++ == 0) first = x.id;
      }
    }
    if (verbose && (x.label == "benign" ? hit : !hit)) {
      std::string rules;
      for (const auto& item : f.items) rules += " " + item.rule->id;
      // What the detector saw: every signal that matched, with its weight.
      Policy with_signals;
      with_signals.signals = true;
      for (const auto& item : scanner.scan(x.message, x.direction, with_signals).items) {
        if (item.rule->weight > 0) {
          rules += " +" + item.rule->id + "(" + std::to_string(item.rule->weight) + ")";
        }
      }
      std::printf("  %s %s %s/%s%s\n", hit ? "FP  " : "MISS", x.id.c_str(), x.family.c_str(),
                  x.kind.c_str(), rules.c_str());
    }
  }
  return s;
}

void merge(Score& into, const Score& from) {
  for (const auto& [k, v] : from.family) into.family[k] = v;
  for (const auto& [k, v] : from.label) into.label[k] = v;
  into.secret_tp += from.secret_tp;
  into.secret_fp += from.secret_fp;
  into.injection_tp += from.injection_tp;
  into.injection_fp += from.injection_fp;
  for (const auto& [k, v] : from.fp_rules) {
    auto& [count, first] = into.fp_rules[k];
    if (count == 0) first = v.second;
    count += v.first;
  }
}

double ratio(int a, int b) { return b == 0 ? 1.0 : static_cast<double>(a) / b; }

// --- thresholds: just below what main reaches (see bench/RESULTS.md, "DLP corpus").
constexpr double kMinSecretRecall = 0.97;
constexpr double kMinEncodedRecall = 0.94;
// Tokens written backwards or in ROT13 (gen_turned.py): found through the secret rules' literal
// prefixes, so tokens without one (keyword-led rules, URLs with '.', ':' or '@' before the secret)
// stay unfound.
constexpr double kMinTurnedRecall = 0.65;
constexpr double kMinInjectionRecall = 0.99;
constexpr double kMaxBenignFpRate = 0.005;
// The sets written after the detector was tuned on the ones above (gen_fresh.py). The second
// detector (session 8) was tuned on these too, so they no longer estimate unseen wording.
constexpr double kMinFreshInjectionRecall = 0.95;
constexpr double kMaxFreshBenignFpRate = 0.01;
constexpr double kMinFreshSecretRecall = 0.94;
// holdout_dev (gen_holdout.py): written before the second detector and not tuned on line by
// line; the honest estimate for unseen wording.
constexpr double kMinHoldoutInjectionRecall = 0.83;
constexpr double kMaxHoldoutBenignFpRate = 0.01;
// tune2 (gen_tune2.py): written after holdout_dev was frozen and tuned on. Its two benign
// misses are security prose quoting 'ignore previous instructions' (a known limit: the detector
// does not see quotation).
constexpr double kMinTune2InjectionRecall = 0.95;
constexpr double kMaxTune2BenignFpRate = 0.04;
// fresh2 (gen_fresh2.py, session 10): new attack styles written from public descriptions of the
// families. The tuning part was tuned on; the holdout third (every third sample of a family) was
// only scored, so it is the estimate for unseen wording. Its benign misses are security prose
// that quotes payloads without a cue word the detector knows (dlp/mention.h).
constexpr double kMinFresh2InjectionRecall = 0.95;
constexpr double kMaxFresh2BenignFpRate = 0.03;
constexpr double kMinFresh2HoldoutInjectionRecall = 0.65;
constexpr double kMaxFresh2HoldoutBenignFpRate = 0.10;
// web (gen_web.py, session 15): code and markup attack payloads (XSS, SQL injection, template
// injection, JNDI, shell injection, code execution, web shells, traversal, XXE) and benign
// look-alikes (pages with scripts, migrations, shell scripts, templates, logging config). Split
// like fresh2, but the rules (rules/web_payloads.yaml) were written with the whole list in view,
// so the holdout third is not an estimate for unseen payloads. The known miss: an external
// `<script src=...>` (a CDN's looks the same).
constexpr double kMinWebInjectionRecall = 0.95;
constexpr double kMaxWebBenignFpRate = 0.02;
constexpr double kMinWebHoldoutInjectionRecall = 0.95;
constexpr double kMaxWebHoldoutBenignFpRate = 0.04;
// fresh3 (gen_fresh3.py, session 15): plain-wording injections (personas, fake authorisation,
// task replacement, concealment, extraction questions, phishing through the agent, hidden
// reviewer instructions, exfiltration in prose) and look-alikes. Before tuning: 0.56 on the
// tuning part, 0.25 on the holdout third; the holdout is the estimate for unseen wording.
constexpr double kMinFresh3InjectionRecall = 0.95;
constexpr double kMaxFresh3BenignFpRate = 0.03;
constexpr double kMinFresh3HoldoutInjectionRecall = 0.30;
constexpr double kMaxFresh3HoldoutBenignFpRate = 0.10;
// generic (gen_generic.py, session 17): keys of services no rule names, in 28 shapes (env, YAML,
// JSON, code, shell, logs, headers, docs, Kubernetes env entries), and key-named values that are
// not credentials (cache, object, sort, idempotency and public keys, digests, UUIDs). Scored once
// before the last three rules: 0.836, no secret rule on the look-alikes. One shape (a key passed
// positionally with no name near it, 5 of 140) is out of reach of any keyword-free rule.
constexpr double kMinGenericSecretRecall = 0.95;
constexpr double kMaxGenericBenignFpRate = 0.01;
// fresh4 (gen_fresh4.py, session 17): injections inside what a tool fetched (e-mail, web page,
// code comment, spreadsheet cell, ticket, invite, tool description, markdown, other languages).
// Before tuning: 0.625 on the tuning part, 0.562 on the holdout third.
constexpr double kMinFresh4InjectionRecall = 0.75;
constexpr double kMaxFresh4BenignFpRate = 0.03;
constexpr double kMinFresh4HoldoutInjectionRecall = 0.55;
constexpr double kMaxFresh4HoldoutBenignFpRate = 0.07;
// fresh5 (gen_fresh5.py, session 18): what people type straight at a model or drop into a shared
// document (a new task, a persona with no rules, a password game, the model's own setup, refusals
// forbidden, a forced phrase, other languages). Before tuning: 0.333 on the tuning part, 0.500 on
// the holdout third.
constexpr double kMinFresh5InjectionRecall = 0.80;
constexpr double kMaxFresh5BenignFpRate = 0.03;
constexpr double kMinFresh5HoldoutInjectionRecall = 0.60;
constexpr double kMaxFresh5HoldoutBenignFpRate = 0.07;
// fresh6 (gen_fresh6.py, session 19): what an MCP server hands an agent to steer it through its
// tools (tool shadowing, parameter descriptions that ask for secrets, fake errors with recovery
// orders, fake turns, orders behind an encoding, urgent authority, plans for the agent, a summary
// bent). Before tuning: 0.438 on the tuning part, 0.208 on the holdout third.
constexpr double kMinFresh6InjectionRecall = 0.90;
constexpr double kMaxFresh6BenignFpRate = 0.03;
constexpr double kMinFresh6HoldoutInjectionRecall = 0.40;
constexpr double kMaxFresh6HoldoutBenignFpRate = 0.07;
// fresh7 (gen_fresh7.py, session 20): the shapes public jailbreak collections hold (goal hijacks
// ending in a rogue string, refusal suppression, forced prefixes and formats, alter egos without
// rules, fiction used to extract content, payload splitting, obfuscated wording, other languages,
// prompt leaks, orders inside documents). Before tuning: 0.541 on the tuning part, 0.500 on the
// holdout third, 6 of 74 tuning look-alikes flagged; after: 0.984, 0.625, 2 of 74 (security prose
// that names a jailbreak and a persona 'with no rules': the detector does not see mention).
constexpr double kMinFresh7InjectionRecall = 0.95;
constexpr double kMaxFresh7BenignFpRate = 0.04;
constexpr double kMinFresh7HoldoutInjectionRecall = 0.60;
constexpr double kMaxFresh7HoldoutBenignFpRate = 0.05;
// fresh8 (gen_fresh8.py, session 21): wording an unseen probe still missed (casual goal hijacks,
// "pay no heed", penalty games with lives and shutdown, disclaimer suppression, movie and
// parallel-universe frames, s1 + s2 payloads, dashed and dotted letters, Dutch, Polish, Turkish,
// Indonesian and more, prompt leaks in new words, review, hiring and note-taker hijacks, orders in
// JSON, CSV, code comments and markdown tables, task switches, continuations, fake dialogues).
// Before tuning: 0.411 on the tuning part, 0.516 on the holdout third, 2 of 88 tuning look-alikes
// flagged; after: 1.000, 0.645, 2 of 88 (the same sentence in two carriers: a regex matching
// 'i.g.n.o.r.e', which spaced-keyword already reported before this round).
constexpr double kMinFresh8InjectionRecall = 0.95;
constexpr double kMaxFresh8BenignFpRate = 0.03;
constexpr double kMinFresh8HoldoutInjectionRecall = 0.60;
constexpr double kMaxFresh8HoldoutBenignFpRate = 0.05;
// fresh9 (gen_fresh9.py, session 22): generalisation to wording no earlier round used (orders to
// an automated reader inside data, covert exfiltration or tampering, personas never fitted with
// content controls, the setup received at the outset discarded, prompt leaks in new words, the
// question above a placeholder, output bounded to an exact string, refusal penalties, fiction
// framings, fake turns, split-variable and dotted payloads, more languages), with probe10's 20
// injections and 20 look-alikes. Before tuning: 0.321 on the tuning part, 0.389 on the holdout
// third, 2 of 98 tuning and 2 of 40 holdout look-alikes flagged; after: 1.000, 0.917, unchanged
// (the tuning pair: docs saying a CLI 'must print exactly 'ready' and nothing else'). The holdout
// was written in the same sitting as the tuning part and reads close to it; a probe written after
// tuning caught 4 of 20, as before the round.
constexpr double kMinFresh9InjectionRecall = 0.95;
constexpr double kMaxFresh9BenignFpRate = 0.03;
constexpr double kMinFresh9HoldoutInjectionRecall = 0.85;
constexpr double kMaxFresh9HoldoutBenignFpRate = 0.05;
// fresh10 (gen_fresh10.py holdout, gen_fresh10_tune.py tuning, session 23): a whole set held out
// (56 injections over every family of the issue, 51 look-alikes), written before the rules were
// read and scored before and after tuning only, and a tuning set in other words. Tuned with word
// classes (a control verb on the model's rules, the model's setup named, covert markers, task
// swaps, dictated output, privileged speakers) rather than phrases. Before: 0.732 on the tuning
// set, 0.625 on the holdout; after: 0.943, 0.696. Look-alikes flagged: 6/157 and 6/97 before and
// after (email-address on support addresses; security prose that quotes attacks).
constexpr double kMinFresh10InjectionRecall = 0.93;
constexpr double kMaxFresh10BenignFpRate = 0.05;
constexpr double kMinFresh10HoldoutInjectionRecall = 0.65;
constexpr double kMaxFresh10HoldoutBenignFpRate = 0.07;
constexpr double kMinSecretPrecision = 0.99;
constexpr double kMinInjectionPrecision = 0.99;

TEST(Corpus, ScoresShippedPacks) {
  const std::vector<std::filesystem::path> paths = {std::filesystem::path(MCPGATE_SOURCE_DIR) /
                                                    "rules"};
  const char* cache = std::getenv("MCPGATE_CACHE_DIR");
  auto rules = RuleSet::load(paths, LoadOptions{cache ? cache : ""});
  ASSERT_TRUE(rules) << rules.error().message;
  const Scanner scanner(*rules);
  const bool verbose = std::getenv("MCPGATE_CORPUS_VERBOSE") != nullptr;

  Score all;
  for (const auto& [file, group] : std::vector<std::pair<std::string, std::string>>{
           {"secrets.jsonl", "secret"},
           {"encoded.jsonl", "encoded"},
           {"encoded_turned.jsonl", "encoded_turned"},
           {"injections.jsonl", "injection"},
           {"benign.jsonl", "benign"},
           {"injections_fresh.jsonl", "injection_fresh"},
           {"benign_fresh.jsonl", "benign_fresh"},
           {"secrets_fresh.jsonl", "secret_fresh"},
           {"injections_holdout.jsonl", "injection_holdout"},
           {"benign_holdout.jsonl", "benign_holdout"},
           {"injections_tune2.jsonl", "injection_tune2"},
           {"benign_tune2.jsonl", "benign_tune2"},
           {"injections_fresh2.jsonl", "injection_fresh2"},
           {"benign_fresh2.jsonl", "benign_fresh2"},
           {"injections_fresh2_holdout.jsonl", "injection_fresh2_holdout"},
           {"benign_fresh2_holdout.jsonl", "benign_fresh2_holdout"},
           {"injections_web.jsonl", "injection_web"},
           {"benign_web.jsonl", "benign_web"},
           {"injections_web_holdout.jsonl", "injection_web_holdout"},
           {"benign_web_holdout.jsonl", "benign_web_holdout"},
           {"injections_fresh3.jsonl", "injection_fresh3"},
           {"benign_fresh3.jsonl", "benign_fresh3"},
           {"injections_fresh3_holdout.jsonl", "injection_fresh3_holdout"},
           {"benign_fresh3_holdout.jsonl", "benign_fresh3_holdout"},
           {"secrets_generic.jsonl", "secret_generic"},
           {"benign_generic.jsonl", "benign_generic"},
           {"injections_fresh4.jsonl", "injection_fresh4"},
           {"benign_fresh4.jsonl", "benign_fresh4"},
           {"injections_fresh4_holdout.jsonl", "injection_fresh4_holdout"},
           {"benign_fresh4_holdout.jsonl", "benign_fresh4_holdout"},
           {"injections_fresh5.jsonl", "injection_fresh5"},
           {"benign_fresh5.jsonl", "benign_fresh5"},
           {"injections_fresh5_holdout.jsonl", "injection_fresh5_holdout"},
           {"benign_fresh5_holdout.jsonl", "benign_fresh5_holdout"},
           {"injections_fresh6.jsonl", "injection_fresh6"},
           {"benign_fresh6.jsonl", "benign_fresh6"},
           {"injections_fresh6_holdout.jsonl", "injection_fresh6_holdout"},
           {"benign_fresh6_holdout.jsonl", "benign_fresh6_holdout"},
           {"injections_fresh7.jsonl", "injection_fresh7"},
           {"benign_fresh7.jsonl", "benign_fresh7"},
           {"injections_fresh7_holdout.jsonl", "injection_fresh7_holdout"},
           {"benign_fresh7_holdout.jsonl", "benign_fresh7_holdout"},
           {"injections_fresh8.jsonl", "injection_fresh8"},
           {"benign_fresh8.jsonl", "benign_fresh8"},
           {"injections_fresh8_holdout.jsonl", "injection_fresh8_holdout"},
           {"benign_fresh8_holdout.jsonl", "benign_fresh8_holdout"},
           {"injections_fresh9.jsonl", "injection_fresh9"},
           {"benign_fresh9.jsonl", "benign_fresh9"},
           {"injections_fresh9_holdout.jsonl", "injection_fresh9_holdout"},
           {"benign_fresh9_holdout.jsonl", "benign_fresh9_holdout"},
           {"injections_fresh10.jsonl", "injection_fresh10"},
           {"benign_fresh10.jsonl", "benign_fresh10"},
           {"injections_fresh10_holdout.jsonl", "injection_fresh10_holdout"},
           {"benign_fresh10_holdout.jsonl", "benign_fresh10_holdout"}}) {
    const auto samples = readCorpus(file);
    ASSERT_FALSE(samples.empty()) << file;
    merge(all, score(scanner, samples, group, verbose));
  }

  std::printf("\n%-44s %6s %6s %8s\n", "family (positives: recall; benign: FP rate)", "n", "hit",
              "rate");
  for (const auto& [k, t] : all.family) {
    std::printf("%-44s %6d %6d %8.3f\n", k.c_str(), t.n, t.hit, t.rate());
  }
  std::printf("\n%-12s %6s %6s %8s\n", "label", "n", "hit", "rate");
  for (const auto& [k, t] : all.label) {
    std::printf("%-12s %6d %6d %8.3f\n", k.c_str(), t.n, t.hit, t.rate());
  }
  const double secret_precision = ratio(all.secret_tp, all.secret_tp + all.secret_fp);
  const double injection_precision = ratio(all.injection_tp, all.injection_tp + all.injection_fp);
  std::printf("\nsecret findings: precision %.3f (%d right, %d wrong)\n", secret_precision,
              all.secret_tp, all.secret_fp);
  std::printf("injection findings: precision %.3f (%d right, %d wrong)\n", injection_precision,
              all.injection_tp, all.injection_fp);
  std::vector<std::pair<int, std::string>> fps;
  for (const auto& [rule, v] : all.fp_rules)
    fps.emplace_back(v.first, rule + " (first: " + v.second + ")");
  std::ranges::sort(fps, std::greater{});
  std::printf("rules reporting on benign samples:\n");
  for (const auto& [count, what] : fps) std::printf("  %5d %s\n", count, what.c_str());

  EXPECT_GE(all.label["secret"].rate(), kMinSecretRecall);
  EXPECT_GE(all.label["encoded"].rate(), kMinEncodedRecall);
  EXPECT_GE(all.label["encoded_turned"].rate(), kMinTurnedRecall);
  EXPECT_GE(all.label["injection"].rate(), kMinInjectionRecall);
  EXPECT_LE(all.label["benign"].rate(), kMaxBenignFpRate);
  EXPECT_GE(all.label["injection_fresh"].rate(), kMinFreshInjectionRecall);
  EXPECT_LE(all.label["benign_fresh"].rate(), kMaxFreshBenignFpRate);
  EXPECT_GE(all.label["secret_fresh"].rate(), kMinFreshSecretRecall);
  EXPECT_GE(all.label["injection_holdout"].rate(), kMinHoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_holdout"].rate(), kMaxHoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_tune2"].rate(), kMinTune2InjectionRecall);
  EXPECT_LE(all.label["benign_tune2"].rate(), kMaxTune2BenignFpRate);
  EXPECT_GE(all.label["injection_fresh2"].rate(), kMinFresh2InjectionRecall);
  EXPECT_LE(all.label["benign_fresh2"].rate(), kMaxFresh2BenignFpRate);
  EXPECT_GE(all.label["injection_fresh2_holdout"].rate(), kMinFresh2HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh2_holdout"].rate(), kMaxFresh2HoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_web"].rate(), kMinWebInjectionRecall);
  EXPECT_LE(all.label["benign_web"].rate(), kMaxWebBenignFpRate);
  EXPECT_GE(all.label["injection_web_holdout"].rate(), kMinWebHoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_web_holdout"].rate(), kMaxWebHoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_fresh3"].rate(), kMinFresh3InjectionRecall);
  EXPECT_LE(all.label["benign_fresh3"].rate(), kMaxFresh3BenignFpRate);
  EXPECT_GE(all.label["injection_fresh3_holdout"].rate(), kMinFresh3HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh3_holdout"].rate(), kMaxFresh3HoldoutBenignFpRate);
  EXPECT_GE(all.label["secret_generic"].rate(), kMinGenericSecretRecall);
  EXPECT_LE(all.label["benign_generic"].rate(), kMaxGenericBenignFpRate);
  EXPECT_GE(all.label["injection_fresh4"].rate(), kMinFresh4InjectionRecall);
  EXPECT_LE(all.label["benign_fresh4"].rate(), kMaxFresh4BenignFpRate);
  EXPECT_GE(all.label["injection_fresh4_holdout"].rate(), kMinFresh4HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh4_holdout"].rate(), kMaxFresh4HoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_fresh5"].rate(), kMinFresh5InjectionRecall);
  EXPECT_LE(all.label["benign_fresh5"].rate(), kMaxFresh5BenignFpRate);
  EXPECT_GE(all.label["injection_fresh5_holdout"].rate(), kMinFresh5HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh5_holdout"].rate(), kMaxFresh5HoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_fresh6"].rate(), kMinFresh6InjectionRecall);
  EXPECT_LE(all.label["benign_fresh6"].rate(), kMaxFresh6BenignFpRate);
  EXPECT_GE(all.label["injection_fresh6_holdout"].rate(), kMinFresh6HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh6_holdout"].rate(), kMaxFresh6HoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_fresh7"].rate(), kMinFresh7InjectionRecall);
  EXPECT_LE(all.label["benign_fresh7"].rate(), kMaxFresh7BenignFpRate);
  EXPECT_GE(all.label["injection_fresh7_holdout"].rate(), kMinFresh7HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh7_holdout"].rate(), kMaxFresh7HoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_fresh8"].rate(), kMinFresh8InjectionRecall);
  EXPECT_LE(all.label["benign_fresh8"].rate(), kMaxFresh8BenignFpRate);
  EXPECT_GE(all.label["injection_fresh8_holdout"].rate(), kMinFresh8HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh8_holdout"].rate(), kMaxFresh8HoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_fresh9"].rate(), kMinFresh9InjectionRecall);
  EXPECT_LE(all.label["benign_fresh9"].rate(), kMaxFresh9BenignFpRate);
  EXPECT_GE(all.label["injection_fresh9_holdout"].rate(), kMinFresh9HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh9_holdout"].rate(), kMaxFresh9HoldoutBenignFpRate);
  EXPECT_GE(all.label["injection_fresh10"].rate(), kMinFresh10InjectionRecall);
  EXPECT_LE(all.label["benign_fresh10"].rate(), kMaxFresh10BenignFpRate);
  EXPECT_GE(all.label["injection_fresh10_holdout"].rate(), kMinFresh10HoldoutInjectionRecall);
  EXPECT_LE(all.label["benign_fresh10_holdout"].rate(), kMaxFresh10HoldoutBenignFpRate);
  EXPECT_GE(secret_precision, kMinSecretPrecision);
  EXPECT_GE(injection_precision, kMinInjectionPrecision);
}

}  // namespace
}  // namespace mcpgate::dlp
