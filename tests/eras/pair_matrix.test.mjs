// Every pair of MCP eras through the real mcpgate: clients (SDK 1.x, SDK v2 in
// legacy mode, pinned to 2026-07-28, and in auto) x servers (server-everything,
// 2025-era; the v2 SDK server with legacy: 'reject', modern only; and with
// legacy: 'serve', dual-era; and the same two over Streamable HTTP as remote
// `url:` servers) x transports (HTTP /mcp/<server>, mcpgate stdio). Each pair
// lists tools, calls echo, gets progress, answers a sampling request and an
// elicitation, has a key in its arguments blocked and one in a result redacted
// by DLP. Prints the matrix; asserts every pair (the spec's matrix says a
// modern-only client and a legacy
// server fail with each other directly, and so do a legacy client and a
// modern-only server: through mcpgate they work).
//
//   node --test pair_matrix.test.mjs          (MCPGATE_BIN: the binary)

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, test} from 'node:test';

import {Client as V2Client, StreamableHTTPClientTransport as V2Http} from '@modelcontextprotocol/client';
import {StdioClientTransport as V2Stdio} from '@modelcontextprotocol/client/stdio';
import {Client as V1Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport as V1Stdio} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport as V1Http} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {CreateMessageRequestSchema, ElicitRequestSchema} from '@modelcontextprotocol/sdk/types.js';

import {MCPGATE_BIN, SOURCE_DIR, everythingServerLines, startGateway} from '../e2e/lib.mjs';
import {startV2Http} from './v2_http.mjs';

const V2_SERVER_INSIDE = '/opt/eras/servers/v2_server.mjs';
const SAMPLED = 'sampled by the pair matrix';
// A fake AWS access key id (the shipped aws-access-key-id rule matches it).
const KEY = 'AKIA4YSNI2G3IITN5XVK';

function writeConfig(remotes) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-eras-matrix-'));
  fs.chmodSync(dir, 0o755);
  const binds = `{src: ${JSON.stringify(path.join(SOURCE_DIR, 'node_modules'))}, dst: /opt/node_modules}, ` +
      `{src: ${JSON.stringify(path.join(SOURCE_DIR, 'tests/eras/servers'))}, dst: /opt/eras/servers}`;
  const v2 = (name, mode) => ['  ' + name + ':', '    command: node',
    `    args: [${JSON.stringify(V2_SERVER_INSIDE)}, --legacy, ${mode}]`,
    `    sandbox: {binds: [${binds}]}`];
  const file = path.join(dir, 'mcpgate.yaml');
  fs.writeFileSync(file, ['listen: 127.0.0.1:0', 'servers:', ...everythingServerLines(),
    `    env: {MATRIX_KEY: ${KEY}}`,
    ...v2('reject', 'reject'), ...v2('serve', 'serve'),
    ...Object.entries(remotes).flatMap(([name, remote]) => [`  ${name}:`, `    url: ${remote.url}`]),
    'session: {idle_timeout: 60s, grace: 2s}',
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    'dlp: {default_action: {request: block}}', ''].join('\n'));
  return {file, dir};
}

// What each server calls its echo, progress and sampling tools.
const SERVERS = {
  everything: {
    echo: {name: 'echo', arguments: {message: 'pair'}, expect: 'Echo: pair'},
    leak: {name: 'echo', arguments: {message: `key ${KEY}`}},
    secret: {name: 'get-env', arguments: {}},
    progress: {name: 'trigger-long-running-operation', arguments: {duration: 1, steps: 3}},
    sample: {name: 'trigger-sampling-request', arguments: {prompt: 'hi', maxTokens: 10}},
    elicit: {name: 'trigger-elicitation-request', arguments: {}, expect: '- Name: Ada'},
  },
  reject: {
    echo: {name: 'echo', arguments: {text: 'pair'}, expect: 'echo: pair'},
    leak: {name: 'echo', arguments: {text: `key ${KEY}`}},
    secret: {name: 'secret', arguments: {}},
    elicit: {name: 'elicit', arguments: {message: 'who?'}, expect: 'hello Ada'},
    progress: {name: 'progress', arguments: {steps: 3, ms: 150}},
    sample: {name: 'sample', arguments: {prompt: 'hi'}},
  },
};
SERVERS.serve = SERVERS.reject;
// The same v2 server over HTTP, as a remote (url:) upstream.
SERVERS['remote-reject'] = SERVERS.reject;
SERVERS['remote-serve'] = SERVERS.reject;

const CLIENTS = {
  'sdk-1.x': () => {
    const client = new V1Client({name: 'matrix', version: '1'},
        {capabilities: {sampling: {}, elicitation: {}}});
    client.setRequestHandler(CreateMessageRequestSchema, async () =>
      ({role: 'assistant', model: 'm', content: {type: 'text', text: SAMPLED}}));
    client.setRequestHandler(ElicitRequestSchema, async () => ({action: 'accept', content: {name: 'Ada'}}));
    return client;
  },
  'v2-legacy': () => v2Client('legacy'),
  'v2-pinned': () => v2Client({pin: '2026-07-28'}),
  'v2-auto': () => v2Client('auto'),
};

function v2Client(mode) {
  const client = new V2Client({name: 'matrix', version: '1'},
      {capabilities: {sampling: {}, elicitation: {}}, versionNegotiation: {mode}});
  client.setRequestHandler('sampling/createMessage', async () =>
    ({role: 'assistant', model: 'm', content: {type: 'text', text: SAMPLED}}));
  client.setRequestHandler('elicitation/create', async () => ({action: 'accept', content: {name: 'Ada'}}));
  return client;
}

const textOf = (result) => (result.content ?? []).map((c) => c.text ?? '').join('');

async function runPair(gateway, config, clientName, server, transport) {
  const client = CLIENTS[clientName]();
  const v2 = client instanceof V2Client;
  const call = (params, options) => v2 ? client.callTool(params, options) :
    client.callTool(params, undefined, options);
  let connection;
  if (transport === 'http') {
    const url = new URL(gateway.url(server));
    connection = v2 ? new V2Http(url) : new V1Http(url);
  } else {
    const spec = {command: MCPGATE_BIN, args: ['stdio', '-c', config.file, server], stderr: 'ignore'};
    connection = v2 ? new V2Stdio(spec) : new V1Stdio(spec);
  }
  const done = [];
  try {
    await client.connect(connection);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const spec = SERVERS[server];
    assert.ok(tools.includes(spec.echo.name), `tools: ${tools}`);
    done.push('list');
    assert.equal(textOf(await call(spec.echo)), spec.echo.expect);
    done.push('call');
    const progress = [];
    await call(spec.progress, {onprogress: (p) => progress.push(p.progress)});
    assert.ok(progress.length >= 1, 'no progress');
    done.push('progress');
    assert.match(textOf(await call(spec.sample)), new RegExp(SAMPLED));
    done.push('sampling');
    if (spec.elicit) {
      const elicited = textOf(await call(spec.elicit));
      assert.ok(elicited.includes(spec.elicit.expect), `elicitation: ${elicited.slice(0, 200)}`);
      done.push('elicitation');
    }
    await assert.rejects(call(spec.leak), (error) => error.code === -32003 &&
        !String(error.message).includes(KEY));
    done.push('dlp-block');
    const secret = textOf(await call(spec.secret));
    assert.ok(secret.includes('[REDACTED:aws-access-key-id]') && !secret.includes(KEY),
        `not redacted: ${secret.slice(0, 200)}`);
    done.push('dlp-redact');
    return {ok: true, done};
  } catch (error) {
    return {ok: false, done, error: String(error?.message ?? error).slice(0, 160)};
  } finally {
    await client.close().catch(() => {});
  }
}

let config;
let gateway;
const remotes = {};
after(async () => {
  await gateway?.stop();
  for (const remote of Object.values(remotes)) await remote.stop();
  if (config) fs.rmSync(config.dir, {recursive: true, force: true});
});

test('every pair of eras through mcpgate', async () => {
  remotes['remote-reject'] = await startV2Http('reject');
  remotes['remote-serve'] = await startV2Http('serve');
  config = writeConfig(remotes);
  gateway = await startGateway(config.file);
  const rows = [];
  for (const transport of ['http', 'stdio']) {
    for (const server of Object.keys(SERVERS)) {
      for (const clientName of Object.keys(CLIENTS)) {
        const result = await runPair(gateway, config, clientName, server, transport);
        rows.push({pair: `${clientName} ${server} ${transport}`, ...result});
      }
    }
  }
  for (const row of rows) {
    process.stdout.write(`${row.ok ? 'works' : 'FAILS'}  ${row.pair.padEnd(30)} ` +
        `${row.done.join(',')}${row.error ? `  (${row.error})` : ''}\n`);
  }
  const broken = rows.filter((row) => !row.ok);
  assert.deepEqual(broken.map((row) => `${row.pair}: ${row.error}`), []);
});
