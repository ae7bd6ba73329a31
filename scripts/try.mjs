#!/usr/bin/env node
// One-line check of a running gateway with the official MCP SDK client:
//   node scripts/try.mjs http://127.0.0.1:8080/mcp/everything
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const url = process.argv[2] ?? 'http://127.0.0.1:8080/mcp/everything';
const client = new Client({name: 'mcpgate-try', version: '1.0.0'});
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
console.log(`connected to ${url}: ${client.getServerVersion()?.name} ` +
            `(session ${transport.sessionId})`);
const {tools} = await client.listTools();
console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);
const echo = await client.callTool({name: 'echo', arguments: {message: 'hello through mcpgate'}});
console.log(`echo: ${echo.content[0].text}`);
await transport.terminateSession();
await client.close();
