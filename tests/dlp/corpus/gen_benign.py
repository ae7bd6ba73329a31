"""Benign MCP traffic: what tools ask and answer all day (code, configs, logs, docs, JSON APIs,
hashes and ids, shell commands, tool lists) plus the look-alikes a DLP must stay quiet on:
placeholders in docs, high-entropy non-secrets, and prose ABOUT secrets and prompt injection."""

import base64
import hashlib
import json

from gen_secrets import AN, HEX, LO, DG, r, uuid
from mcpmsg import call, result, resource, tools_list, prompt, sampling

WORDS = ("order invoice customer widget report cache queue worker shard replica metric bucket "
         "tenant session upload export import schedule deploy release build artifact package "
         "module service handler router parser token lexer index query filter mapper reducer "
         "stream buffer socket client server request response payload header cookie profile "
         "account project team user group role policy audit event alert rule channel message "
         "thread task job batch retry backoff timeout limit quota region zone cluster node pod").split()
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]
CITIES = ["Lisbon", "Oslo", "Osaka", "Lima", "Nairobi", "Quito", "Perth", "Tallinn", "Porto"]


def w(g, n=1):
    return "_".join(g.choice(WORDS) for _ in range(n))


def sha256(g):
    return hashlib.sha256(bytes(g.randrange(256) for _ in range(16))).hexdigest()


def sha1(g):
    return hashlib.sha1(bytes(g.randrange(256) for _ in range(16))).hexdigest()


def ts(g):
    return (f"2026-{g.randrange(1, 12):02d}-{g.randrange(1, 28):02d}T{g.randrange(24):02d}:"
            f"{g.randrange(60):02d}:{g.randrange(60):02d}Z")


# --- source types. Each returns (direction, message).

def code_python(g):
    a, b = w(g), w(g)
    body = (f"import os\nimport hashlib\n\nAPI_KEY = os.environ[\"{a.upper()}_API_KEY\"]\n"
            f"TOKEN = os.getenv(\"{b.upper()}_TOKEN\", \"\")\n\n"
            f"def {a}_{b}(items, limit={g.randrange(5, 500)}):\n"
            f"    \"\"\"Returns the {a} digests of {b} items.\"\"\"\n"
            f"    out = []\n    for it in items[:limit]:\n"
            f"        out.append(hashlib.sha256(it.encode()).hexdigest())\n    return out\n\n"
            f"EXPECTED = \"{sha256(g)}\"\n")
    return g.choice([("response", result(body)),
                     ("request", call("write_file", {"path": f"src/{a}.py", "content": body}))])


def code_js(g):
    a = w(g)
    body = (f"export async function get{a.title().replace('_', '')}(id) {{\n"
            f"  const res = await fetch(`${{BASE_URL}}/v2/{a}s/${{id}}`, {{\n"
            f"    headers: {{ Authorization: `Bearer ${{process.env.API_TOKEN}}` }},\n  }});\n"
            f"  if (!res.ok) throw new Error(`{a} ${{id}}: ${{res.status}}`);\n"
            f"  return res.json();\n}}\n// cache key: {sha1(g)}\n")
    return g.choice([("response", result(body)),
                     ("request", call("edit_file", {"path": f"web/{a}.ts", "new_text": body}))])


def code_go(g):
    a = w(g)
    body = (f"package {a.split('_')[0]}\n\nimport (\n\t\"context\"\n\t\"os\"\n)\n\n"
            f"// New{a.title().replace('_', '')} reads its secret from the environment.\n"
            f"func New(ctx context.Context) (*Client, error) {{\n"
            f"\tkey := os.Getenv(\"SERVICE_API_KEY\")\n\tif key == \"\" {{\n"
            f"\t\treturn nil, ErrNoKey\n\t}}\n\treturn &Client{{key: key, retries: {g.randrange(1, 9)}}}, nil\n}}\n")
    return "response", result(body)


def code_cpp(g):
    a = w(g)
    body = (f"#include <string>\n\nnamespace {a.split('_')[0]} {{\n"
            f"constexpr std::string_view kBuildId = \"{sha1(g)}\";\n"
            f"int {a}(const std::string& s) {{ return static_cast<int>(s.size()) * {g.randrange(2, 99)}; }}\n}}\n")
    return "response", resource(f"file:///repo/src/{a}.cc", body, "text/x-c++")


def config_yaml(g):
    a = w(g)
    body = (f"service: {a}\nreplicas: {g.randrange(1, 9)}\nimage: registry.example.com/{a}@sha256:{sha256(g)}\n"
            f"database:\n  host: db.internal\n  port: 5432\n  user: {a}\n  password: ${{DB_PASSWORD}}\n"
            f"api:\n  key: ${{{a.upper()}_API_KEY}}\n  timeout: {g.randrange(1, 60)}s\n"
            f"features:\n  - {w(g)}\n  - {w(g)}\n")
    return g.choice([("response", result(body)),
                     ("request", call("write_file", {"path": f"deploy/{a}.yaml", "content": body}))])


def config_env_example(g):
    body = (f"# Copy to .env and fill in\nAPP_NAME={w(g)}\nDATABASE_URL=postgres://USER:PASSWORD@localhost:5432/app\n"
            f"REDIS_URL=redis://localhost:6379/0\nSTRIPE_SECRET_KEY=<your-stripe-secret-key>\n"
            f"OPENAI_API_KEY=YOUR_API_KEY\nGITHUB_TOKEN=${{GITHUB_TOKEN}}\nSMTP_PASSWORD=********\n"
            f"SESSION_SECRET=changeme-in-production\nPORT={g.randrange(3000, 9000)}\n")
    return "response", resource("file:///repo/.env.example", body)


def config_json(g):
    a = w(g)
    cfg = {"name": a, "version": f"{g.randrange(1, 5)}.{g.randrange(20)}.{g.randrange(20)}",
           "endpoint": f"https://api.example.com/{a}", "retries": g.randrange(5),
           "auth": {"type": "oauth2", "client_id": f"{a}-web", "client_secret": "${CLIENT_SECRET}",
                    "token_url": "https://auth.example.com/oauth/token"},
           "checksum": sha256(g), "build": uuid(g)}
    return g.choice([("request", call("update_settings", {"settings": cfg})),
                     ("response", result(json.dumps(cfg, indent=2)))])


def config_toml(g):
    a = w(g)
    body = (f"[package]\nname = \"{a.replace('_', '-')}\"\nversion = \"0.{g.randrange(30)}.{g.randrange(9)}\"\n"
            f"edition = \"2021\"\n\n[dependencies]\nserde = {{ version = \"1\", features = [\"derive\"] }}\n"
            f"tokio = \"1.{g.randrange(20, 40)}\"\n\n[registries.internal]\nindex = \"sparse+https://crates.internal.example/\"\n"
            f"token = \"${{CARGO_REGISTRY_TOKEN}}\"\n")
    return "response", result(body)


def config_ini(g):
    body = (f"[server]\nhost = 0.0.0.0\nport = {g.randrange(1024, 65535)}\nworkers = {g.randrange(1, 32)}\n\n"
            f"[auth]\npassword_file = /run/secrets/{w(g)}_password\ntoken_env = AUTH_TOKEN\n"
            f"secret = <set via environment>\n\n[log]\nlevel = {g.choice(['info', 'debug', 'warn'])}\n")
    return "response", result(body)


def log_nginx(g):
    lines = []
    for _ in range(g.randrange(3, 8)):
        lines.append(f"10.{g.randrange(255)}.{g.randrange(255)}.{g.randrange(255)} - - [{ts(g)}] "
                     f"\"{g.choice(['GET', 'POST', 'PUT'])} /api/v1/{w(g)}/{g.randrange(10**6)}?page={g.randrange(9)} HTTP/1.1\" "
                     f"{g.choice([200, 200, 201, 304, 404, 500])} {g.randrange(100, 90000)} \"-\" \"Mozilla/5.0\"")
    return "response", result("\n".join(lines))


def log_app(g):
    lines = []
    for _ in range(g.randrange(3, 8)):
        lines.append(f"{ts(g)} {g.choice(['INFO', 'WARN', 'DEBUG', 'ERROR'])} {w(g)}: "
                     f"request_id={uuid(g)} trace_id={r(g, HEX, 32)} span_id={r(g, HEX, 16)} "
                     f"duration_ms={g.randrange(1, 3000)} status={g.choice(['ok', 'retry', 'timeout'])}")
    return "response", result("\n".join(lines))


def log_ci(g):
    body = (f"Run actions/checkout@{sha1(g)}\nSyncing repository: acme/{w(g)}\n"
            f"Fetching the repository\n  git -c protocol.version=2 fetch --depth=1 origin {sha1(g)}\n"
            f"Run npm ci\nadded {g.randrange(100, 1500)} packages in {g.randrange(5, 90)}s\n"
            f"Run npm test\n  Tests: {g.randrange(10, 900)} passed\nToken: ***\n"
            f"Cache saved with key: node-cache-Linux-{sha256(g)}\n")
    return "response", result(body)


def log_k8s(g):
    lines = [f"NAME{' ' * 30}READY   STATUS    RESTARTS   AGE"]
    for _ in range(g.randrange(3, 7)):
        lines.append(f"{w(g).replace('_', '-')}-{r(g, LO + DG, 10)}-{r(g, LO + DG, 5)}   1/1     "
                     f"{g.choice(['Running', 'Pending', 'Completed'])}   {g.randrange(4)}          {g.randrange(1, 60)}d")
    return "response", result("\n".join(lines))


def doc_api(g):
    a = w(g)
    body = (f"## Authentication\n\nEvery request to the {a} API needs a key. Create one in the dashboard "
            f"under **Settings > API keys**, then send it in the `Authorization` header:\n\n"
            f"```sh\ncurl https://api.example.com/v1/{a}s \\\n  -H \"Authorization: Bearer $API_KEY\"\n```\n\n"
            f"Keys are secret: never commit them, and rotate them every {g.randrange(30, 180)} days.\n")
    return "response", resource(f"https://docs.example.com/{a}/auth", body, "text/markdown")


def doc_readme(g):
    a = w(g).replace("_", "-")
    body = (f"# {a}\n\n[![build](https://ci.example.com/{a}/badge.svg)](https://ci.example.com/{a})\n\n"
            f"A small library for {g.choice(WORDS)} processing.\n\n## Install\n\n    npm install {a}\n\n"
            f"## Usage\n\n```js\nimport {{ run }} from '{a}';\nawait run({{ retries: {g.randrange(5)} }});\n```\n\n"
            f"## License\n\nMIT\n")
    return "response", result(body)


def doc_placeholder(g):
    variants = [
        "Set `STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx` in your environment (use your own key).",
        "Replace `ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX` with your personal access token.",
        "export OPENAI_API_KEY=\"sk-...\"  # your key here",
        "Authorization: Bearer <YOUR_ACCESS_TOKEN>",
        "aws_access_key_id = YOUR_ACCESS_KEY_ID\naws_secret_access_key = YOUR_SECRET_ACCESS_KEY",
        "DATABASE_URL=postgres://<user>:<password>@<host>:5432/<db>",
        "api_key: ${API_KEY}\napi_secret: ${API_SECRET}",
        "password: \"****************\"",
        "SLACK_BOT_TOKEN=xoxb-your-bot-token",
        "mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/test",
        "HF_TOKEN=hf_...  (create one at Settings > Access Tokens)",
        "token: {{ .Values.apiToken }}",
        "client_secret = os.environ.get(\"CLIENT_SECRET\")",
    ]
    text = "Configuration\n\n" + g.choice(variants) + "\n\nSee the docs for details."
    return "response", resource(f"https://docs.example.com/setup/{g.randrange(999)}", text)


def json_api_issues(g):
    items = [{"id": g.randrange(10**8), "number": g.randrange(1, 5000),
              "title": f"{w(g).replace('_', ' ')} fails when {w(g).replace('_', ' ')} is empty",
              "user": {"login": g.choice(NAMES), "node_id": "MDQ6VXNlcj" + r(g, AN, 10)},
              "state": g.choice(["open", "closed"]), "created_at": ts(g),
              "labels": [g.choice(["bug", "enhancement", "docs"])],
              "url": f"https://api.github.com/repos/acme/{w(g)}/issues/{g.randrange(5000)}"}
             for _ in range(g.randrange(2, 5))]
    return "response", result(json.dumps(items))


def json_api_weather(g):
    data = {"city": g.choice(CITIES), "temp_c": round(g.uniform(-10, 35), 1),
            "humidity": g.randrange(100), "wind_kph": g.randrange(60),
            "forecast": [{"day": d, "high": g.randrange(5, 35), "low": g.randrange(-5, 20)}
                         for d in ["mon", "tue", "wed"]], "station": uuid(g)}
    return "response", result(json.dumps(data))


def json_api_package(g):
    a = w(g).replace("_", "-")
    digest = base64.b64encode(hashlib.sha512(a.encode() + bytes([g.randrange(256)])).digest()).decode()
    data = {"name": a, "version": f"{g.randrange(1, 9)}.{g.randrange(20)}.{g.randrange(20)}",
            "dist": {"integrity": f"sha512-{digest}", "shasum": sha1(g),
                     "tarball": f"https://registry.npmjs.org/{a}/-/{a}-1.0.0.tgz"},
            "maintainers": [{"name": g.choice(NAMES)}], "license": "MIT"}
    return "response", result(json.dumps(data))


def json_api_search(g):
    hits = [{"title": f"{w(g).replace('_', ' ').title()} guide", "url": f"https://example.org/{w(g)}",
             "snippet": f"How to configure {w(g).replace('_', ' ')} with {w(g).replace('_', ' ')}.",
             "score": round(g.random(), 3)} for _ in range(g.randrange(3, 6))]
    return "response", result(json.dumps({"query": w(g), "hits": hits, "took_ms": g.randrange(90)}))


def json_api_cloud(g):
    data = {"Reservations": [{"Instances": [{
        "InstanceId": "i-" + r(g, HEX, 17), "ImageId": "ami-" + r(g, HEX, 17),
        "State": {"Name": "running"}, "PrivateIpAddress": f"10.0.{g.randrange(255)}.{g.randrange(255)}",
        "Arn": f"arn:aws:ec2:eu-west-1:{r(g, DG, 12)}:instance/i-{r(g, HEX, 17)}",
        "IamInstanceProfile": {"Id": "AIPA" + r(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 17)}}]}],
        "RequestId": uuid(g)}
    return "response", result(json.dumps(data))


def hashes(g):
    lines = [f"{sha256(g)}  dist/{w(g)}-{g.randrange(9)}.{g.randrange(9)}.tar.gz" for _ in range(g.randrange(2, 6))]
    return "response", result("\n".join(lines))


def git_log(g):
    lines = []
    for _ in range(g.randrange(3, 7)):
        lines.append(f"commit {sha1(g)}\nAuthor: {g.choice(NAMES).title()} <{g.choice(NAMES)}@users.noreply.github.com>\n"
                     f"Date:   {ts(g)}\n\n    {w(g).replace('_', ' ')}: fix {w(g).replace('_', ' ')}\n")
    return "response", result("\n".join(lines))


def docker_images(g):
    lines = ["REPOSITORY   TAG   DIGEST   IMAGE ID"]
    for _ in range(g.randrange(2, 6)):
        lines.append(f"registry.example.com/{w(g)}   v{g.randrange(9)}   sha256:{sha256(g)}   {r(g, HEX, 12)}")
    return "response", result("\n".join(lines))


def uuids(g):
    rows = [{"id": uuid(g), "etag": f"W/\"{r(g, HEX, 32)}\"", "session": r(g, HEX, 40),
             "nonce": base64.b64encode(bytes(g.randrange(256) for _ in range(12))).decode()}
            for _ in range(g.randrange(2, 5))]
    return g.choice([("response", result(json.dumps(rows))),
                     ("request", call("bulk_update", {"rows": rows}))])


def shell_request(g):
    cmds = ["git status --short", "ls -la /workspace", f"npm install {w(g).replace('_', '-')}",
            "pip install -r requirements.txt", f"docker build -t {w(g)}:dev .", "kubectl get pods -n prod",
            "curl -s https://api.github.com/repos/acme/widgets", f"grep -rn '{w(g)}' src/",
            "rm -rf ./build && cmake -B build", "make -j4 test", "cargo test --all",
            "python3 -m pytest -q", "git log --oneline -n 20", "cat package.json",
            f"find . -name '*.{g.choice(['py', 'ts', 'go'])}' | wc -l", "df -h /", "go vet ./..."]
    return "request", call("run_command", {"command": g.choice(cmds), "timeout": g.randrange(10, 120)})


def shell_result(g):
    body = (f"$ npm test\n\n> {w(g)}@1.0.0 test\n> jest\n\nPASS src/{w(g)}.test.ts\n"
            f"Tests: {g.randrange(5, 300)} passed, {g.randrange(5, 300)} total\nTime: {g.randrange(1, 30)}.{g.randrange(9)}s\n")
    return "response", result(body)


def prose_security(g):
    texts = [
        "Never store API keys in source control. Use a secret manager such as Vault or AWS Secrets "
        "Manager, inject secrets at runtime through environment variables, and rotate them regularly.",
        "Prompt injection happens when text that a model reads, such as a web page or a tool result, "
        "contains instructions that try to change the model's behaviour. Defences include treating "
        "tool output as data, limiting tool permissions and asking the user to confirm sensitive actions.",
        "Our incident review found that a leaked token was used from an unknown IP. We revoked it within "
        "ten minutes, rotated all related credentials and added secret scanning to CI.",
        "Tool poisoning is an attack where a malicious MCP server hides instructions in a tool "
        "description. Clients should show users full tool descriptions and pin them after review.",
        "A JWT has three parts: header, payload and signature, each base64url-encoded and separated by dots. "
        "Always verify the signature and the expiry before trusting the claims.",
        "Password policy: at least 12 characters, checked against known breached passwords; MFA is "
        "required for all administrator accounts.",
        "The OWASP Top 10 for LLM applications lists prompt injection first, followed by insecure "
        "output handling and training data poisoning.",
        "Red-team exercise summary: testers tried to make the assistant reveal its configuration; the "
        "guardrails held and every attempt was logged for review.",
        "Private keys should be generated on the host that uses them and never leave it; use an HSM or "
        "a KMS for signing keys in production.",
        "When reviewing a pull request, check that no credentials, tokens or connection strings with "
        "passwords were added, including in test fixtures.",
        "Secret scanning tools look for known token prefixes and high-entropy strings near words like "
        "password or api_key, and verify candidates with the provider when possible.",
        "In our threat model, the assistant treats retrieved documents as untrusted: instructions inside "
        "them are data to summarize, never commands to follow.",
    ]
    t = g.choice(texts)
    return g.choice([("response", result(t)), ("response", resource(f"https://wiki.example.com/sec/{g.randrange(999)}", t)),
                     ("request", call("create_page", {"title": "Security notes", "body": t}))])


def prose_general(g):
    texts = [
        f"The meeting with the {g.choice(WORDS)} team moved to Thursday at 14:00. Please review the {g.choice(WORDS)} draft before then.",
        f"Summary: revenue in {g.choice(CITIES)} grew {g.randrange(2, 30)}% quarter over quarter, driven by {g.choice(WORDS)} sales.",
        f"{g.choice(CITIES)} is known for its old town, its harbour and a food market that opens at {g.randrange(6, 10)} am.",
        f"Reminder: the {g.choice(WORDS)} migration starts on {ts(g)[:10]}. Expect {g.randrange(5, 60)} minutes of read-only mode.",
        f"Ignore the {g.choice(WORDS)} warnings in the build output; they come from a vendored dependency and are tracked in issue #{g.randrange(9999)}.",
        f"You are now subscribed to the {g.choice(WORDS)} newsletter. You can unsubscribe at any time from your settings.",
        f"Please respond only if you can attend the {g.choice(WORDS)} review; otherwise no reply is needed.",
        f"The system prompt feature lets you give the model a role; see the guide on writing good system prompts.",
        f"Before using this tool, make sure the {g.choice(WORDS)} service is running and you are logged in.",
    ]
    return "response", result(g.choice(texts))


def tool_list_benign(g):
    tools = [
        ("read_file", "Reads a file from the allowed directories and returns its text.", {"path": "file path"}),
        ("send_email", "Sends an email to the given recipient. The user confirms before it is sent.", {"to": "recipient", "body": "message"}),
        ("search_web", "Searches the web and returns the top results with their URLs.", {"query": "terms"}),
        ("run_sql", "Runs a read-only SQL query against the analytics database.", {"sql": "the query"}),
        ("create_issue", "Creates an issue in the current repository.", {"title": "title", "body": "text"}),
        ("get_secret_names", "Lists the names (not the values) of the secrets in a vault path.", {"path": "vault path"}),
        ("http_get", "Fetches a URL and returns the response body as text. Only http and https are allowed.", {"url": "URL"}),
        ("summarize", "Summarizes a long text. Use it when the user asks for a summary of a document.", {"text": "input"}),
        ("list_calendar", "Lists the user's calendar events between two dates.", {"from": "start", "to": "end"}),
        ("write_file", "Writes text to a file; overwrites it if it exists. Ask the user before overwriting.", {"path": "file", "content": "text"}),
    ]
    picked = g.sample(tools, g.randrange(2, 6))
    return "response", tools_list(picked)


def prompts_and_sampling(g):
    if g.random() < 0.5:
        return "response", prompt("Code review", f"Review the following diff for bugs and style:\n\n"
                                  f"- retries = {g.randrange(5)}\n+ retries = {g.randrange(5, 9)}\n")
    return "response", sampling("You are a helpful assistant that writes concise summaries.",
                                f"Summarize the {g.choice(WORDS)} report in three bullet points.")


def requests_misc(g):
    return "request", g.choice([
        call("search_web", {"query": f"how to configure {w(g).replace('_', ' ')} in kubernetes"}),
        call("read_file", {"path": f"/workspace/src/{w(g)}.py"}),
        call("create_issue", {"title": f"{w(g)} crashes on empty input", "body": "Steps: run it with no args."}),
        call("run_sql", {"sql": f"SELECT id, created_at FROM {w(g)} WHERE status = 'open' LIMIT {g.randrange(10, 500)}"}),
        call("http_get", {"url": f"https://api.example.com/v1/{w(g)}?page={g.randrange(9)}"}),
        call("get_weather", {"city": g.choice(CITIES)}),
    ])


SOURCES = [
    ("code", [code_python, code_js, code_go, code_cpp], 300),
    ("config", [config_yaml, config_json, config_toml, config_ini], 240),
    ("env_example", [config_env_example], 40),
    ("logs", [log_nginx, log_app, log_ci, log_k8s], 260),
    ("docs", [doc_api, doc_readme], 160),
    ("placeholder_docs", [doc_placeholder], 100),
    ("json_api", [json_api_issues, json_api_weather, json_api_package, json_api_search, json_api_cloud], 300),
    ("hashes_ids", [hashes, git_log, docker_images, uuids], 220),
    ("shell", [shell_request, shell_result], 160),
    ("security_prose", [prose_security], 120),
    ("general_prose", [prose_general], 120),
    ("tool_descriptions", [tool_list_benign], 80),
    ("prompts_sampling", [prompts_and_sampling], 40),
    ("requests", [requests_misc], 120),
]


def benign(g):
    out = []
    for family, makers, n in SOURCES:
        for i in range(n):
            make = makers[i % len(makers)]
            direction, msg = make(g)
            out.append({"label": "benign", "family": family, "kind": make.__name__,
                        "direction": direction, "message": msg})
    return out
