// Legacy (2025) clients in front of a modern-only (2026-07-28) server: the
// official SDK 1.x client, through the real mcpgate on /mcp/<server> and
// through `mcpgate stdio`, to the v2 SDK server with `legacy: 'reject'`,
// which refuses every legacy client by itself (see v2_server.test.mjs). The
// gateway finds the server's era (server/discover), answers initialize,
// sends each request with the modern envelope, turns InputRequiredResults
// into sampling and elicitation requests on the client's stream, and feeds
// list-changed notifications from subscriptions/listen to it.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, describe, test} from 'node:test';

import {Client as V2Client, StreamableHTTPClientTransport as V2Http} from '@modelcontextprotocol/client';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema, ElicitRequestSchema, McpError, ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import {MCPGATE_BIN, SOURCE_DIR, startGateway, waitFor, writeTestServerConfig} from '../e2e/lib.mjs';

const V2_SERVER_INSIDE = '/opt/eras/servers/v2_server.mjs';
const FAKE_SECRET = 'AKIA4YSNI2G3IITN5XVK';
const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

const dirs = [];
process.on('exit', () => {
  for (const dir of dirs) fs.rmSync(dir, {recursive: true, force: true});
});

// `protocol` is the server's protocol: key (none: auto).
function writeConfig({extra = [], protocol} = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-eras-back-'));
  dirs.push(dir);
  fs.chmodSync(dir, 0o755);
  const binds = `{src: ${JSON.stringify(path.join(SOURCE_DIR, 'node_modules'))}, dst: /opt/node_modules}, ` +
      `{src: ${JSON.stringify(path.join(SOURCE_DIR, 'tests/eras/servers'))}, dst: /opt/eras/servers}`;
  const file = path.join(dir, 'mcpgate.yaml');
  fs.writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'servers:',
    '  modern:',
    '    command: node',
    `    args: [${JSON.stringify(V2_SERVER_INSIDE)}, --legacy, reject]`,
    `    sandbox: {binds: [${binds}]}`,
    ...(protocol ? [`    protocol: ${protocol}`] : []),
    '  dual:',
    '    command: node',
    `    args: [${JSON.stringify(V2_SERVER_INSIDE)}, --legacy, serve]`,
    `    sandbox: {binds: [${binds}]}`,
    'session: {idle_timeout: 60s, grace: 2s}',
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    ...extra,
    '',
  ].join('\n'));
  return file;
}

function legacyClient() {
  const client = new Client({name: 'eras-back-test', version: '1.0.0'},
      {capabilities: {sampling: {}, elicitation: {}}});
  client.asked = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    client.asked.push(request.params);
    return {role: 'assistant', model: 'test-model',
      content: {type: 'text', text: `model says hi to: ${request.params.messages[0].content.text}`}};
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    client.asked.push(request.params);
    return {action: 'accept', content: {name: 'Ada'}};
  });
  client.listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => client.listChanged++);
  return client;
}

// The v2 SDK client in its default `legacy` version negotiation: a 2025 client too.
function v2LegacyClient() {
  const client = new V2Client({name: 'eras-back-test-v2', version: '1.0.0'},
      {capabilities: {sampling: {}, elicitation: {}}, versionNegotiation: {mode: 'legacy'}});
  client.asked = [];
  client.setRequestHandler('sampling/createMessage', async (request) => {
    client.asked.push(request.params);
    return {role: 'assistant', model: 'test-model',
      content: {type: 'text', text: `model says hi to: ${request.params.messages[0].content.text}`}};
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    client.asked.push(request.params);
    return {action: 'accept', content: {name: 'Ada'}};
  });
  client.listChanged = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => client.listChanged++);
  return client;
}

// The flow every legacy transport must carry to the modern-only server.
async function flow(client) {
  assert.equal(client.getServerVersion()?.name, 'mcpgate-v2-test-server');
  assert.ok(client.getServerCapabilities()?.tools, JSON.stringify(client.getServerCapabilities()));

  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const name of ['echo', 'progress', 'sample', 'elicit', 'add-tool', 'secret']) {
    assert.ok(names.includes(name), `${name} missing from ${names}`);
  }
  assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: 'across eras'}})),
      'echo: across eras');

  const progress = [];
  const params = {name: 'progress', arguments: {steps: 4, ms: 100}};
  const options = {onprogress: (p) => progress.push(p.progress)};
  // SDK v2's callTool takes its options second; SDK 1.x's third (after a result schema).
  const done = await (client instanceof V2Client ? client.callTool(params, options)
    : client.callTool(params, undefined, options));
  assert.equal(textOf(done), 'done 4');
  // The SDK may drop the last one when the result arrives right behind it.
  assert.ok(progress.length >= 3 && progress.every((v, i) => v === i + 1), `progress: ${progress}`);

  // Sampling: the server's InputRequiredResult becomes a sampling/createMessage
  // the client answers; the gateway retries with inputResponses.
  const sampled = await client.callTool({name: 'sample', arguments: {prompt: 'a haiku'}});
  assert.equal(textOf(sampled), 'sampled: model says hi to: a haiku');
  assert.equal(client.asked.at(-1).messages[0].content.text, 'a haiku');

  const elicited = await client.callTool({name: 'elicit', arguments: {message: 'who are you?'}});
  assert.equal(textOf(elicited), 'hello Ada');
  assert.equal(client.asked.at(-1).message, 'who are you?');

  // list_changed from the server's subscriptions/listen reaches the client.
  const before = client.listChanged;
  const tool = `added-${process.pid}-${Date.now()}`;
  await client.callTool({name: 'add-tool', arguments: {name: tool}});
  assert.ok(await waitFor(() => client.listChanged > before, {timeoutMs: 5000}),
      'no notifications/tools/list_changed reached the client');
  // (The new tool itself stays hidden until approved: tool pinning.)
}

const gateways = [];
after(async () => {
  for (const gateway of gateways) await gateway.stop();
});

async function overHttp(t, options) {
  const gateway = await startGateway(writeConfig(options));
  gateways.push(gateway);
  const client = legacyClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('modern'))));
  t.after(() => client.close());
  return {gateway, client};
}

describe('SDK 1.x client -> mcpgate -> modern-only v2 server', () => {
  test('over HTTP (/mcp/modern): tools, progress, sampling, elicitation, list_changed',
      async (t) => {
        const {gateway, client} = await overHttp(t);
        await flow(client);
        assert.match(gateway.logs(), /"msg":"server era".*"era":"modern"/);
      });

  test('over HTTP to the dual-era server (legacy: serve): bridged as modern too', async (t) => {
    const gateway = await startGateway(writeConfig());
    gateways.push(gateway);
    const client = legacyClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('dual'))));
    t.after(() => client.close());
    await flow(client);
  });

  test('the v2 SDK client in legacy mode over HTTP: the same flow', async (t) => {
    const gateway = await startGateway(writeConfig());
    gateways.push(gateway);
    const client = v2LegacyClient();
    await client.connect(new V2Http(new URL(gateway.url('modern'))));
    t.after(() => client.close());
    await flow(client);
  });

  test('over mcpgate stdio: the same flow', async (t) => {
    const client = legacyClient();
    const transport = new StdioClientTransport(
        {command: MCPGATE_BIN, args: ['stdio', '-c', writeConfig(), 'modern'], stderr: 'pipe'});
    await client.connect(transport);
    t.after(() => client.close());
    await flow(client);
  });

  test('DLP: a secret in arguments is blocked, one in a result redacted', async (t) => {
    const {gateway, client} = await overHttp(t, {extra: ['dlp: {default_action: {request: block}}']});
    await assert.rejects(
        client.callTool({name: 'echo', arguments: {text: `key ${FAKE_SECRET}`}}),
        (error) => error instanceof McpError && error.code === -32003 &&
            !error.message.includes(FAKE_SECRET));
    const result = textOf(await client.callTool({name: 'secret', arguments: {}}));
    assert.ok(!result.includes(FAKE_SECRET), `the key came back: ${result}`);
    assert.match(result, /\[REDACTED:aws-access-key-id\]/);
    assert.ok(!gateway.logs().includes(FAKE_SECRET), 'the gateway log holds the key');
  });

  test('DLP: a secret in the client\'s sampling answer never reaches the server', async (t) => {
    const {client} = await overHttp(t, {extra: ['dlp: {default_action: {request: block}}']});
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant', model: 'm', content: {type: 'text', text: `here: ${FAKE_SECRET}`}}));
    await assert.rejects(client.callTool({name: 'sample', arguments: {prompt: 'leak'}}),
        (error) => error instanceof McpError && !String(error.message).includes(FAKE_SECRET));
  });

  test('protocol: legacy skips the probe: the modern-only server refuses the client', async (t) => {
    const gateway = await startGateway(writeConfig({protocol: 'legacy'}));
    gateways.push(gateway);
    const client = legacyClient();
    t.after(() => client.close());
    await assert.rejects(
        client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('modern')))),
        (error) => error.code === -32022 || /2026-07-28/.test(String(error.message)));
  });

  test('a 2025-era server is probed once, not at every session', async (t) => {
    // The recording test server writes every line it receives, from every process.
    const config = writeTestServerConfig();
    const gateway = await startGateway(config.file);
    gateways.push(gateway);
    for (let i = 0; i < 3; i++) {
      const client = new Client({name: 'eras-back-probe', version: '1.0.0'});
      const transport = new StreamableHTTPClientTransport(new URL(gateway.url('test')));
      await client.connect(transport);
      assert.ok((await client.listTools()).tools.length > 0);
      await transport.terminateSession();
      await client.close();
    }
    const lines = config.received().trim().split('\n').map((line) => JSON.parse(line));
    const count = (method) => lines.filter((m) => m.method === method).length;
    assert.equal(count('initialize'), 3);
    assert.equal(count('server/discover'), 1, 'probed more than once');
  });

  test('hostile input on the bridged path: clear errors, the gateway stays up', {timeout: 30000},
      async (t) => {
    const gateway = await startGateway(writeConfig());
    gateways.push(gateway);
    const url = gateway.url('modern');
    const headers = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2025-06-18'};
    const post = (body, session) => fetch(url, {method: 'POST', body: JSON.stringify(body),
      headers: session ? {...headers, 'Mcp-Session-Id': session} : headers});

    // initialize whose params are not an object.
    const odd = await post({jsonrpc: '2.0', id: 1, method: 'initialize', params: []});
    assert.ok(odd.status < 500, `status ${odd.status}`);
    await odd.text();

    // A real session, then a sampling request answered with an error that is not an object.
    const init = await post({jsonrpc: '2.0', id: 1, method: 'initialize', params: {
      protocolVersion: '2025-06-18', capabilities: {sampling: {}}, clientInfo: {name: 'raw', version: '1'}}});
    const session = init.headers.get('mcp-session-id');
    const initText = await init.text();
    assert.ok(session, `no session: ${initText}`);
    await (await post({jsonrpc: '2.0', method: 'notifications/initialized'}, session)).text();
    const call = await post({jsonrpc: '2.0', id: 2, method: 'tools/call',
      params: {name: 'sample', arguments: {prompt: 'x'}}}, session);
    const reader = call.body.getReader();
    let seen = '';
    let answered = false;
    let final = null;
    const messages = () => seen.split('\n').filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice(5)));
    while (!final) {
      const {value, done} = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
      const asked = messages().find((m) => m.method === 'sampling/createMessage');
      if (asked && !answered) {
        answered = true;
        const reply = await post({jsonrpc: '2.0', id: asked.id, error: 'not an object'}, session);
        assert.ok(reply.status < 500);
        await reply.text();
      }
      final = messages().find((m) => m.id === 2);
    }
    assert.ok(answered, `no sampling request: ${seen}`);
    assert.equal(final?.error?.message, "the server's sample input was refused: no reason given", seen);
    await reader.cancel();

    // Still serving.
    const client = legacyClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    t.after(() => client.close());
    assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: 'alive'}})), 'echo: alive');
  });
});
