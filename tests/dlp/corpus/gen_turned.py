#!/usr/bin/env python3
"""Secrets written backwards, in ROT13, broken across lines or by quoted-printable soft breaks,
or gzipped inside base64 (issue 14's obfuscated secrets):
strong-prefix tokens from gen_secrets turned as a whole sentence, alone, or inside code, and
wrapped as a terminal or a mail client wraps them, in both directions.

    python3 tests/dlp/corpus/gen_turned.py   # writes encoded_turned.jsonl
"""

import base64
import codecs
import gzip
import json
import os
import random

from gen_secrets import SECRETS
from mcpmsg import call, result

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 2211


def rot13(s):
    return codecs.encode(s, "rot13")


def turned(g):
    strong = [s for s in SECRETS if s[4] and "\n" not in s[2](random.Random(1))
              and " " not in s[2](random.Random(1)) and len(s[2](random.Random(1))) < 200]
    forms = [
        ("reversed", lambda t, v: (t[::-1], "request")),
        ("reversed_sentence", lambda t, v: (f"the {v.lower()} for prod is {t}, keep it safe"[::-1],
                                            "response")),
        ("reversed_code", lambda t, v: (f'const k = reverse("{t[::-1]}");', "response")),
        ("rot13", lambda t, v: (rot13(t), "request")),
        ("rot13_sentence", lambda t, v: (rot13(f"use {t} as the {v.lower()}"), "response")),
        ("rot13_env", lambda t, v: (f"{v}_ROT13={rot13(t)}", "request")),
        ("line_broken", lambda t, v: (f"{v}={t[:len(t) // 2]}\n{t[len(t) // 2:]}\n", "response")),
        ("line_broken_indented", lambda t, v: (
            f"  {v.lower()}: {t[:12]}\r\n      {t[12:]}\r\n  other: 1", "request")),
        ("quoted_printable", lambda t, v: (
            "Content-Type: text/plain; charset=3Dutf-8\r\nContent-Transfer-Encoding: quoted-printable"
            f"\r\n\r\nHi team, the new {v.lower()} for the deploy job is {t[:10]}=\r\n{t[10:]} =E2=80=94 "
            "please rotate the old one.\r\n", "response")),
        ("gzip_base64", lambda t, v: (
            "release: " + base64.b64encode(gzip.compress(
                f'{{"env": {{"{v}": "{t}"}}}}'.encode(), mtime=0)).decode(), "response")),
    ]
    out = []
    for i in range(100):
        name, form = forms[i % len(forms)]
        service, kind, make, var, _ = strong[g.randrange(len(strong))]
        text, direction = form(make(g), var)
        msg = call("run_script", {"script": text}) if direction == "request" else result(text)
        out.append({"label": "secret", "family": name, "kind": f"{service}/{kind}",
                    "direction": direction, "message": msg})
    return out


def main():
    rows = turned(random.Random(SEED))
    with open(os.path.join(HERE, "encoded_turned.jsonl"), "w", encoding="utf-8") as f:
        for i, row in enumerate(rows):
            f.write(json.dumps({"id": f"encoded_turned-{i:04d}", **row}, ensure_ascii=False) + "\n")
    print(f"encoded_turned.jsonl: {len(rows)}")


if __name__ == "__main__":
    main()
