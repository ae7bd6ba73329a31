// A remote upstream over HTTPS as the official SDK client sees it: the client
// talks to `mcpgate serve`, which talks Streamable HTTP over TLS to
// tests/servers/remote_server.mjs (the SDK's server transport on node's https
// module), with a CA and certificates made here by the openssl command. The
// remote's record file proves what reached it.

import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {McpError} from '@modelcontextprotocol/sdk/types.js';

import {SAMPLED_TEXT, SOURCE_DIR, freePort, newSamplingClient, startGateway, waitFor} from './lib.mjs';

const KEY = 'AKIA4YSNI2G3IITN5XVK';  // fake, in AWS's format
const REMOTE_JS = path.join(SOURCE_DIR, 'tests/servers/remote_server.mjs');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-e2e-remote-'));
const record = path.join(dir, 'record.jsonl');
const stops = [];
after(async () => {
  for (const stop of stops.reverse()) await stop();
  fs.rmSync(dir, {recursive: true, force: true});
});

function openssl(...args) {
  execFileSync('openssl', args, {cwd: dir, stdio: 'pipe'});
}

function makeCertificates() {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-days', '1', '-subj', '/CN=mcpgate e2e CA', '-keyout', 'ca.key',
      '-out', 'ca.pem');
  openssl('req', ...ec, '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr');
  fs.writeFileSync(path.join(dir, 'server.ext'),
      'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key',
      '-CAcreateserial', '-days', '1', '-out', 'server.pem', '-extfile', 'server.ext');
}

async function startRemote(args) {
  const proc = spawn(process.execPath, [REMOTE_JS, ...args], {stdio: ['ignore', 'pipe', 'inherit']});
  let out = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk) => out += chunk);
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  const line = await waitFor(() => out.includes('\n') && out, {timeoutMs: 15000});
  assert.ok(line, 'remote_server.mjs did not print its port');
  stops.push(async () => {
    proc.kill('SIGTERM');
    await exited;
  });
  return JSON.parse(line).port;
}

async function gatewayFor(serversYaml, extra = []) {
  const file = path.join(dir, `gw-${stops.length}.yaml`);
  fs.writeFileSync(file, ['listen: 127.0.0.1:0', 'servers:', ...serversYaml,
    'session: {idle_timeout: 60s, grace: 2s, request_timeout: 10s}', ...extra, ''].join('\n'));
  const gateway = await startGateway(file);
  stops.push(() => gateway.stop());
  return gateway;
}

async function connect(t, gateway, server) {
  const client = new Client({name: 'mcpgate-e2e-remote', version: '1.0.0'});
  t.after(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url(server))));
  return client;
}

const received = () => fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '';
const textOf = (result) => result.content?.[0]?.text ?? '';

let remoteYaml;
before(async () => {
  makeCertificates();
  const port = await startRemote(['--cert', path.join(dir, 'server.pem'), '--key',
    path.join(dir, 'server.key'), '--record', record]);
  remoteYaml = ['  remote:', `    url: https://localhost:${port}/mcp`,
    `    tls: {ca_file: ${JSON.stringify(path.join(dir, 'ca.pem'))}}`];
});

test('lists and calls the tools of a remote over https', async (t) => {
  const gateway = await gatewayFor(remoteYaml);
  const client = await connect(t, gateway, 'remote');
  assert.equal(client.getServerVersion()?.name, 'mcpgate-remote-test');
  const {tools} = await client.listTools();
  assert.deepEqual(tools.map((tool) => tool.name).sort(), ['announce', 'aws_key', 'big', 'echo', 'progress', 'sample']);
  const result = await client.callTool({name: 'echo', arguments: {text: 'through the gateway'}});
  assert.equal(textOf(result), 'through the gateway');
  const progress = [];
  const done = await client.callTool({name: 'progress', arguments: {steps: 4}}, undefined,
      {onprogress: (p) => progress.push({progress: p.progress, at: Date.now()})});
  assert.equal(textOf(done), 'done 4 steps');
  assert.ok(progress.length >= 2, `progress: ${JSON.stringify(progress)}`);
  // The remote sends them 50 ms apart: the client sees them as they come,
  // not in one burst with the answer.
  const spread = progress.at(-1).at - progress[0].at;
  assert.ok(spread >= 25 * (progress.length - 1), `progress came in a burst: ${JSON.stringify(progress)}`);
  assert.match(received(), /through the gateway/);
});

test('the remote asks the client for sampling during a call', async (t) => {
  const gateway = await gatewayFor(remoteYaml);
  const client = newSamplingClient();
  t.after(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('remote'))));
  const result = await client.callTool({name: 'sample', arguments: {text: 'write a haiku'}});
  assert.equal(textOf(result), `sampled: ${SAMPLED_TEXT}`);
  assert.equal(client.samplingRequests.length, 1);
  assert.match(JSON.stringify(client.samplingRequests[0].messages), /write a haiku/);
  // The client's answer went to the remote as a POST of its own.
  assert.match(received(), /e2e-model/);
});

test('a key in the arguments is blocked and never reaches the remote', async (t) => {
  const gateway = await gatewayFor(remoteYaml, ['dlp: {default_action: {request: block}}']);
  const client = await connect(t, gateway, 'remote');
  await assert.rejects(client.callTool({name: 'echo', arguments: {text: `key ${KEY}`}}),
      (error) => {
        assert.ok(error instanceof McpError, `not an McpError: ${error}`);
        assert.equal(error.code, -32003);
        assert.deepEqual(error.data?.rules, ['aws-access-key-id']);
        return true;
      });
  const result = await client.callTool({name: 'echo', arguments: {text: 'clean after block'}});
  assert.equal(textOf(result), 'clean after block');
  assert.match(received(), /clean after block/);
  assert.ok(!received().includes(KEY), 'the remote received the key');
  assert.ok(!gateway.logs().includes(KEY), 'the gateway log holds the key');
});

test('a key in the remote\'s result is redacted', async (t) => {
  const gateway = await gatewayFor(remoteYaml);
  const client = await connect(t, gateway, 'remote');
  const result = await client.callTool({name: 'aws_key', arguments: {}});
  assert.equal(textOf(result), 'the key is [REDACTED:aws-access-key-id] here');
});

test('a remote that is down is a clean error, and the gateway keeps serving', async (t) => {
  const downPort = await freePort();
  const gateway = await gatewayFor([...remoteYaml, '  down:', `    url: http://127.0.0.1:${downPort}/mcp`]);
  const down = new Client({name: 'mcpgate-e2e-remote', version: '1.0.0'});
  t.after(() => down.close());
  await assert.rejects(
      down.connect(new StreamableHTTPClientTransport(new URL(gateway.url('down')))),
      (error) => {
        assert.match(String(error.message), /cannot reach MCP server 'down' at http:\/\/127\.0\.0\.1:\d+: Connection refused/);
        return true;
      });
  const client = await connect(t, gateway, 'remote');
  assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: 'still up'}})), 'still up');
});
