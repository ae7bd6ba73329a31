// Modern (2026-07-28) clients in front of the gateway: the official v2 SDK
// client, pinned to 2026-07-28 and in `auto`, through the real mcpgate on
// /mcp/<server>, to a modern-only v2 SDK server (passed through) and to the
// legacy server-everything (bridged: the gateway keeps its initialized process
// in the client's pool and turns its sampling and elicitation requests into
// multi round-trip requests).

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {after, before, describe, test} from 'node:test';

import {Client, StreamableHTTPClientTransport} from '@modelcontextprotocol/client';

import {SOURCE_DIR, TEST_SERVER_INSIDE, everythingServerLines, startGateway, waitFor} from '../e2e/lib.mjs';

const V2_SERVER_INSIDE = '/opt/eras/servers/v2_server.mjs';
const FAKE_SECRET = 'AKIA4YSNI2G3IITN5XVK';

function writeConfig(extra = [], {legacyPool, requestTimeout} = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-eras-'));
  fs.chmodSync(dir, 0o755);
  // What the legacy test server received, line by line: the proof of what reached it.
  const record = path.join(dir, 'record');
  fs.mkdirSync(record, {mode: 0o777});
  fs.chmodSync(record, 0o777);
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
    '  legacy:',
    '    command: node',
    `    args: [${JSON.stringify(TEST_SERVER_INSIDE)}]`,
    '    env: {TEST_SERVER_RECORD: /record/received.jsonl}',
    ...(legacyPool ? [`    pool: ${legacyPool}`] : []),
    `    sandbox: {binds: [{src: ${JSON.stringify(path.join(SOURCE_DIR, 'tests/servers'))}, ` +
        `dst: /opt/mcpgate-tests}, {src: ${JSON.stringify(record)}, dst: /record, ro: false}]}`,
    ...everythingServerLines(),
    `session: {idle_timeout: 60s, grace: 2s${requestTimeout ? `, request_timeout: ${requestTimeout}` : ''}}`,
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    ...extra,
    '',
  ].join('\n'));
  const received = () => {
    try {
      return fs.readFileSync(path.join(record, 'received.jsonl'), 'utf8');
    } catch {
      return '';
    }
  };
  return {file, dir, received};
}

function modernClient(mode = {pin: '2026-07-28'}) {
  const client = new Client({name: 'eras-front-test', version: '1.0.0'},
      {versionNegotiation: {mode}, capabilities: {sampling: {}, elicitation: {form: {}}}});
  client.setRequestHandler('sampling/createMessage', async (request) => ({
    role: 'assistant',
    model: 'test-model',
    content: {type: 'text', text: `model says hi to: ${request.params.messages[0].content.text}`},
  }));
  client.setRequestHandler('elicitation/create', async () => ({action: 'accept', content: {name: 'Ada'}}));
  return client;
}

async function connect(gateway, server, mode, token) {
  const client = modernClient(mode);
  const headers = token ? {Authorization: `Bearer ${token}`} : {};
  const url = server ? gateway.url(server) : `http://127.0.0.1:${gateway.port}/mcp`;
  await client.connect(new StreamableHTTPClientTransport(new URL(url),
      {requestInit: {headers}}));
  return client;
}

// A hand-made modern request, to see exactly what the gateway answers.
async function post(gateway, server, body, headers = {}) {
  const url = server ? gateway.url(server) : `http://127.0.0.1:${gateway.port}/mcp`;
  const response = await fetch(url, {
    method: 'POST',
    headers: {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
      ...headers},
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {status: response.status, body: text ? JSON.parse(text) : null};
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': {name: 'raw', version: '1'},
  'io.modelcontextprotocol/clientCapabilities': {},
};
const MODERN_HEADERS = {'MCP-Protocol-Version': '2026-07-28'};

const textOf = (result) => result.content.map((c) => c.text ?? '').join('');

describe('modern client, modern server (pass-through)', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig().file);
  });
  after(async () => gateway?.stop());

  test('pinned client lists tools and calls one', async () => {
    const client = await connect(gateway, 'modern');
    const {tools} = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'echo'), JSON.stringify(tools));
    const result = await client.callTool({name: 'echo', arguments: {text: 'hello'}});
    assert.equal(textOf(result), 'echo: hello');
    await client.close();
  });

  test('progress arrives on the request stream', async () => {
    const client = await connect(gateway, 'modern');
    const seen = [];
    const result = await client.callTool({name: 'progress', arguments: {steps: 3, ms: 20}}, {
      onprogress: (p) => seen.push(p.progress),
    });
    assert.equal(textOf(result), 'done 3');
    assert.deepEqual(seen, [1, 2, 3]);
    await client.close();
  });

  test('sampling and elicitation round trips (MRTR passed through)', async () => {
    const client = await connect(gateway, 'modern');
    const sampled = await client.callTool({name: 'sample', arguments: {prompt: 'ping'}});
    assert.match(textOf(sampled), /model says hi to: ping/);
    const elicited = await client.callTool({name: 'elicit', arguments: {message: 'who?'}});
    assert.equal(textOf(elicited), 'hello Ada');
    await client.close();
  });

  test('auto client stays modern', async () => {
    const client = await connect(gateway, 'modern', 'auto');
    const result = await client.callTool({name: 'echo', arguments: {text: 'auto'}});
    assert.equal(textOf(result), 'echo: auto');
    await client.close();
  });
});

describe('modern client, legacy server (bridged)', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig().file);
  });
  after(async () => gateway?.stop());

  test('pinned client lists tools and calls one', async () => {
    const client = await connect(gateway, 'everything');
    const {tools} = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'echo'), JSON.stringify(tools));
    const result = await client.callTool({name: 'echo', arguments: {message: 'hello'}});
    assert.match(textOf(result), /hello/);
    await client.close();
  });
});

// A modern client cancels by closing the request's stream. The gateway tells the lane's server
// with notifications/cancelled at once, even when the server is silent (a call that never
// answers), and the client's next call on the same server still works.
describe('a modern client that gives up on a call', () => {
  let gateway;
  let config;
  before(async () => {
    config = writeConfig();
    gateway = await startGateway(config.file);
  });
  after(async () => gateway?.stop());

  test('a legacy server that never answers is sent notifications/cancelled', async () => {
    const client = await connect(gateway, 'legacy');
    const controller = new AbortController();
    const pending = client.callTool({name: 'hang', arguments: {}}, {signal: controller.signal});
    assert.ok(await waitFor(() => config.received().includes('"hang"'), {timeoutMs: 10000}),
        'the call did not reach the server');
    controller.abort();
    await assert.rejects(pending);
    const cancelled = () => config.received().split('\n').filter(Boolean).map((l) => JSON.parse(l))
        .some((m) => m.method === 'notifications/cancelled');
    assert.ok(await waitFor(cancelled, {timeoutMs: 5000}),
        `no notifications/cancelled reached the server: ${config.received()}`);
    const result = await client.callTool({name: 'echo', arguments: {text: 'after'}});
    assert.equal(textOf(result), 'after');
    await client.close();
  });

  test('a client that half-closes reads a cancellation error, and the server is told', async () => {
    const count = (text) => config.received().split('\n').filter((l) => l.includes(text)).length;
    const before = count('notifications/cancelled');
    const hangs = count('"hang"');
    const body = JSON.stringify({jsonrpc: '2.0', id: 'half', method: 'tools/call',
      params: {name: 'hang', arguments: {}, _meta: META}});
    const socket = net.connect(gateway.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk;
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write([`POST /mcp/legacy HTTP/1.1`, `Host: 127.0.0.1:${gateway.port}`,
      'Content-Type: application/json', 'Accept: application/json, text/event-stream',
      'MCP-Protocol-Version: 2026-07-28', 'Mcp-Method: tools/call', 'Mcp-Name: hang',
      `Content-Length: ${Buffer.byteLength(body)}`, '', body].join('\r\n'));
    assert.ok(await waitFor(() => count('"hang"') > hangs, {timeoutMs: 10000}),
        'the call did not reach the server');
    socket.end();  // half-close: the request's stream is given up, the socket still reads
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000))]);
    assert.match(reply, /^HTTP\/1\.1 200/, reply);
    assert.match(reply, /"code":-32800/, reply);
    assert.ok(await waitFor(() => count('notifications/cancelled') > before, {timeoutMs: 5000}),
        'no notifications/cancelled reached the server');
  });

  test('a modern server sending progress has its call ended', async () => {
    const client = await connect(gateway, 'modern');
    const controller = new AbortController();
    let steps = 0;
    const started = Date.now();
    const pending = client.callTool({name: 'progress', arguments: {steps: 100, ms: 100}},
        {signal: controller.signal, onprogress: () => {
          if (++steps === 1) controller.abort();
        }});
    await assert.rejects(pending);
    assert.ok(Date.now() - started < 5000, 'the call ran on');
    assert.equal(steps, 1);
    const result = await client.callTool({name: 'echo', arguments: {text: 'after'}});
    assert.equal(textOf(result), 'echo: after');
    await client.close();
  });
});

describe('modern client, legacy server: MRTR and stamps', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig().file);
  });
  after(async () => gateway?.stop());

  test('server/discover names the legacy server and the modern version', async () => {
    const {status, body} = await post(gateway, 'everything',
        {jsonrpc: '2.0', id: 'd1', method: 'server/discover', params: {_meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'server/discover'});
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.id, 'd1');
    assert.deepEqual(body.result.supportedVersions, ['2026-07-28']);
    assert.equal(body.result.resultType, 'complete');
    assert.ok(body.result.capabilities.tools, JSON.stringify(body.result));
    assert.match(body.result._meta['io.modelcontextprotocol/serverInfo'].name, /everything/);
  });

  test('results carry resultType, list results ttlMs and cacheScope private', async () => {
    const {status, body} = await post(gateway, 'everything',
        {jsonrpc: '2.0', id: 2, method: 'tools/list', params: {_meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/list'});
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.id, 2);
    assert.equal(body.result.resultType, 'complete');
    assert.equal(body.result.cacheScope, 'private');
    assert.equal(body.result.ttlMs, 0);
    assert.ok(body.result.tools.length > 0);
  });

  test('sampling: the legacy server asks, the modern client answers by retrying', async () => {
    const client = await connect(gateway, 'everything');
    const result = await client.callTool({name: 'trigger-sampling-request',
      arguments: {prompt: 'ping', maxTokens: 20}});
    assert.match(textOf(result), /model says hi to: .*ping/);
    await client.close();
  });

  test('elicitation: the legacy server asks, the modern client answers by retrying', async () => {
    const client = await connect(gateway, 'everything');
    const result = await client.callTool({name: 'trigger-elicitation-request', arguments: {}});
    assert.match(textOf(result), /Name: Ada/);
    await client.close();
  });

  test('a server asking for a capability the request did not declare: -32021, 400', async () => {
    // META declares no client capabilities: the legacy server's sampling
    // request cannot become an InputRequiredResult for this request.
    const {status, body} = await post(gateway, 'everything',
        {jsonrpc: '2.0', id: 'no-sampling', method: 'tools/call',
          params: {name: 'trigger-sampling-request', arguments: {prompt: 'p', maxTokens: 5}, _meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'trigger-sampling-request'});
    assert.equal(status, 400, JSON.stringify(body));
    assert.equal(body.id, 'no-sampling');
    assert.equal(body.error.code, -32021, JSON.stringify(body));
    assert.deepEqual(body.error.data.requiredCapabilities, {sampling: {}});
    // The lane is free again: the next request is served.
    const again = await post(gateway, 'everything',
        {jsonrpc: '2.0', id: 3, method: 'tools/call',
          params: {name: 'echo', arguments: {message: 'after'}, _meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo'});
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(textOf(again.body.result), 'Echo: after');
  });

  test('progress of a legacy server reaches the modern client', async () => {
    const client = await connect(gateway, 'legacy');
    const seen = [];
    const result = await client.callTool({name: 'progress', arguments: {steps: 3}},
        {onprogress: (p) => seen.push(p.progress)});
    assert.ok(seen.length >= 3, `progress seen: ${JSON.stringify(seen)}; ${JSON.stringify(result)}`);
    await client.close();
  });
});

describe('the modern front refuses what the spec says to refuse', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig().file);
  });
  after(async () => gateway?.stop());

  test('an unsupported version gets -32022 with supported and requested, and its id', async () => {
    const meta = {...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01'};
    const {status, body} = await post(gateway, 'modern',
        {jsonrpc: '2.0', id: 41, method: 'tools/list', params: {_meta: meta}},
        {'MCP-Protocol-Version': '2099-01-01', 'Mcp-Method': 'tools/list'});
    assert.equal(status, 400);
    assert.equal(body.id, 41);
    assert.equal(body.error.code, -32022);
    assert.equal(body.error.data.requested, '2099-01-01');
    // What server/discover lists (the conformance suite checks the two agree).
    assert.deepEqual(body.error.data.supported, ['2026-07-28']);
  });

  test('Mcp-Name that does not match the body is HeaderMismatch -32020', async () => {
    const {status, body} = await post(gateway, 'modern',
        {jsonrpc: '2.0', id: 42, method: 'tools/call',
          params: {name: 'echo', arguments: {text: 'x'}, _meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'secret'});
    assert.equal(status, 400);
    assert.equal(body.id, 42);
    assert.equal(body.error.code, -32020);
  });

  test('a missing Mcp-Method is HeaderMismatch -32020', async () => {
    const {status, body} = await post(gateway, 'everything',
        {jsonrpc: '2.0', id: 43, method: 'tools/list', params: {_meta: META}}, MODERN_HEADERS);
    assert.equal(status, 400);
    assert.equal(body.error.code, -32020);
  });

  for (const server of ['modern', 'everything']) {
    test(`${server}: removed and unknown methods get 404 and -32601`, async () => {
      for (const method of ['ping', 'initialize', 'logging/setLevel', 'no/such-method']) {
        const {status, body} = await post(gateway, server,
            {jsonrpc: '2.0', id: 46, method, params: {_meta: META}},
            {...MODERN_HEADERS, 'Mcp-Method': method});
        assert.equal(status, 404, `${method}: ${JSON.stringify(body)}`);
        assert.equal(body.error.code, -32601, method);
        assert.equal(body.id, 46);
      }
    });
  }

  test('an envelope without clientCapabilities is -32602 with 400', async () => {
    const {'io.modelcontextprotocol/clientCapabilities': _, ...meta} = META;
    const {status, body} = await post(gateway, 'everything',
        {jsonrpc: '2.0', id: 47, method: 'tools/list', params: {_meta: meta}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/list'});
    assert.equal(status, 400);
    assert.equal(body.error.code, -32602);
  });

  test('Mcp-Param-* headers are checked against the tool\'s x-mcp-header arguments', async () => {
    // The SDK client mirrors the annotated argument itself.
    const client = await connect(gateway, 'legacy');
    await client.listTools();
    const ok = await client.callTool({name: 'region', arguments: {region: 'eu-west1', query: 'q'}});
    assert.equal(textOf(ok), 'region eu-west1');
    await client.close();
    // Raw requests come from the same address: without auth, the same identity and its list.
    await post(gateway, 'legacy', {jsonrpc: '2.0', id: 50, method: 'tools/list', params: {_meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/list'});
    const call = (id, headers) => post(gateway, 'legacy',
        {jsonrpc: '2.0', id, method: 'tools/call',
          params: {name: 'region', arguments: {region: 'eu-west1', query: 'q'}, _meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'region', ...headers});
    const wrong = await call(51, {'Mcp-Param-Region': 'us-east1'});
    assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
    assert.equal(wrong.body.error.code, -32020);
    const missing = await call(52, {});
    assert.equal(missing.status, 400, JSON.stringify(missing.body));
    assert.equal(missing.body.error.code, -32020);
    const right = await call(53, {'Mcp-Param-Region': 'eu-west1'});
    assert.equal(right.status, 200, JSON.stringify(right.body));
    assert.equal(right.body.result.content[0].text, 'region eu-west1');
  });

  test('a forged requestState is refused with a reason', async () => {
    const {status, body} = await post(gateway, 'everything',
        {jsonrpc: '2.0', id: 44, method: 'tools/call', params: {name: 'echo',
          arguments: {message: 'x'}, requestState: 'mcpgate.1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
          inputResponses: {}, _meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo'});
    assert.equal(status, 400);
    assert.equal(body.error.code, -32602);
    assert.match(body.error.data.reason, /^request_state_/);
  });

});

describe('DLP on the modern front', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig().file);
  });
  after(async () => gateway?.stop());

  test('a key in a modern server\'s result is redacted', async () => {
    const client = await connect(gateway, 'modern');
    const result = await client.callTool({name: 'secret', arguments: {}});
    assert.match(textOf(result), /\[REDACTED:aws-access-key-id\]/);
    assert.ok(!textOf(result).includes(FAKE_SECRET));
    await client.close();
  });

  test('a key in a legacy server\'s result is redacted', async () => {
    const client = await connect(gateway, 'everything');
    const result = await client.callTool({name: 'echo', arguments: {message: `key ${FAKE_SECRET}`}});
    assert.match(textOf(result), /\[REDACTED:aws-access-key-id\]/);
    assert.ok(!textOf(result).includes(FAKE_SECRET));
    await client.close();
  });
});

describe('DLP blocking arguments on the modern front', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig(['dlp: {default_action: {request: block}}']).file);
  });
  after(async () => gateway?.stop());

  for (const [server, args] of [['modern', {text: `key ${FAKE_SECRET}`}],
    ['everything', {message: `key ${FAKE_SECRET}`}]]) {
    test(`a key in arguments to the ${server} server is blocked`, async () => {
      const client = await connect(gateway, server);
      await assert.rejects(client.callTool({name: 'echo', arguments: args}), (error) => {
        assert.equal(error.code, -32003, String(error));
        assert.ok(!String(error.message).includes(FAKE_SECRET));
        return true;
      });
      const clean = await client.callTool({name: 'echo', arguments: server === 'modern' ?
        {text: 'clean'} : {message: 'clean'}});
      assert.match(textOf(clean), /clean/);
      await client.close();
    });
  }
});

describe('pooled processes are never shared between two clients', () => {
  const ALICE = 'mcpg_' + crypto.randomBytes(32).toString('base64url');
  const BOB = 'mcpg_' + crypto.randomBytes(32).toString('base64url');
  const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig([
      'auth:',
      '  tokens:',
      `    - {client: alice, sha256: ${sha256(ALICE)}}`,
      `    - {client: bob, sha256: ${sha256(BOB)}}`,
      '  clients:',
      '    alice: {servers: [legacy, modern]}',
      '    bob: {servers: [legacy, modern]}',
    ]).file);
  });
  after(async () => gateway?.stop());

  // Each client calls `instance` (a random id each server process draws at
  // start; pids are all alike in the sandbox's pid namespace) several times,
  // some at once, so the server gets more than one process per client: the
  // ids two clients see never meet.
  async function pidsOf(token, server) {
    const client = await connect(gateway, server, undefined, token);
    const pids = new Set();
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([0, 1, 2].map(() => client.callTool({name: 'instance', arguments: {}})));
      for (const r of results) pids.add(textOf(r));
    }
    await client.close();
    return pids;
  }

  for (const server of ['legacy']) {
    test(`${server} server: alice's and bob's requests reach different processes`, async () => {
      const [alice, bob] = await Promise.all([pidsOf(ALICE, server), pidsOf(BOB, server)]);
      assert.ok(alice.size >= 1 && bob.size >= 1);
      for (const id of alice) assert.match(id, /^[0-9a-f-]{36}$/);
      const shared = [...alice].filter((pid) => bob.has(pid));
      assert.deepEqual(shared, [], `alice ${[...alice]} bob ${[...bob]}`);
      // And each client's own later requests reuse its pool: an idle process
      // always serves the next request, so her first call lands on one she had.
      // (Calls at once may still grow her pool if it was smaller than its limit.)
      const again = await pidsOf(ALICE, server);
      assert.ok([...again].some((pid) => alice.has(pid)), `alice again ${[...again]} vs ${[...alice]}`);
      assert.ok([...again].every((pid) => !bob.has(pid)), `alice again ${[...again]} bob ${[...bob]}`);
      const aliceAll = new Set([...alice, ...again]);
      assert.ok(aliceAll.size <= 4 && bob.size <= 4, 'more processes than the pool holds');
    });
  }

  test('modern server: each client gets lanes of its own', async () => {
    // One after the other: bob's requests find alice's idle lane, and must not take it.
    await pidsOfModern(ALICE);
    await pidsOfModern(BOB);
    const lanes = gateway.logs().split('\n').filter((l) => l.includes('"lane ready"') &&
        l.includes('"server":"modern"')).map((l) => JSON.parse(l));
    const sessions = (who) => new Set(lanes.filter((l) => l.client === who).map((l) => l.session));
    assert.ok(sessions('alice').size >= 1 && sessions('bob').size >= 1, JSON.stringify(lanes));
    assert.deepEqual([...sessions('alice')].filter((s) => sessions('bob').has(s)), []);
  });

  async function pidsOfModern(token) {
    const client = await connect(gateway, 'modern', undefined, token);
    await Promise.all([0, 1].map(() => client.callTool({name: 'echo', arguments: {text: 'x'}})));
    await client.close();
  }
});

// Reads a subscriptions/listen stream: the parsed SSE events as they come.
async function listen(gateway, server, id, notifications) {
  const controller = new AbortController();
  const response = await fetch(gateway.url(server), {
    method: 'POST',
    signal: controller.signal,
    headers: {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
      ...MODERN_HEADERS, 'Mcp-Method': 'subscriptions/listen'},
    body: JSON.stringify({jsonrpc: '2.0', id, method: 'subscriptions/listen',
      params: {_meta: META, notifications}}),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type'), /text\/event-stream/);
  const events = [];
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  (async () => {
    try {
      for (;;) {
        const {value, done} = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, {stream: true});
        let at;
        while ((at = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).join('');
          if (data.trim()) events.push(JSON.parse(data));
        }
      }
    } catch {
      // aborted
    }
  })();
  return {events, close: () => controller.abort()};
}

describe('subscriptions/listen', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig().file);
  });
  after(async () => gateway?.stop());

  test('legacy server: acknowledged, then its resource updates tagged with the listen id', async () => {
    const uri = 'demo://resource/static/document/architecture.md';
    const stream = await listen(gateway, 'everything', 'sub-1',
        {resourceSubscriptions: [uri], promptsListChanged: true});
    assert.ok(await waitFor(() => stream.events.length > 0, {timeoutMs: 10000}), 'no acknowledgement');
    const ack = stream.events[0];
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged', JSON.stringify(ack));
    assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');
    assert.deepEqual(ack.params.notifications.resourceSubscriptions, [uri]);
    // The server starts sending updates for what was subscribed when this tool is called.
    const client = await connect(gateway, 'everything');
    await client.callTool({name: 'toggle-subscriber-updates', arguments: {}});
    const update = await waitFor(() => stream.events.find((e) => e.method === 'notifications/resources/updated'),
        {timeoutMs: 12000});
    assert.ok(update, `no update: ${JSON.stringify(stream.events)}`);
    assert.equal(update.params.uri, uri);
    assert.equal(update.params._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');
    await client.callTool({name: 'toggle-subscriber-updates', arguments: {}});
    await client.close();
    stream.close();
  });

  test('modern server: the server\'s acknowledgement comes with the client\'s id', async () => {
    const stream = await listen(gateway, 'modern', 77, {toolsListChanged: true});
    assert.ok(await waitFor(() => stream.events.length > 0, {timeoutMs: 10000}), 'no acknowledgement');
    assert.equal(stream.events[0].method, 'notifications/subscriptions/acknowledged');
    assert.equal(stream.events[0].params._meta['io.modelcontextprotocol/subscriptionId'], 77);
    const client = await connect(gateway, 'modern');
    await client.callTool({name: 'add-tool', arguments: {name: 'fresh'}});
    const changed = await waitFor(() => stream.events.find((e) => e.method === 'notifications/tools/list_changed'),
        {timeoutMs: 5000});
    assert.ok(changed, `no list_changed: ${JSON.stringify(stream.events)}`);
    assert.equal(changed.params._meta['io.modelcontextprotocol/subscriptionId'], 77);
    await client.close();
    stream.close();
  });
});

// A listen stream is not a request that times out: it lasts past request_timeout.
describe('subscriptions/listen outlives request_timeout', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig([], {requestTimeout: '2s'}).file);
  });
  after(async () => gateway?.stop());

  test('modern server: list_changed still arrives after twice the request timeout', async () => {
    const stream = await listen(gateway, 'modern', 'long', {toolsListChanged: true});
    assert.ok(await waitFor(() => stream.events.length > 0, {timeoutMs: 10000}), 'no acknowledgement');
    await new Promise((resolve) => setTimeout(resolve, 4500));
    assert.ok(!stream.events.some((e) => e.error), `the stream ended: ${JSON.stringify(stream.events)}`);
    const client = await connect(gateway, 'modern');
    await client.callTool({name: 'add-tool', arguments: {name: 'late'}});
    const changed = await waitFor(() => stream.events.find((e) => e.method === 'notifications/tools/list_changed'),
        {timeoutMs: 5000});
    assert.ok(changed, `no list_changed: ${JSON.stringify(stream.events)}`);
    await client.close();
    stream.close();
  });
});

describe('MRTR by hand: what the gateway mints and what it accepts back', () => {
  const ALICE = 'mcpg_' + crypto.randomBytes(32).toString('base64url');
  const BOB = 'mcpg_' + crypto.randomBytes(32).toString('base64url');
  const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');
  let gateway;
  let config;
  before(async () => {
    config = writeConfig([
      'auth:',
      '  tokens:',
      `    - {client: alice, sha256: ${sha256(ALICE)}}`,
      `    - {client: bob, sha256: ${sha256(BOB)}}`,
      '  clients:',
      '    alice: {servers: [legacy]}',
      '    bob: {servers: [legacy]}',
    ]);
    gateway = await startGateway(config.file);
  });
  after(async () => gateway?.stop());

  const meta = {...META, 'io.modelcontextprotocol/clientCapabilities': {sampling: {}}};
  const callAs = (token, id, params, method = 'tools/call') => post(gateway, 'legacy',
      {jsonrpc: '2.0', id, method, params: {...params, _meta: meta}},
      {...MODERN_HEADERS, 'Authorization': `Bearer ${token}`, 'Mcp-Method': method,
        'Mcp-Name': params.name});

  test('the server\'s question is scanned as a response, the state bound to its client', async () => {
    const first = await callAs(ALICE, 1, {name: 'sample', arguments: {text: `the key ${FAKE_SECRET}`}});
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const result = first.body.result;
    assert.equal(result.resultType, 'input_required', JSON.stringify(result));
    const [[key, request]] = Object.entries(result.inputRequests);
    assert.equal(request.method, 'sampling/createMessage');
    const asked = request.params.messages[0].content.text;
    assert.match(asked, /\[REDACTED:aws-access-key-id\]/);
    assert.ok(!JSON.stringify(first.body).includes(FAKE_SECRET));
    const state = result.requestState;
    assert.match(state, /^mcpgate\.1\./);
    const answer = {[key]: {role: 'assistant', model: 'm', content: {type: 'text', text: 'fine'}}};

    const stolen = await callAs(BOB, 2, {name: 'sample', arguments: {text: 'x'}, inputResponses: answer,
      requestState: state});
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error.data.reason, 'request_state_other_client');

    const elsewhere = await callAs(ALICE, 3, {name: 'sample', inputResponses: answer, requestState: state},
        'prompts/get');
    assert.equal(elsewhere.status, 400);
    assert.equal(elsewhere.body.error.data.reason, 'request_state_wrong_place');

    const retry = await callAs(ALICE, 4, {name: 'sample', arguments: {text: 'x'}, inputResponses: answer,
      requestState: state});
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.id, 4);
    assert.equal(retry.body.result.resultType, 'complete');
    assert.equal(retry.body.result.content[0].text, 'fine');

    const again = await callAs(ALICE, 5, {name: 'sample', arguments: {text: 'x'}, inputResponses: answer,
      requestState: state});
    assert.equal(again.status, 400);
    assert.equal(again.body.error.data.reason, 'request_state_gone');
  });

  test('the client\'s answer is scanned as a request before it reaches the server', async () => {
    const first = await callAs(ALICE, 11, {name: 'sample', arguments: {text: 'hello'}});
    const {inputRequests, requestState} = first.body.result;
    const [key] = Object.keys(inputRequests);
    const retry = await callAs(ALICE, 12, {name: 'sample', arguments: {text: 'hello'}, requestState,
      inputResponses: {[key]: {role: 'assistant', model: 'm',
        content: {type: 'text', text: `my key is ${FAKE_SECRET}`}}}});
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.ok(!JSON.stringify(retry.body).includes(FAKE_SECRET), JSON.stringify(retry.body));
    assert.ok(await waitFor(() => config.received().includes('my key is')), config.received());
    assert.ok(!config.received().includes(FAKE_SECRET), 'the key reached the server');
  });
});

describe('the aggregate /mcp for a modern client', () => {
  let gateway;
  before(async () => {
    gateway = await startGateway(writeConfig().file);
  });
  after(async () => gateway?.stop());

  test('discover, list the servers\' tools (both eras), call them, sample through it', async () => {
    const {status, body} = await post(gateway, '',
        {jsonrpc: '2.0', id: 'd', method: 'server/discover', params: {_meta: META}},
        {...MODERN_HEADERS, 'Mcp-Method': 'server/discover'});
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.result.supportedVersions, ['2026-07-28']);
    assert.ok(body.result.capabilities.tools);

    const client = await connect(gateway, '');
    const {tools} = await client.listTools();
    const names = tools.map((t) => t.name);
    // The modern-only server too: the aggregate reaches it through the era bridge.
    for (const name of ['modern__echo', 'legacy__echo', 'everything__echo']) {
      assert.ok(names.includes(name), `${name} missing from ${names}`);
    }
    assert.equal(textOf(await client.callTool({name: 'legacy__echo', arguments: {text: 'via /mcp'}})),
        'via /mcp');
    assert.equal(textOf(await client.callTool({name: 'modern__echo', arguments: {text: 'm'}})), 'echo: m');
    const sampled = await client.callTool({name: 'legacy__sample', arguments: {text: 'ping'}});
    assert.match(textOf(sampled), /model says hi to: ping/);
    await client.close();
  });
});

describe('pool: per server', () => {
  async function instances(gateway, calls) {
    const client = await connect(gateway, 'legacy');
    const results = await Promise.all(Array.from({length: calls},
        () => client.callTool({name: 'instance', arguments: {}})));
    await client.close();
    return new Set(results.map(textOf));
  }

  test('size caps the processes one client gets; concurrent calls share them', async () => {
    const gateway = await startGateway(writeConfig([], {legacyPool: '{size: 2}'}).file);
    try {
      const seen = await instances(gateway, 6);
      assert.ok(seen.size >= 1 && seen.size <= 2, `${seen.size} processes: ${[...seen]}`);
    } finally {
      await gateway.stop();
    }
  });

  test('start readies that many at the first request; idle_timeout ends idle ones unasked', async () => {
    const gateway = await startGateway(
        writeConfig([], {legacyPool: '{size: 3, start: 3, idle_timeout: 1s}'}).file);
    try {
      await instances(gateway, 1);
      const ready = () => gateway.logs().split('\n').filter((l) => l.includes('"lane ready"') &&
          l.includes('"server":"legacy"')).length;
      assert.ok(await waitFor(() => ready() === 3, {timeoutMs: 10000}), `lanes ready: ${ready()}`);
      const first = await instances(gateway, 1);
      // Idle past their time, they end with no request to notice it (the pool's timer).
      const ended = () => gateway.logs().split('\n').filter((l) =>
        l.includes('"session closed"') && l.includes('idle for longer than pool.idle_timeout')).length;
      assert.ok(await waitFor(() => ended() === 3, {timeoutMs: 10000}), `idle ends logged: ${ended()}`);
      // The next request gets a new process.
      const later = await instances(gateway, 1);
      assert.ok(![...later].some((id) => first.has(id)), `still ${[...later]}`);
    } finally {
      await gateway.stop();
    }
  });
});
