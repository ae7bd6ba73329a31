"""MCP JSON-RPC message shapes the gateway scans (requests to a server, results back)."""


class Ids:
    n = 0

    @classmethod
    def next(cls):
        cls.n += 1
        return cls.n


def call(tool, arguments):
    return {"jsonrpc": "2.0", "id": Ids.next(), "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def result(text):
    return {"jsonrpc": "2.0", "id": Ids.next(),
            "result": {"content": [{"type": "text", "text": text}], "isError": False}}


def resource(uri, text, mime="text/plain"):
    return {"jsonrpc": "2.0", "id": Ids.next(),
            "result": {"contents": [{"uri": uri, "mimeType": mime, "text": text}]}}


def tools_list(tools):
    """tools: [(name, description, {param: description})]"""
    out = []
    for name, desc, params in tools:
        out.append({"name": name, "description": desc, "inputSchema": {
            "type": "object",
            "properties": {p: {"type": "string", "description": d} for p, d in params.items()},
            "required": list(params)[:1]}})
    return {"jsonrpc": "2.0", "id": Ids.next(), "result": {"tools": out}}


def prompt(description, text):
    return {"jsonrpc": "2.0", "id": Ids.next(), "result": {
        "description": description,
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}]}}


def sampling(system, text):
    """A server-to-client sampling request: the gateway scans it in the response direction."""
    return {"jsonrpc": "2.0", "id": Ids.next(), "method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "systemPrompt": system, "maxTokens": 400}}


RESPONSE_KINDS = ["tool_result", "resource", "prompt", "sampling"]


def wrapper(uri, mime):
    """A wrap(g, text, kinds) that carries text in one of the given response kinds."""
    def wrap(g, text, kinds):
        kind = g.choice(kinds)
        return kind, {
            "tool_result": lambda: result(text),
            "resource": lambda: resource(uri, text, mime),
            "prompt": lambda: prompt("Process", "Process this document:\n\n" + text),
            "sampling": lambda: sampling("You are a helpful assistant.", text),
        }[kind]()
    return wrap


def described_or_carried(uri, mime="text/plain"):
    """A wrap(g, text, kinds): a text marked "@tool " is a tool's own description and one marked
    "@param " one of its parameters', both in a tools/list result; anything else comes in one of
    the given response kinds (wrapper)."""
    plain = wrapper(uri, mime)

    def wrap(g, text, kinds):
        if text.startswith("@tool "):
            return "tool_description", tools_list(
                [("helper", text[6:], {"query": "What to look up."})])
        if text.startswith("@param "):
            return "tool_description", tools_list(
                [("helper", "Looks things up.", {"query": "What to look up.", "context": text[7:]})])
        return plain(g, text, kinds)
    return wrap


def marked_variants(text):
    """A marked text ("@tool ", "@param ") is one benign variant, not two."""
    return 1 if text.startswith("@") else 2


def split_marked(seed, inj, benign, wrap):
    """split_thirds where a marked text is one benign variant, not two."""
    return split_thirds(seed, inj, benign, wrap, benign_variants=marked_variants)


def split_thirds(seed, inj, benign, wrap, benign_variants=lambda text: 2):
    """split with every third sample of a family in the holdout."""
    return split(seed, inj, benign, wrap, benign_variants, held=lambda i: i % 3 == 2)


def split(seed, inj, benign, wrap, benign_variants, held):
    """Messages for {family: [text]} injections and benign texts, split before scoring: sample i
    of a family goes to the holdout when held(i). Benign texts come as a tool result or resource
    and, for a second variant, as a prompt or sampling request.
    Returns (tune injections, tune benign, holdout injections, holdout benign)."""
    import random
    g = random.Random(seed)
    out = {"inj": [], "ben": [], "inj_h": [], "ben_h": []}
    for family, texts in inj.items():
        for i, text in enumerate(texts):
            kind, msg = wrap(g, text, RESPONSE_KINDS)
            out["inj_h" if held(i) else "inj"].append(
                {"label": "injection", "family": family, "kind": kind, "direction": "response",
                 "message": msg})
    for family, texts in benign.items():
        for i, text in enumerate(texts):
            for variant in range(benign_variants(text)):
                kinds = [["tool_result", "resource"], ["prompt", "sampling"]][variant]
                kind, msg = wrap(g, text, kinds)
                out["ben_h" if held(i) else "ben"].append(
                    {"label": "benign", "family": family, "kind": kind, "direction": "response",
                     "message": msg})
    return out["inj"], out["ben"], out["inj_h"], out["ben_h"]
