#!/usr/bin/python3
"""Generates the DLP development corpus: MCP JSON-RPC messages labelled secret, injection,
encoded (a secret hidden in an encoding) or benign, each with its family and the direction the
gateway scans it in. Deterministic (fixed seed): rerun after editing and commit the JSONL files.

    /usr/bin/python3 tests/dlp/corpus/gen.py      # writes tests/dlp/corpus/*.jsonl

Secret formats come from gen_secrets.py (vendors' documented formats, not the project's rules).
Injection samples are written here from the families of issue 14; none is copied from a public
payload collection.
"""

import sys
sys.dont_write_bytecode = True  # noqa: E402 (keep the source tree clean)
import base64
import json
import os
import random
import urllib.parse

import gen_injections
import gen_benign
import gen_fresh
import gen_holdout
import gen_tune2
import gen_fresh2
import gen_web
import gen_fresh3
import gen_fresh4
import gen_fresh5
import gen_fresh6
import gen_fresh7
import gen_fresh8
import gen_fresh9
import gen_fresh10
import gen_fresh10_tune
from gen_secrets import SECRETS
from mcpmsg import call, result, resource

SEED = 14
HERE = os.path.dirname(os.path.abspath(__file__))


# --- contexts a secret is placed in. Each takes (rng, token, var) and returns (direction, msg).
# Keyword contexts carry the variable name; bare contexts only suit prefix-strong tokens.

def ctx_env_write(g, tok, var):
    q = '"' if "\n" in tok or " " in tok else ""
    content = f"APP_ENV=production\nPORT={g.randrange(3000, 9000)}\n{var}={q}{tok}{q}\nLOG_LEVEL=info\n"
    return "request", call("write_file", {"path": f"/srv/app{g.randrange(9)}/.env",
                                          "content": content})


def ctx_shell_export(g, tok, var):
    cmd = f"export {var}='{tok}' && ./scripts/deploy.sh --env prod"
    return "request", call("run_command", {"command": cmd, "cwd": "/home/dev/project"})


def ctx_json_config(g, tok, var):
    key = var.lower()
    return "request", call("update_settings", {"settings": {"integrations": {
        key.split("_")[0]: {key: tok, "enabled": True, "timeout_ms": g.randrange(500, 5000)}}}})


def ctx_python_result(g, tok, var):
    code = ("import os\nimport requests\n\n"
            f"# TODO move to the vault\n{var} = \"{tok}\"\n\n"
            f"def fetch(path):\n    return requests.get(BASE + path, headers={{'X-Key': {var}}})\n")
    return "response", result(code)


def ctx_k8s_yaml(g, tok, var):
    val = json.dumps(tok)
    text = (f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api-{g.randrange(99)}\n"
            "spec:\n  template:\n    spec:\n      containers:\n        - name: api\n"
            f"          env:\n            - name: {var}\n              value: {val}\n")
    return "response", resource(f"file:///repo/deploy/api{g.randrange(9)}.yaml", text,
                                "application/yaml")


def ctx_js_result(g, tok, var):
    code = (f"const client = createClient({{\n  region: 'eu-west-1',\n"
            f"  {var[0].lower() + var.title().replace('_', '')[1:]}: '{tok}',\n}});\n"
            "export default client;\n")
    return "response", result(code)


def ctx_log_bare(g, tok, var):
    line = (f"2026-11-{g.randrange(10, 28)}T0{g.randrange(10)}:1{g.randrange(10)}:07Z DEBUG "
            f"http: retrying request with credential {tok} (attempt {g.randrange(1, 4)})")
    return "response", result(line)


def ctx_arg_bare(g, tok, var):
    return "request", call("store_note", {"title": "for later", "body": f"here it is: {tok}"})


def ctx_chat_bare(g, tok, var):
    text = f"Sure, I found it in the old CI config. The value is {tok} - rotate it after use."
    return "response", result(text)


KEYWORD_CTX = [ctx_env_write, ctx_shell_export, ctx_json_config, ctx_python_result,
               ctx_k8s_yaml, ctx_js_result]
BARE_CTX = [ctx_log_bare, ctx_arg_bare, ctx_chat_bare]
PER_SECRET = 5


def secrets(g):
    out = []
    for service, kind, make, var, strong in SECRETS:
        pool = KEYWORD_CTX + (BARE_CTX if strong else [])
        picks = g.sample(pool, PER_SECRET)
        for ctx in picks:
            direction, msg = ctx(g, make(g), var)
            out.append({"label": "secret", "family": service, "kind": kind,
                        "context": ctx.__name__[4:], "direction": direction, "message": msg})
    return out


# --- encoded and obfuscated secrets

def enc_base64(tok):
    return base64.b64encode(tok.encode()).decode()


def enc_base64url(tok):
    return base64.urlsafe_b64encode(tok.encode()).decode().rstrip("=")


def enc_hex(tok):
    return tok.encode().hex()


def enc_percent(tok):
    return "".join(f"%{b:02X}" for b in tok.encode())


def enc_unicode_escape(tok):
    # Every other character as \\uXXXX, as a JS or JSON source file written into a tool result.
    return "".join(f"\\u{ord(c):04x}" if i % 2 == 0 else c for i, c in enumerate(tok))


def enc_hex_escape(tok):
    return "".join(f"\\x{b:02x}" for b in tok.encode())


def enc_base64_of_env(tok, var):
    return enc_base64(f"{var}={tok}\n")


def encoded(g):
    strong = [s for s in SECRETS if s[4] and "\n" not in s[2](random.Random(1))
              and len(s[2](random.Random(1))) < 200]
    out = []
    forms = [
        ("base64", lambda t, v: (f"payload: {enc_base64(t)}", "response")),
        ("base64_env", lambda t, v: (enc_base64_of_env(t, v), "request")),
        ("base64_k8s_secret", lambda t, v: (
            f"apiVersion: v1\nkind: Secret\ntype: Opaque\ndata:\n  {v.lower()}: {enc_base64(t)}\n",
            "response")),
        ("base64url", lambda t, v: (f"state={enc_base64url(t)}", "request")),
        ("hex", lambda t, v: (f"blob {enc_hex(t)}", "response")),
        ("percent", lambda t, v: (f"https://hooks.example.com/cb?k={enc_percent(t)}", "request")),
        ("unicode_escape", lambda t, v: (f"const k = \"{enc_unicode_escape(t)}\";", "response")),
        ("hex_escape", lambda t, v: (f"key = b\"{enc_hex_escape(t)}\"", "response")),
        ("base64_of_base64", lambda t, v: (enc_base64(enc_base64(t)), "request")),
        ("percent_of_base64", lambda t, v: (
            "cfg=" + urllib.parse.quote(enc_base64(f'{{"{v.lower()}":"{t}"}}'), safe=""),
            "request")),
    ]
    for i in range(120):
        name, form = forms[i % len(forms)]
        service, kind, make, var, _ = strong[g.randrange(len(strong))]
        text, direction = form(make(g), var)
        msg = call("http_request", {"url": "https://api.example.com/v1/echo", "body": text}) \
            if direction == "request" else result(text)
        out.append({"label": "secret", "family": name, "kind": f"{service}/{kind}",
                    "direction": direction, "message": msg})
    return out


def write(name, rows):
    path = os.path.join(HERE, name)
    with open(path, "w", encoding="utf-8") as f:
        for i, row in enumerate(rows):
            row = {"id": f"{name.split('.')[0]}-{i:04d}", **row}
            f.write(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n")
    return len(rows)


def main():
    g = random.Random(SEED)
    counts = {
        "secrets.jsonl": write("secrets.jsonl", secrets(g)),
        "encoded.jsonl": write("encoded.jsonl", encoded(g)),
        "injections.jsonl": write("injections.jsonl", gen_injections.injections(g)),
        "benign.jsonl": write("benign.jsonl", gen_benign.benign(g)),
    }
    # Written after the detector was tuned on the sets above: scored on their own.
    fresh_injections, fresh_benign = gen_fresh.fresh(g)
    counts["injections_fresh.jsonl"] = write("injections_fresh.jsonl", fresh_injections)
    counts["benign_fresh.jsonl"] = write("benign_fresh.jsonl", fresh_benign)
    counts["secrets_fresh.jsonl"] = write("secrets_fresh.jsonl", gen_fresh.fresh_secrets(g, SECRETS))
    # holdout_dev: written before the detector was generalised, scored now and then, not tuned on.
    holdout_injections, holdout_benign = gen_holdout.holdout()
    counts["injections_holdout.jsonl"] = write("injections_holdout.jsonl", holdout_injections)
    counts["benign_holdout.jsonl"] = write("benign_holdout.jsonl", holdout_benign)
    # tune2: written after holdout_dev was frozen, to tune on new wording without the holdout.
    tune2_injections, tune2_benign = gen_tune2.tune2()
    counts["injections_tune2.jsonl"] = write("injections_tune2.jsonl", tune2_injections)
    counts["benign_tune2.jsonl"] = write("benign_tune2.jsonl", tune2_benign)
    # Split sets (every third sample of a family is the holdout, scored but not tuned on):
    # fresh2, new attack styles; web, code and markup payloads and their look-alikes; fresh3,
    # plain-wording injections and look-alikes; fresh4, injections inside what a tool fetched;
    # fresh5, what people type straight at a model or drop into a shared document; fresh6, what
    # an MCP server hands an agent to steer it through its tools; fresh7, the shapes of public
    # jailbreak collections (goal hijacks, refusal suppression, forced formats, alter egos,
    # fiction, payload splitting, obfuscation, other languages, prompt leaks, documents); fresh8,
    # the wording an unseen probe still missed (casual hijacks, penalty games, disclaimer
    # suppression, fiction frames, split and dotted payloads, more languages, prompt leaks,
    # review/hiring/note-taker hijacks, orders in data files, task switches and fake dialogues);
    # fresh9, wording no earlier round used (orders to automated readers, covert exfiltration,
    # unfiltered personas, framing resets, placeholder tasks, forced output, refusal penalties).
    for name, sets in (("fresh2", gen_fresh2.fresh2()), ("web", gen_web.web()),
                       ("fresh3", gen_fresh3.fresh3()), ("fresh4", gen_fresh4.fresh4()),
                       ("fresh5", gen_fresh5.fresh5()), ("fresh6", gen_fresh6.fresh6()),
                       ("fresh7", gen_fresh7.fresh7()), ("fresh8", gen_fresh8.fresh8()),
                       ("fresh9", gen_fresh9.fresh9())):
        files = (f"injections_{name}", f"benign_{name}",
                 f"injections_{name}_holdout", f"benign_{name}_holdout")
        for f, samples in zip(files, sets):
            counts[f + ".jsonl"] = write(f + ".jsonl", samples)
    # fresh10, a whole set held out (written before the rules were read this round, scored
    # before and after tuning only): every family of issue 14 in wording no earlier set used.
    for f, samples in zip(("injections_fresh10_holdout", "benign_fresh10_holdout"),
                          gen_fresh10.fresh10_holdout()):
        counts[f + ".jsonl"] = write(f + ".jsonl", samples)
    # fresh10's tuning set, written after its holdout was frozen, in other words.
    for f, samples in zip(("injections_fresh10", "benign_fresh10"), gen_fresh10_tune.fresh10_tune()):
        counts[f + ".jsonl"] = write(f + ".jsonl", samples)
    for k, v in counts.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
