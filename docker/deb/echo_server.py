#!/usr/bin/env python3
"""The Debian package's example MCP server: one tool, `echo`, over stdio
(newline-delimited JSON-RPC), standard library only, so the example config
serves on a fresh install without npm or pip."""
import json
import sys


def reply(message_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue  # a notification
        if method == "initialize":
            version = message.get("params", {}).get("protocolVersion", "2025-06-18")
            reply(message_id, {"protocolVersion": version, "capabilities": {"tools": {}},
                               "serverInfo": {"name": "mcpgate-example-echo", "version": "1.0.0"}})
        elif method == "tools/list":
            reply(message_id, {"tools": [{
                "name": "echo", "description": "Returns its message",
                "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}},
                                "required": ["message"]}}]})
        elif method == "tools/call":
            text = str(message.get("params", {}).get("arguments", {}).get("message", ""))
            reply(message_id, {"content": [{"type": "text", "text": "Echo: " + text}]})
        elif method == "ping":
            reply(message_id, {})
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "error": {
                "code": -32601, "message": "method not found: " + str(method)}}) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
