// The aggregate endpoint /mcp as the official SDK client sees it: one session
// over server-everything and the recording test server, every tool, prompt and
// resource listed with its server's prefix, each call routed to its server,
// and DLP applied there.

import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {McpError} from '@modelcontextprotocol/sdk/types.js';

import {everythingServerLines, startGateway, writeTestServerConfig} from './lib.mjs';

const KEY = 'AKIA4YSNI2G3IITN5XVK';

const {file: configFile, received} = writeTestServerConfig(
    ['dlp: {default_action: {request: block}}'], {}, everythingServerLines());

let gateway;
let client;
before(async () => {
  gateway = await startGateway(configFile);
  client = new Client({name: 'mcpgate-e2e-aggregate', version: '1.0.0'});
  await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${gateway.port}/mcp`)));
});
after(async () => {
  await client?.close();
  await gateway?.stop();
});

test('tools of both servers are listed with their prefixes', async () => {
  const {tools} = await client.listTools();
  const names = tools.map((tool) => tool.name);
  assert.ok(names.includes('everything__echo'), names.join(' '));
  assert.ok(names.includes('test__echo'), names.join(' '));
  assert.ok(!names.includes('echo'), names.join(' '));
  for (const name of names) assert.ok(name.length <= 64, name);
});

test('calls are routed to their server', async () => {
  const fromEverything = await client.callTool({name: 'everything__echo', arguments: {message: 'hi'}});
  assert.match(fromEverything.content[0].text, /hi/);
  const fromTest = await client.callTool({name: 'test__echo', arguments: {text: 'to the test server'}});
  assert.equal(fromTest.content[0].text, 'to the test server');
  assert.ok(received().includes('to the test server'), received());
});

test('prompts and resources come through their server', async () => {
  const {prompts} = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === 'everything__simple-prompt'),
      prompts.map((p) => p.name).join(' '));
  const prompt = await client.getPrompt({name: 'everything__simple-prompt'});
  assert.ok(prompt.messages.length > 0);
  const {resources} = await client.listResources();
  assert.ok(resources.length > 0);
  assert.ok(resources[0].name.startsWith('everything__'), resources[0].name);
  const {contents} = await client.readResource({uri: resources[0].uri});
  assert.equal(contents[0].uri, resources[0].uri);
});

test('DLP blocks a key on a routed call before its server sees it', async () => {
  await assert.rejects(
      client.callTool({name: 'test__echo', arguments: {text: `key ${KEY}`}}),
      (error) => {
        assert.ok(error instanceof McpError, `not an McpError: ${error}`);
        assert.equal(error.code, -32003);
        assert.deepEqual(error.data.rules, ['aws-access-key-id']);
        return true;
      });
  assert.ok(!received().includes(KEY), 'the test server received the key');
  assert.ok(gateway.logs().includes('"server":"test"'), gateway.logs());
});

test('an unknown prefix is a clear error', async () => {
  await assert.rejects(client.callTool({name: 'nowhere__echo', arguments: {}}), (error) => {
    assert.equal(error.code, -32602);
    assert.match(error.message, /<server>__<name>/);
    return true;
  });
});
