// The official SDK client over Streamable HTTP, through `mcpgate serve`, to
// server-everything: the whole MCP flow, then DELETE ends the session and
// the server process the gateway spawned for it.

import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';

import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {everythingChildren, newSamplingClient, runSteps, startGateway, waitFor, waitUntilGone,
  writeEverythingConfig} from './lib.mjs';

let gateway;
before(async () => {
  gateway = await startGateway(writeEverythingConfig());
});
after(async () => {
  const exit = await gateway?.stop();
  if (exit?.timedOut) console.error('mcpgate ignored SIGTERM for 10 s and was killed');
});

test('SDK client through mcpgate serve over Streamable HTTP', async (t) => {
  const client = newSamplingClient();
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url('everything')));
  t.after(() => client.close());
  await client.connect(transport);
  const sessionId = transport.sessionId;
  assert.ok(sessionId, 'gateway sent no Mcp-Session-Id on initialize');

  await runSteps(t, client);

  await t.test('DELETE ends the session and its server process', async () => {
    const children = await waitFor(() => {
      const found = everythingChildren(gateway.proc.pid);
      return found.length > 0 ? found : null;
    }, {timeoutMs: 2000});
    assert.ok(children, `no server-everything process under mcpgate (pid ${gateway.proc.pid}) ` +
        `while the session was open`);
    assert.equal(children.length, 1, `one session should have one server: ${JSON.stringify(children)}`);

    await transport.terminateSession();
    assert.equal(transport.sessionId, undefined, 'terminateSession did not succeed');

    const states = await waitUntilGone(children.map((c) => c.pid), 5000);
    assert.ok(Object.values(states).every((s) => s === 'gone'),
        `server process after DELETE (want gone): ${JSON.stringify(states)}\n` +
        `gateway log:\n${gateway.logs()}`);
  });

  await t.test('the ended session is unknown to the gateway (404)', async () => {
    // A fresh transport reusing the dead session id: the spec says 404.
    const response = await fetch(gateway.url('everything'), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'accept': 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': transport.protocolVersion ?? '2025-11-25',
      },
      body: JSON.stringify({jsonrpc: '2.0', id: 99, method: 'ping'}),
    });
    await response.body?.cancel();
    assert.equal(response.status, 404);
  });
});

test('SIGTERM to the gateway ends it and the servers of open sessions', async () => {
  const client = newSamplingClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('everything'))));
  const children = await waitFor(() => {
    const found = everythingChildren(gateway.proc.pid);
    return found.length > 0 ? found : null;
  }, {timeoutMs: 2000});
  assert.ok(children, `no server-everything process under mcpgate (pid ${gateway.proc.pid})`);

  // grace is 2 s in the config: the gateway has no reason to need 10.
  const exit = await gateway.stop();
  await client.close().catch(() => {});
  assert.ok(!exit.timedOut, `mcpgate still running 10 s after SIGTERM; log:\n${gateway.logs()}`);
  const states = await waitUntilGone(children.map((c) => c.pid), 3000);
  assert.ok(Object.values(states).every((s) => s === 'gone'),
      `server processes after gateway shutdown (want gone): ${JSON.stringify(states)}`);
});
