// Modern remote servers (`url:`): the v2 SDK test server over Streamable HTTP
// on loopback, modern only (`--legacy reject`) and dual-era (`--legacy
// serve`), as a remote upstream of the real mcpgate, driven by the official
// SDK 1.x client and the v2 client in legacy mode (bridged: the gateway holds
// the session, posts each request with the modern envelope and headers,
// turns InputRequiredResults into server requests) and by the v2 client
// pinned to 2026-07-28 and in auto (passed through statelessly). The server
// writes one line per HTTP request it receives (V2_SERVER_HTTP_LOG), so the
// test sees exactly what the gateway sent: the request metadata headers, no
// session id, no GET stream, and the era probe once per endpoint.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, before, describe, test} from 'node:test';

import {Client as V2Client, StreamableHTTPClientTransport as V2Http} from '@modelcontextprotocol/client';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema, ElicitRequestSchema, McpError, ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import {startGateway, waitFor} from '../e2e/lib.mjs';
import {startV2Http} from './v2_http.mjs';

const FAKE_SECRET = 'AKIA4YSNI2G3IITN5XVK';
const textOf = (result) => (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-eras-remote-'));
const cleanups = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  fs.rmSync(dir, {recursive: true, force: true});
});

async function startRemote(name, legacy) {
  const remote = await startV2Http(legacy, {logFile: path.join(dir, `${name}.http.log`)});
  cleanups.push(() => remote.stop());
  return remote;
}

function writeConfig(servers, extra = []) {
  const file = path.join(dir, `mcpgate-${Math.random().toString(36).slice(2)}.yaml`);
  fs.writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'servers:',
    ...Object.entries(servers).flatMap(([name, {url, protocol}]) =>
      [`  ${name}:`, `    url: ${url}`, ...(protocol ? [`    protocol: ${protocol}`] : [])]),
    'session: {idle_timeout: 60s, grace: 2s}',
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    ...extra,
    '',
  ].join('\n'));
  return file;
}

async function gatewayFor(servers, extra) {
  // The first start compiles the rule packs (no cache yet): slow on a loaded machine.
  const gateway = await startGateway(writeConfig(servers, extra), {timeoutMs: 90000});
  cleanups.push(() => gateway.stop());
  return gateway;
}

const sampled = (request) => ({role: 'assistant', model: 'test-model',
  content: {type: 'text', text: `model says hi to: ${request.params.messages[0].content.text}`}});

// The SDK 1.x client: a 2025-era client with a session.
function v1Client() {
  const client = new Client({name: 'eras-remote-v1', version: '1.0.0'},
      {capabilities: {sampling: {}, elicitation: {}}});
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => sampled(request));
  client.setRequestHandler(ElicitRequestSchema, async () => ({action: 'accept', content: {name: 'Ada'}}));
  client.listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => client.listChanged++);
  return client;
}

// The v2 client: `legacy` (a 2025-era client too), {pin: '2026-07-28'} or 'auto'.
function v2Client(mode) {
  const client = new V2Client({name: 'eras-remote-v2', version: '1.0.0'},
      {capabilities: {sampling: {}, elicitation: {form: {}}}, versionNegotiation: {mode}});
  client.setRequestHandler('sampling/createMessage', async (request) => sampled(request));
  client.setRequestHandler('elicitation/create', async () => ({action: 'accept', content: {name: 'Ada'}}));
  client.listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => client.listChanged++);
  return client;
}

async function connect(t, client, url) {
  const transport = client instanceof V2Client ? new V2Http(new URL(url))
    : new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

// SDK v2's callTool takes its options second; SDK 1.x's third (after a result schema).
const call = (client, params, options) => (client instanceof V2Client
  ? client.callTool(params, options) : client.callTool(params, undefined, options));

// List, call (one with an Mcp-Param-* header), progress, sampling and elicitation round trips.
async function flow(client) {
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const name of ['echo', 'progress', 'sample', 'elicit', 'secret']) {
    assert.ok(names.includes(name), `${name} missing from ${names}`);
  }
  assert.equal(textOf(await call(client, {name: 'echo', arguments: {text: 'to a remote'}})),
      'echo: to a remote');
  // An x-mcp-header argument: the remote refuses the call unless Mcp-Param-Region says it too.
  assert.equal(textOf(await call(client, {name: 'region', arguments: {region: 'eu-north-1'}})),
      'region: eu-north-1');
  const progress = [];
  const done = await call(client, {name: 'progress', arguments: {steps: 4, ms: 100}},
      {onprogress: (p) => progress.push(p.progress)});
  assert.equal(textOf(done), 'done 4');
  // The SDK may drop the last one when the result arrives right behind it.
  assert.ok(progress.length >= 3 && progress.every((v, i) => v === i + 1), `progress: ${progress}`);
  assert.equal(textOf(await call(client, {name: 'sample', arguments: {prompt: 'a haiku'}})),
      'sampled: model says hi to: a haiku');
  assert.equal(textOf(await call(client, {name: 'elicit', arguments: {message: 'who?'}})), 'hello Ada');
}

// DLP on the remote path: a key in arguments blocked, one in a result redacted.
async function dlp(client, gateway) {
  await assert.rejects(call(client, {name: 'echo', arguments: {text: `key ${FAKE_SECRET}`}}),
      (error) => error.code === -32003 && !String(error.message).includes(FAKE_SECRET));
  const result = textOf(await call(client, {name: 'secret', arguments: {}}));
  assert.ok(!result.includes(FAKE_SECRET), `the key came back: ${result}`);
  assert.match(result, /\[REDACTED:aws-access-key-id\]/);
  assert.ok(!gateway.logs().includes(FAKE_SECRET), 'the gateway log holds the key');
}

// Every POST the gateway sent since `from` is a modern one: the version,
// method and (for tools/call) name headers, and no session.
function assertModernPosts(remote, from = 0) {
  const seen = remote.log().slice(from).filter((r) => !r.event);
  assert.ok(seen.length > 0, 'the remote saw no request');
  for (const request of seen) {
    assert.equal(request.method, 'POST', `the gateway sent ${request.method} (no GET stream, no DELETE)`);
    assert.equal(request.version, '2026-07-28', JSON.stringify(request));
    assert.ok(request.mcpMethod, `no Mcp-Method: ${JSON.stringify(request)}`);
    assert.equal(request.session, null, `an Mcp-Session-Id was sent: ${JSON.stringify(request)}`);
    if (request.mcpMethod === 'tools/call') assert.ok(request.mcpName, JSON.stringify(request));
  }
  return seen;
}

// A 10 s progress call given up on at its first progress notification: the call is refused
// at the client, and the remote sees that request's response closed long before it would end.
async function cancelledCall(client, remote, label) {
  const from = remote.log().length;
  const controller = new AbortController();
  let steps = 0;
  const pending = call(client, {name: 'progress', arguments: {steps: 100, ms: 100}},
      {signal: controller.signal, onprogress: () => {
        if (++steps === 1) controller.abort();
      }});
  await assert.rejects(pending);
  assert.equal(steps, 1, `${label}: progress after the cancellation`);
  const aborted = () => remote.log().slice(from)
      .some((r) => r.event === 'aborted' && r.mcpMethod === 'tools/call' && r.mcpName === 'progress');
  assert.ok(await waitFor(aborted, {timeoutMs: 5000}),
      `${label}: the remote's progress request was not closed: ${JSON.stringify(remote.log().slice(from))}`);
  assert.equal(textOf(await call(client, {name: 'echo', arguments: {text: 'after'}})), 'echo: after');
}

let modern;
let dual;
before(async () => {
  [modern, dual] = await Promise.all([startRemote('modern', 'reject'), startRemote('dual', 'serve')]);
});

describe('legacy clients -> mcpgate -> modern remote (bridged)', () => {
  test('SDK 1.x to the modern-only remote: tools, progress, sampling, elicitation, list_changed',
      async (t) => {
        const gateway = await gatewayFor({modern: {url: modern.url}});
        const from = modern.log().length;
        const client = await connect(t, v1Client(), gateway.url('modern'));
        assert.equal(client.getServerVersion()?.name, 'mcpgate-v2-test-server');
        await flow(client);
        const before = client.listChanged;
        await call(client, {name: 'add-tool', arguments: {name: `added-${Date.now()}`}});
        assert.ok(await waitFor(() => client.listChanged > before, {timeoutMs: 5000}),
            'no notifications/tools/list_changed reached the client');
        const seen = assertModernPosts(modern, from);
        assert.ok(seen.some((r) => r.mcpMethod === 'subscriptions/listen'), 'no subscriptions/listen');
        assert.match(gateway.logs(), /"msg":"server era".*"era":"modern"/);
      });

  test('SDK 1.x to the dual-era remote: bridged as modern too', async (t) => {
    const gateway = await gatewayFor({dual: {url: dual.url}});
    const from = dual.log().length;
    await flow(await connect(t, v1Client(), gateway.url('dual')));
    assertModernPosts(dual, from);
  });

  test('the v2 client in legacy mode: the same flow', async (t) => {
    const gateway = await gatewayFor({modern: {url: modern.url}});
    await flow(await connect(t, v2Client('legacy'), gateway.url('modern')));
  });

  test('DLP blocks a key in arguments and redacts one in a result', async (t) => {
    const gateway = await gatewayFor({modern: {url: modern.url}},
        ['dlp: {default_action: {request: block}}']);
    await dlp(await connect(t, v1Client(), gateway.url('modern')), gateway);
  });

  test('the era is probed once per endpoint, not at every session nor lane', async (t) => {
    const gateway = await gatewayFor({modern: {url: modern.url}, dual: {url: dual.url}});
    const from = {modern: modern.log().length, dual: dual.log().length};
    for (let i = 0; i < 3; i++) {
      for (const name of ['modern', 'dual']) {
        const client = v1Client();
        const transport = new StreamableHTTPClientTransport(new URL(gateway.url(name)));
        await client.connect(transport);
        assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: `${i}`}})), `echo: ${i}`);
        await transport.terminateSession();
        await client.close();
      }
    }
    // A modern client's lane opens with server/discover: answered from the kept verdict.
    for (const name of ['modern', 'dual']) {
      const client = await connect(t, v2Client({pin: '2026-07-28'}), gateway.url(name));
      assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: 'lane'}})), 'echo: lane');
    }
    for (const [name, remote] of [['modern', modern], ['dual', dual]]) {
      // The gateway's own probes (a modern client's own server/discover passes through).
      const probes = remote.log().slice(from[name])
          .filter((r) => r.mcpMethod === 'server/discover' && r.client === 'mcpgate');
      assert.equal(probes.length, 1, `${name}: server/discover sent ${probes.length} times`);
    }
  });

  test('SDK 1.x cancels a call: the gateway closes its request to the remote', async (t) => {
    const gateway = await gatewayFor({modern: {url: modern.url}});
    await cancelledCall(await connect(t, v1Client(), gateway.url('modern')), modern, 'SDK 1.x');
  });

  test('protocol: legacy on a url server skips the probe: the modern-only remote refuses',
      async (t) => {
        const gateway = await gatewayFor({modern: {url: modern.url, protocol: 'legacy'}});
        const client = v1Client();
        t.after(() => client.close());
        await assert.rejects(
            client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('modern')))));
      });
});

describe('modern clients -> mcpgate -> modern remote (passed through)', () => {
  for (const [label, mode] of [['pinned to 2026-07-28', {pin: '2026-07-28'}], ['in auto', 'auto']]) {
    test(`the v2 client ${label}: tools, progress, sampling, elicitation`, async (t) => {
      const gateway = await gatewayFor({modern: {url: modern.url}});
      const from = modern.log().length;
      await flow(await connect(t, v2Client(mode), gateway.url('modern')));
      assertModernPosts(modern, from);
    });
  }

  test('the pinned v2 client cancels a call: its request to the remote is closed', async (t) => {
    const gateway = await gatewayFor({modern: {url: modern.url}});
    await cancelledCall(await connect(t, v2Client({pin: '2026-07-28'}), gateway.url('modern')),
        modern, 'v2 pinned');
  });

  test('the pinned v2 client to the dual-era remote, and DLP both ways', async (t) => {
    const gateway = await gatewayFor({dual: {url: dual.url}}, ['dlp: {default_action: {request: block}}']);
    const client = await connect(t, v2Client({pin: '2026-07-28'}), gateway.url('dual'));
    await flow(client);
    await dlp(client, gateway);
  });
});
