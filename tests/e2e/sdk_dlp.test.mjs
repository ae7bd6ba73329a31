// DLP in the path as the official SDK client sees it, through `mcpgate serve`
// to server-everything: a key in the `echo` tool's message is redacted with
// the shipped rules, or blocked with a JSON-RPC error when the config says so.

import {after, test} from 'node:test';
import assert from 'node:assert/strict';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {McpError} from '@modelcontextprotocol/sdk/types.js';

import {startGateway, waitFor, writeEverythingConfig} from './lib.mjs';

// A synthetic key in AWS's format, which the shipped aws-access-key-id rule matches.
const KEY = 'AKIA4YSNI2G3IITN5XVK';

const gateways = [];
after(async () => {
  for (const gateway of gateways) await gateway.stop();
});

async function connect(t, extraLines) {
  const gateway = await startGateway(writeEverythingConfig(extraLines));
  gateways.push(gateway);
  const client = new Client({name: 'mcpgate-e2e-dlp', version: '1.0.0'});
  t.after(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url('everything'))));
  return {gateway, client};
}

test('a key in echo is redacted by the shipped rules', async (t) => {
  const {gateway, client} = await connect(t, []);
  const result = await client.callTool({name: 'echo', arguments: {message: `key ${KEY} here`}});
  const text = result.content?.[0]?.text ?? '';
  assert.ok(text.includes('[REDACTED:aws-access-key-id]'), `not redacted: ${JSON.stringify(result)}`);
  assert.ok(!text.includes(KEY), `the key came back: ${text}`);
  // The log line travels on the gateway's stderr pipe, which may arrive after the HTTP answer.
  assert.ok(await waitFor(() => gateway.logs().includes('"msg":"dlp finding"')), gateway.logs());
  assert.ok(!gateway.logs().includes(KEY), 'the gateway log holds the key');
});

test('a key in echo is blocked with default_action request: block', async (t) => {
  const {gateway, client} = await connect(t, ['dlp: {default_action: {request: block}}']);
  await assert.rejects(
      client.callTool({name: 'echo', arguments: {message: `key ${KEY} here`}}),
      (error) => {
        assert.ok(error instanceof McpError, `not an McpError: ${error}`);
        assert.equal(error.code, -32003);
        assert.match(error.message, /blocked by DLP/);
        assert.ok(!error.message.includes(KEY));
        assert.deepEqual(error.data, {reason: 'dlp_blocked', direction: 'request',
          rules: ['aws-access-key-id']});
        return true;
      });
  // The session goes on: a clean call still works.
  const result = await client.callTool({name: 'echo', arguments: {message: 'clean'}});
  assert.match(result.content?.[0]?.text ?? '', /clean/);
  assert.ok(!gateway.logs().includes(KEY), 'the gateway log holds the key');
});
