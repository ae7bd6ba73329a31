// mcpgate secret set|list|rm|rotate-key (-c FILE | --state-dir DIR) [NAME]
//
// Values come from stdin, never from argv (which `ps` and shell history show).

#include <openssl/crypto.h>
#include <unistd.h>

#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include "config/config.h"
#include "gateway/cli/cli.h"
#include "secrets/key_file.h"
#include "secrets/store.h"

namespace mcpgate::gateway {
namespace {

constexpr std::string_view kUsage =
    "usage: mcpgate secret set|list|rm|rotate-key (-c FILE | --state-dir DIR) [NAME]\n"
    "  set NAME      read the value from stdin (one trailing newline is dropped)\n"
    "  list          print the names of the stored secrets\n"
    "  rm NAME       remove a secret\n"
    "  rotate-key    re-encrypt every secret under a new key (a new key file, or with\n"
    "                MCPGATE_SECRET_KEY or a systemd credential: the new key from stdin)\n"
    "  the store is <state_dir>/secrets.json; the key comes from MCPGATE_SECRET_KEY, the\n"
    "  systemd credential mcpgate-secret-key, or <state_dir>/secret.key (created 0600)\n"
    "  config files reference a secret as ${secret:NAME} in a server's env\n";

int usage() {
  std::cerr << kUsage;
  return 2;
}

int failed(const std::string& message) {
  std::cerr << "mcpgate secret: " << message << "\n";
  return 1;
}

std::string readStdin() {
  std::string value((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (value.ends_with("\r\n")) {
    value.resize(value.size() - 2);
  } else if (value.ends_with('\n')) {
    value.pop_back();
  }
  return value;
}

int rotate(const secrets::Locations& where, const secrets::Key& old_key) {
  auto store = secrets::Store::open(where.store, old_key);
  if (!store) return failed(store.error());
  secrets::Key fresh;
  if (!old_key.file.empty()) {
    auto text = secrets::newKeyText();
    if (!text) return failed(text.error());
    fresh = secrets::Key{*text, "key file " + old_key.file, old_key.file};
  } else {
    if (::isatty(STDIN_FILENO)) std::cerr << "new key (at least 32 bytes) on stdin:\n";
    fresh = secrets::Key{readStdin(), "the new key", ""};
    if (fresh.bytes.size() < secrets::kMinKeyBytes) {
      return failed("the new key must hold at least " + std::to_string(secrets::kMinKeyBytes) +
                    " bytes");
    }
  }
  auto rekeyed = store->rekeyed(fresh);
  if (!rekeyed) return failed(rekeyed.error());
  if (!old_key.file.empty()) {
    // The old key stays beside the new one until the store is written: a crash
    // in between leaves a store that secret.key.old still opens.
    const std::string previous = old_key.file + ".old";
    if (auto kept = secrets::replacePrivateFile(previous, old_key.bytes + "\n"); !kept) {
      return failed(kept.error());
    }
    if (auto written = secrets::replacePrivateFile(old_key.file, fresh.bytes + "\n"); !written) {
      return failed(written.error());
    }
  }
  if (auto saved = rekeyed->save(); !saved) return failed(saved.error());
  if (!old_key.file.empty()) {
    ::unlink((old_key.file + ".old").c_str());
    std::cout << "re-encrypted " << rekeyed->names().size() << " secret(s) under a new key in "
              << old_key.file << "\n";
  } else {
    std::cout << "re-encrypted " << rekeyed->names().size()
              << " secret(s); now set the new key where the old one came from (" << old_key.source
              << ") before the gateway restarts\n";
  }
  OPENSSL_cleanse(fresh.bytes.data(), fresh.bytes.size());
  return 0;
}

}  // namespace

int runSecret(Args args) {
  if (args.empty()) return usage();
  const std::string_view action = args[0];
  std::string config_path, state_dir, name;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if ((a == "-c" || a == "--config") && i + 1 < args.size()) {
      config_path = args[++i];
    } else if (a == "--state-dir" && i + 1 < args.size()) {
      state_dir = args[++i];
    } else if (!a.starts_with('-') && name.empty()) {
      name = a;
    } else {
      return usage();
    }
  }
  if (config_path.empty() == state_dir.empty()) return usage();
  const bool needs_name = action == "set" || action == "rm";
  if (needs_name != !name.empty()) return usage();
  if (action != "set" && action != "rm" && action != "list" && action != "rotate-key") {
    return usage();
  }
  if (!config_path.empty()) {
    auto config = config::loadConfig(config_path, config::LoadOptions{.resolve_secrets = false});
    if (!config) return failed(config.error().message);
    state_dir = (*config)->state_dir;
  }
  const secrets::Locations where = secrets::locationsFor(state_dir);
  auto key = secrets::findKey(where, /*create=*/action == "set");
  if (!key) return failed(key.error());
  if (action == "rotate-key") return rotate(where, *key);
  auto store = secrets::Store::open(where.store, *key);
  if (!store) return failed(store.error());
  if (action == "list") {
    for (const std::string& n : store->names()) std::cout << n << "\n";
    return 0;
  }
  if (action == "rm") {
    if (!store->remove(name)) return failed("no secret named '" + name + "' in " + where.store);
    if (auto saved = store->save(); !saved) return failed(saved.error());
    return 0;
  }
  if (::isatty(STDIN_FILENO)) std::cerr << "value of " << name << " on stdin (end with Ctrl-D):\n";
  std::string value = readStdin();
  auto set = store->set(name, value);
  OPENSSL_cleanse(value.data(), value.size());
  if (!set) return failed(set.error());
  if (auto saved = store->save(); !saved) return failed(saved.error());
  std::cerr << "stored " << name << " in " << where.store << " (key: " << key->source << ")\n";
  return 0;
}

}  // namespace mcpgate::gateway
