// Per-tool policy and tool pinning as the official SDK client sees them,
// through `mcpgate serve` to the recording test server (which proves what it
// did or did not receive): a denied tool is hidden and refused, a per-tool
// action overrides the default, and a tool whose description changes is
// hidden until an operator approves it with `mcpgate pins approve`.

import {after, test} from 'node:test';
import assert from 'node:assert/strict';
import {execFileSync} from 'node:child_process';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {McpError} from '@modelcontextprotocol/sdk/types.js';

import {MCPGATE_BIN, startGateway, writeTestServerConfig} from './lib.mjs';

// A synthetic key in AWS's format, which the shipped aws-access-key-id rule matches.
const KEY = 'AKIA4YSNI2G3IITN5XVK';

const gateways = [];
after(async () => {
  for (const gateway of gateways) await gateway.stop();
});

async function connect(t, extraLines) {
  const config = writeTestServerConfig(extraLines);
  const gateway = await startGateway(config.file);
  gateways.push(gateway);
  const client = new Client({name: 'mcpgate-e2e-policy', version: '1.0.0'});
  t.after(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('test'))));
  return {config, gateway, client};
}

const names = async (client) => (await client.listTools()).tools.map((tool) => tool.name);
const textOf = (result) => result.content?.[0]?.text ?? '';

function refusedBecause(reason, tool) {
  return (error) => {
    assert.ok(error instanceof McpError, `not an McpError: ${error}`);
    assert.equal(error.code, -32004);
    assert.equal(error.data?.reason, reason, JSON.stringify(error.data));
    assert.equal(error.data?.tool, tool);
    return true;
  };
}

test('a denied tool is hidden from tools/list and its calls are refused', async (t) => {
  const {config, client} = await connect(t, [
    'policies:',
    '  - match: {server: test, tool: env}',
    '    deny: true',
  ]);
  const listed = await names(client);
  assert.ok(!listed.includes('env'), `env is listed: ${listed}`);
  assert.ok(listed.includes('echo'), `echo is missing: ${listed}`);
  await assert.rejects(client.callTool({name: 'env', arguments: {name: 'HOME'}}),
      refusedBecause('tool_denied', 'env'));
  assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: 'allowed'}})), 'allowed');
  const received = config.received();
  assert.ok(received.includes('allowed'), received);
  assert.ok(!received.includes('"name":"env"'), `the denied call reached the server: ${received}`);
});

test('a per-tool action overrides the default action', async (t) => {
  const {config, client} = await connect(t, [
    'dlp: {default_action: {request: block}}',
    'policies:',
    '  - match: {server: test, tool: echo}',
    '    actions: {aws-access-key-id: log}',
  ]);
  // echo only logs the key; any other tool still blocks it.
  assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: `key ${KEY}`}})),
      `key ${KEY}`);
  await assert.rejects(client.callTool({name: 'log', arguments: {text: `key ${KEY}`}}), (error) => {
    assert.equal(error.code, -32003);
    assert.deepEqual(error.data?.rules, ['aws-access-key-id']);
    return true;
  });
  const received = config.received();
  assert.ok(received.includes('"name":"echo"'), received);
  assert.ok(!received.includes('"name":"log"'), `the blocked call reached the server: ${received}`);
});

test('a tool whose description changes is hidden until approved', async (t) => {
  const {config, client} = await connect(t, []);
  assert.ok((await names(client)).includes('echo'));  // first sight: pinned
  assert.equal(
      textOf(await client.callTool({name: 'mutate', arguments: {tool: 'echo', description: 'new'}})),
      'changed echo');

  const after = await names(client);
  assert.ok(!after.includes('echo'), `the changed tool is still listed: ${after}`);
  assert.ok(after.includes('env'), `an unchanged tool went missing: ${after}`);
  await assert.rejects(client.callTool({name: 'echo', arguments: {text: 'rug pulled'}}),
      refusedBecause('tool_not_approved', 'echo'));
  assert.ok(!config.received().includes('rug pulled'));

  const listed = execFileSync(MCPGATE_BIN, ['pins', 'list', '-c', config.file, 'test'],
      {encoding: 'utf8'});
  assert.match(listed, /^test\s+echo\s+changed\s/m, listed);
  const approved = execFileSync(MCPGATE_BIN, ['pins', 'approve', '-c', config.file, 'test', 'echo'],
      {encoding: 'utf8'});
  assert.match(approved, /approved test echo/);

  // The same session, no restart: the approval is read from disk.
  assert.ok((await names(client)).includes('echo'));
  assert.equal(textOf(await client.callTool({name: 'echo', arguments: {text: 'approved'}})),
      'approved');
});
