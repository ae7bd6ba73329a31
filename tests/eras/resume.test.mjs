// A legacy remote upstream that closes a POST's SSE stream after a priming
// event (`id:` and `retry:`, empty data), as the 2025-11-25 Streamable HTTP
// spec allows (SEP-1699): the gateway resumes with a GET carrying
// Last-Event-ID and hands the answer to its client, instead of leaving the
// client waiting for request_timeout (or telling it the server ended its
// response without answering).

import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, before, test} from 'node:test';
import {fileURLToPath} from 'node:url';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {startGateway} from '../e2e/lib.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-resume-'));
const record = path.join(dir, 'requests.jsonl');
const stops = [];
let port;

before(async () => {
  const proc = spawn(process.execPath, [path.join(HERE, 'servers/resuming_server.mjs'),
    '--retry', '50', '--record', record], {stdio: ['ignore', 'pipe', 'inherit']});
  stops.push(() => proc.kill());
  port = await new Promise((resolve, reject) => {
    proc.stdout.once('data', (line) => resolve(JSON.parse(line).port));
    proc.once('exit', (code) => reject(new Error(`resuming server exited ${code}`)));
  });
});

after(async () => {
  for (const stop of stops.reverse()) await stop();
  fs.rmSync(dir, {recursive: true, force: true});
});

const requests = () => fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

test('a POST stream closed after a priming event is resumed with Last-Event-ID', async (t) => {
  const file = path.join(dir, 'gw.yaml');
  // request_timeout far above the test's own timeout: an answer that waited
  // for it would fail the test, not pass it late.
  fs.writeFileSync(file, ['listen: 127.0.0.1:0', 'servers:', '  resuming:',
    `    url: http://127.0.0.1:${port}/mcp`,
    'session: {idle_timeout: 60s, grace: 2s, request_timeout: 600s}', ''].join('\n'));
  const gateway = await startGateway(file);
  stops.push(() => gateway.stop());
  const client = new Client({name: 'mcpgate-resume-test', version: '1.0.0'});
  t.after(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('resuming'))));

  // Answered on the POST's own stream: nothing to resume.
  const direct = await client.callTool({name: 'direct', arguments: {text: 'plain'}});
  assert.equal(direct.content[0].text, 'echo: plain');

  const started = Date.now();
  const resumed = await client.callTool({name: 'echo', arguments: {text: 'after a reconnect'}},
      undefined, {timeout: 30000});
  assert.equal(resumed.content[0].text, 'echo: after a reconnect');
  assert.ok(Date.now() - started < 30000);

  // The gateway asked for exactly the primed stream, after the priming event.
  const call = requests().findIndex((r) => r.method === 'POST' && r.body.includes('after a reconnect'));
  assert.ok(call >= 0, JSON.stringify(requests()));
  const resume = requests().slice(call + 1).find((r) => r.method === 'GET' && r.lastEventId);
  assert.ok(resume, `no GET with Last-Event-ID after the call: ${JSON.stringify(requests())}`);
  assert.match(resume.lastEventId, /^\d+$/);
});
