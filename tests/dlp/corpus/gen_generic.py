"""generic (issue 14, session 17): keys of services no rule names, in the shapes a secret
leaks in (env files, YAML, JSON, code, shell, logs, headers, URLs, docs), and key-named values
that are not credentials (cache, object, sort, partition, idempotency and public keys, digests,
UUIDs, key ids, keyboard keys). Written after a 100-line probe of my own (20 shapes, 5 made-up
services) had tuned three new rules (generic-key-assignment, generic-key-phrase,
generic-header-credential); these shapes and names are new, and the file was scored once
before any further change (the figures are in bench/RESULTS.md).

Every service name is made up; every value is random. Some shapes are out of reach of any
keyword-free rule (a key passed positionally with no name near it) and are kept to show it.
"""

import json
import random
import string

from mcpmsg import call, result, resource

SEED = 1717
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"

SERVICES = ["lumenpay", "orbitdesk", "quillcast", "ferrolabs", "saltmarsh", "junebug", "kestrel",
            "tidewell", "corvexa", "plinth", "mossgrid", "vantora", "brindle", "ostrava", "nubix",
            "grapholio", "hexaplan", "tallyho", "zephra", "wickline"]


def rand(g, n, alphabet=ALNUM):
    while True:
        s = "".join(g.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def value(g):
    kind = g.randrange(6)
    if kind == 0:
        return rand(g, 32, HEX)
    if kind == 1:
        return rand(g, 40)
    if kind == 2:
        return rand(g, 24) + "-" + rand(g, 12)
    if kind == 3:
        return rand(g, 64, HEX)
    if kind == 4:
        return rand(g, 43, ALNUM + "+/") + "="
    return rand(g, 28)


def up(s):
    return s.upper()


def cap(s):
    return s[0].upper() + s[1:]


# (shape, text(service, value)): what a user pastes or a tool returns.
POSITIVE = [
    ("env", lambda s, v: f"# {s}\n{up(s)}_API_KEY={v}\n{up(s)}_REGION=eu-1\n"),
    ("env", lambda s, v: f"{up(s)}_KEY={v}\nLOG_LEVEL=info\n"),
    ("env", lambda s, v: f"export {up(s)}_AUTH_KEY=\"{v}\"\n"),
    ("yaml", lambda s, v: f"{s}:\n  key: {v}\n  endpoint: https://api.{s}.io\n"),
    ("yaml", lambda s, v: f"integrations:\n  {s}:\n    api_key: \"{v}\"\n    enabled: true\n"),
    ("json", lambda s, v: json.dumps({f"{s}Key": v, "timeout": 30})),
    ("json", lambda s, v: json.dumps({s: {"key": v, "retries": 3}})),
    ("python", lambda s, v: f"client = {cap(s)}(api_key=\"{v}\")\nclient.ping()\n"),
    ("python", lambda s, v: f"import {s}\n{s}.api_key = '{v}'\n"),
    ("python", lambda s, v: f"{cap(s)}Client(key=\"{v}\", timeout=10)"),
    ("js", lambda s, v: f"const {up(s)}_KEY = \"{v}\";\nexport default {up(s)}_KEY;\n"),
    ("js", lambda s, v: f"const client = new {cap(s)}({{ key: '{v}' }});"),
    ("js", lambda s, v: f"fetch(url, {{ headers: {{ 'X-{cap(s)}-Key': '{v}' }} }})"),
    ("shell", lambda s, v: f"curl https://api.{s}.io/v1/items?key={v}"),
    ("shell", lambda s, v: f"curl -H \"Authorization: Key {v}\" https://api.{s}.io/v1/me"),
    ("shell", lambda s, v: f"docker run -e {up(s)}_KEY={v} {s}/agent:latest"),
    ("log", lambda s, v: f"2024-05-02T10:11:12Z INFO {s}: authenticated with key {v}"),
    ("log", lambda s, v: f"DEBUG request headers: {{'X-{cap(s)}-Api-Key': '{v}', 'Accept': '*/*'}}"),
    ("toml", lambda s, v: f"[{s}]\napi_key = \"{v}\"\nurl = \"https://api.{s}.io\"\n"),
    ("ini", lambda s, v: f"[{s}]\nkey={v}\n"),
    ("compose", lambda s, v: f"services:\n  worker:\n    environment:\n      {up(s)}_KEY: {v}\n"),
    ("terraform", lambda s, v: f"provider \"{s}\" {{\n  api_key = \"{v}\"\n}}\n"),
    ("docs", lambda s, v: f"Your {cap(s)} API key: {v}\nKeep it safe."),
    ("docs", lambda s, v: f"Use the access key {v} for the {s} sandbox."),
    ("php", lambda s, v: f"define('{up(s)}_KEY', '{v}');"),
    ("csharp", lambda s, v: f"var client = new {cap(s)}Client(apiKey: \"{v}\");"),
    ("kubernetes", lambda s, v: f"env:\n  - name: {up(s)}_API_KEY\n    value: \"{v}\"\n"),
    ("positional", lambda s, v: f"client := {s}.New(\"{v}\")"),
]

# Key-named values that are not credentials, and look-alike strings a tool returns every day.
BENIGN = [
    lambda g: f"Cache restored from key: npm-cache-Linux-{rand(g, 64, HEX)}",
    lambda g: json.dumps({"Key": f"reports/2024/q{g.randrange(1, 5)}/summary-{rand(g, 8, HEX)}.pdf",
                          "Size": g.randrange(1000, 90000), "ETag": f"\"{rand(g, 32, HEX)}\""}),
    lambda g: json.dumps({"TableName": "orders", "Key": {"pk": {"S": f"USER#{g.randrange(10**6)}"},
                                                         "sk": {"S": "ORDER#2024-05-01"}}}),
    lambda g: f"sortKey: \"createdAt#2024-0{g.randrange(1, 9)}-1{g.randrange(9)}T00:00:00Z\"",
    lambda g: f"Idempotency-Key: {uuid(g)}",
    lambda g: json.dumps({"idempotency_key": rand(g, 32), "amount": 1200, "currency": "eur"}),
    lambda g: f"\"key\": \"sha256:{rand(g, 64, HEX)}\"",
    lambda g: f"The key fingerprint is SHA256:{rand(g, 43, ALNUM + '+/')}.",
    lambda g: f"gpg: key {rand(g, 16, HEX).upper()}: public key \"Release Signing\" imported",
    lambda g: f"keyId: arn:aws:kms:eu-west-1:{g.randrange(10**11, 10**12)}:key/{uuid(g)}",
    lambda g: f"public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rand(g, 43)} deploy@ci",
    lambda g: json.dumps({"publicKey": "B" + rand(g, 86, ALNUM + "-_"), "subject": "https://push.acme.example"}),
    lambda g: f"partition_key = \"{rand(g, 24)}\"",
    lambda g: f"cache_key = \"{rand(g, 40, HEX)}\"",
    lambda g: f"primaryKey: '{g.choice(['id', 'uuid', 'slug'])}'",
    lambda g: f"<li key={{item.id}}>{{item.name}}</li>",
    lambda g: json.dumps({"key": g.choice(["ArrowUp", "Enter", "Escape", "Tab"]), "code": "KeyA"}),
    lambda g: f"dedupe_key: {rand(g, 32, HEX)}",
    lambda g: f"terraform {{\n  backend \"s3\" {{\n    key = \"env/prod/{rand(g, 6, HEX)}.tfstate\"\n  }}\n}}",
    lambda g: "- uses: actions/cache@v4\n  with:\n    key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements.txt') }}",
    lambda g: json.dumps({"key": uuid(g), "value": g.randrange(100)}),
    lambda g: f"X-Cache-Key: /v1/pages/home-{rand(g, 40, HEX)}",
    lambda g: f"X-Request-Id: {rand(g, 32, HEX)}",
    lambda g: f"X-GitHub-Delivery: {uuid(g)}",
    lambda g: f"X-Correlation-Token: {rand(g, 32)}",
    lambda g: f"secret_key_base: <%= ENV[\"SECRET_KEY_BASE\"] %>",
    lambda g: "Create an API key in the dashboard, then paste it into the settings page.",
    lambda g: f"API key rotation is scheduled for 2024-1{g.randrange(3)}-01 at 00:00 UTC.",
    lambda g: f"The access key ID AKIA-style prefix identifies the key; the key itself is never shown.",
    lambda g: f"message_key = \"{rand(g, 32, HEX)}\"",
    lambda g: f"ObjectKey: \"media/{rand(g, 12, HEX)}/thumbnail.jpg\"",
    lambda g: f"{{\"etag\": \"W/{rand(g, 40, HEX)}\", \"key\": \"assets/app.{rand(g, 8, HEX)}.js\"}}",
    lambda g: f"commit {rand(g, 40, HEX)}\nAuthor: Dev Team\n\n    Rotate keys in staging",
    lambda g: f"lookup key = {rand(g, 32, HEX)}",
    lambda g: f"routing_key: orders.{g.choice(['created', 'paid', 'shipped'])}.eu",
    lambda g: f"hash key: {rand(g, 64, HEX)}",
    lambda g: f"licenseKeyId: lk_{g.randrange(10**6)}",
    lambda g: f"\"keyboard_layout\": \"de-CH\", \"hotkey\": \"Ctrl+Shift+K\"",
]


def uuid(g):
    h = rand(g, 32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def carry(g, text):
    kind = g.choice(["call", "result", "resource"])
    if kind == "call":
        return "request", call("write_file", {"path": "notes.txt", "content": text})
    if kind == "result":
        return "response", result(text)
    return "response", resource("file:///srv/app/config.txt", text)


# Structured: the key sits in a tool's arguments or a JSON result, not in a text (added with
# the json_key rules, after the text shapes above were scored).
STRUCTURED = [
    lambda s, v: call("configure", {"service": s, "token": v}),
    lambda s, v: call("connect", {"provider": s, "auth": {"key": v}}),
    lambda s, v: call("set_secret", {"name": f"{s}-prod", "secret": v}),
    lambda s, v: result_json({"integration": s, "credentials": {"Authorization": f"Bearer {v}"}}),
]
STRUCTURED_BENIGN = [
    lambda g: result_json({"items": [{"id": g.randrange(10**6)}], "nextPageToken": rand(g, 32)}),
    lambda g: result_json({"key": rand(g, 40, HEX), "hits": g.randrange(100)}),
    lambda g: call("kv_get", {"key": f"user:{g.randrange(10**5)}:profile"}),
    lambda g: result_json({"token_type": "Bearer", "expires_in": 3600, "scope": "read"}),
    lambda g: call("translate", {"key": "dashboard.header.title", "locale": "de"}),
    lambda g: result_json({"usage": {"prompt_tokens": 812, "completion_tokens": 95}, "token": None}),
]


# Credentials on a command line, as a shell tool's argument (written with rules/secrets/
# cli_credentials.yaml, so these are its tuning set, not an unseen estimate).
CLI = [
    lambda v: f"mysql -h db.internal -u app -p{v} app_prod < dump.sql",
    lambda v: f"mongosh --username admin --password {v} --host db.internal",
    lambda v: f"sshpass -p '{v}' scp build.tgz deploy@10.0.0.5:/srv",
    lambda v: f"docker login registry.internal -u ci -p {v}",
    lambda v: f"redis-cli -h cache.internal -a {v} FLUSHDB",
    lambda v: f"curl -fsS -u jenkins:{v} https://ci.internal/job/app/build",
    lambda v: f"openssl pkcs12 -export -in site.pem -out site.p12 -passout pass:{v}",
    lambda v: f"printf 'machine git.internal login ci password {v}\\n' > ~/.netrc",
    lambda v: f"echo 'db.internal:5432:app:app:{v}' >> ~/.pgpass",
    lambda v: f"psql --dbname=app --password={v}",
]
CLI_BENIGN = [
    "mysql -h db.internal -u app -p app_prod < dump.sql",
    "mysql -u root -p\"$MYSQL_ROOT_PASSWORD\" -e 'show databases'",
    "sshpass -e scp build.tgz deploy@10.0.0.5:/srv",
    "echo \"$CI_TOKEN\" | docker login registry.internal -u ci --password-stdin",
    "redis-cli -h cache.internal -p 6380 INFO memory",
    "curl -fsS -u \"jenkins:${JENKINS_TOKEN}\" https://ci.internal/job/app/build",
    "openssl pkcs12 -export -in site.pem -out site.p12 -passout env:P12_PASS",
    "openssl rand -base64 32",
    "psql --dbname=app --password",
    "git log --pretty=format:'%h %an %s' -n 20",
    "grep -rn 'password' src/ --include=*.py",
    "awk -F: '{print $1\":\"$3}' /etc/passwd",
]


def result_json(obj):
    return {"jsonrpc": "2.0", "id": 1, "result": {"structuredContent": obj,
                                                  "content": [{"type": "text", "text": "ok"}]}}


def main():
    g = random.Random(SEED)
    pos, ben = [], []
    for i, (shape, make) in enumerate(POSITIVE):
        for j in range(5):
            service = SERVICES[(i * 5 + j) % len(SERVICES)]
            direction, msg = carry(g, make(service, value(g)))
            pos.append({"id": f"secrets_generic-{len(pos):04d}", "label": "secret",
                        "family": f"generic_{shape}", "kind": shape, "direction": direction,
                        "message": msg})
    for i, make in enumerate(STRUCTURED):
        for j in range(5):
            msg = make(SERVICES[(i * 5 + j) % len(SERVICES)], value(g))
            pos.append({"id": f"secrets_generic-{len(pos):04d}", "label": "secret",
                        "family": "generic_structured", "kind": "structured",
                        "direction": "request" if "method" in msg else "response",
                        "message": msg})
    for i, make in enumerate(CLI):
        for j in range(3):
            v = rand(g, g.choice([10, 14, 20]), ALNUM + "!@#%^*_")
            pos.append({"id": f"secrets_generic-{len(pos):04d}", "label": "secret",
                        "family": "generic_cli", "kind": "cli", "direction": "request",
                        "message": call("run_shell", {"command": make(v)})})
    for i, make in enumerate(BENIGN):
        for j in range(4):
            direction, msg = carry(g, make(g))
            ben.append({"id": f"benign_generic-{len(ben):04d}", "label": "benign",
                        "family": "generic_lookalike", "kind": f"lookalike{i}",
                        "direction": direction, "message": msg})
    for i, make in enumerate(STRUCTURED_BENIGN):
        for j in range(4):
            msg = make(g)
            ben.append({"id": f"benign_generic-{len(ben):04d}", "label": "benign",
                        "family": "generic_structured", "kind": f"structured{i}",
                        "direction": "request" if "method" in msg else "response",
                        "message": msg})
    for i, text in enumerate(CLI_BENIGN):
        for j in range(2):
            ben.append({"id": f"benign_generic-{len(ben):04d}", "label": "benign",
                        "family": "generic_cli", "kind": f"cli{i}", "direction": "request",
                        "message": call("run_shell", {"command": text})})
    for name, rows in (("secrets_generic.jsonl", pos), ("benign_generic.jsonl", ben)):
        with open(name, "w") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
