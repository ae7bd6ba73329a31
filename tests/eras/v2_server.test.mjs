// The v2 SDK test server (servers/v2_server.mjs) without the gateway: what
// each SDK client gets from it directly, in each legacy mode, over stdio and
// HTTP. Tells a gateway fault from a fault of the server, the SDK or the flow
// when the same steps fail through mcpgate.

import assert from 'node:assert/strict';
import path from 'node:path';
import {test} from 'node:test';
import {fileURLToPath} from 'node:url';

import {Client} from '@modelcontextprotocol/client';
import {StdioClientTransport} from '@modelcontextprotocol/client/stdio';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/client';
import {Client as LegacyClient} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport as LegacyStdio} from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import {startV2Http} from './v2_http.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const V2_SERVER = path.join(HERE, 'servers/v2_server.mjs');
const FAKE_SECRET = 'AKIA4YSNI2G3IITN5XVK';
const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function modernClient() {
  const client = new Client({name: 'eras-direct', version: '1.0.0'},
      {capabilities: {sampling: {}, elicitation: {}}, versionNegotiation: {mode: {pin: '2026-07-28'}}});
  client.setRequestHandler('sampling/createMessage',
      async () => ({role: 'assistant', model: 'm', content: {type: 'text', text: 'SAMPLED'}}));
  client.setRequestHandler('elicitation/create', async () => ({action: 'accept', content: {name: 'Ada'}}));
  return client;
}

function legacyClient() {
  const client = new LegacyClient({name: 'eras-direct', version: '1.0.0'},
      {capabilities: {sampling: {}, elicitation: {}}});
  client.setRequestHandler(CreateMessageRequestSchema,
      async () => ({role: 'assistant', model: 'm', content: {type: 'text', text: 'SAMPLED'}}));
  client.setRequestHandler(ElicitRequestSchema, async () => ({action: 'accept', content: {name: 'Ada'}}));
  client.listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => client.listChanged++);
  return client;
}

// The calls every era must carry; `legacy` adds what only a legacy client sees.
async function flow(client, {legacy}) {
  const names = (await client.listTools()).tools.map((t) => t.name);
  for (const name of ['echo', 'pid', 'progress', 'sample', 'elicit', 'add-tool', 'secret']) {
    assert.ok(names.includes(name), `${name} missing: ${names}`);
  }
  assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: 'hi'}})), 'echo: hi');
  assert.match(textOf(await client.callTool({name: 'pid', arguments: {}})), /^\d+$/);
  assert.equal(textOf(await client.callTool({name: 'sample', arguments: {prompt: 'p'}})), 'sampled: SAMPLED');
  assert.equal(textOf(await client.callTool({name: 'elicit', arguments: {message: 'who?'}})), 'hello Ada');
  assert.equal(textOf(await client.callTool({name: 'secret', arguments: {}})), `the key is ${FAKE_SECRET}`);
  const tool = `added-${Date.now()}`;
  await client.callTool({name: 'add-tool', arguments: {name: tool}});
  assert.ok((await client.listTools()).tools.some((t) => t.name === tool), 'added tool not listed');
  if (legacy) {
    const progress = [];
    await client.callTool({name: 'progress', arguments: {steps: 3, ms: 50}}, undefined,
        {onprogress: (p) => progress.push(p.progress)});
    assert.ok(progress.length >= 2, `progress: ${progress}`);
    await sleep(100);
    assert.ok(client.listChanged >= 1, 'no notifications/tools/list_changed');
  }
}

function stdio(Transport, mode) {
  return new Transport({command: process.execPath, args: [V2_SERVER, '--legacy', mode], stderr: 'pipe'});
}

for (const mode of ['reject', 'serve']) {
  test(`stdio --legacy ${mode}: a v2 client pinned to 2026-07-28`, async () => {
    const client = modernClient();
    await client.connect(stdio(StdioClientTransport, mode));
    try {
      await flow(client, {legacy: false});
    } finally {
      await client.close();
    }
  });
}

test('stdio --legacy serve: an SDK 1.x client (2025 era)', async () => {
  const client = legacyClient();
  await client.connect(stdio(LegacyStdio, 'serve'));
  try {
    await flow(client, {legacy: true});
  } finally {
    await client.close();
  }
});

test('stdio --legacy reject: an SDK 1.x client is refused with -32022', async () => {
  const client = legacyClient();
  await assert.rejects(client.connect(stdio(LegacyStdio, 'reject')),
      (error) => error.code === -32022 && error.data?.supported?.includes('2026-07-28'));
  await client.close();
});

test('--http --legacy reject: a v2 client pinned to 2026-07-28', async (t) => {
  const server = await startV2Http('reject');
  t.after(() => server.stop());
  const client = modernClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  try {
    await flow(client, {legacy: false});
  } finally {
    await client.close();
  }
});
