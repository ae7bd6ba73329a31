// Baseline: the shared MCP flow against server-everything without mcpgate,
// over its own Streamable HTTP mode and over stdio. When a gateway test fails
// and this one passes, the gateway is at fault, not the flow or the SDK.

import {after, test} from 'node:test';
import assert from 'node:assert/strict';

import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';

import {EVERYTHING_JS, newSamplingClient, runSteps, startEverythingHttp} from './lib.mjs';

test('server-everything directly over Streamable HTTP', async (t) => {
  const server = await startEverythingHttp();
  after(() => server.stop());
  const client = newSamplingClient();
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  assert.ok(transport.sessionId, 'no Mcp-Session-Id after initialize');
  await runSteps(t, client);
  await transport.terminateSession();
  assert.equal(transport.sessionId, undefined);
  await client.close();
});

test('server-everything directly over stdio', async (t) => {
  const client = newSamplingClient();
  const transport = new StdioClientTransport({command: process.execPath, args: [EVERYTHING_JS, 'stdio'], stderr: 'pipe'});
  await client.connect(transport);
  await runSteps(t, client);
  await client.close();
});
