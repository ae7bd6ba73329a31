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
