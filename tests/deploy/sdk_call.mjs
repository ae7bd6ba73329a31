#!/usr/bin/env node
// The official MCP SDK client against a gateway reached over HTTP: initialize,
// tools/list, then tools/call echo N times, each answer checked. Used by the
// container and Kubernetes tests (docker/container-test.sh, docker/kube-test.sh).
//
// usage: node sdk_call.mjs URL [--token T] [--calls N]
// Prints one JSON line {"ok":true,"tools":K,"calls":N,"session":"..."}; exits 1 on
// any failure, with the error on stderr.

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const args = process.argv.slice(2);
const url = args[0];
let token = '';
let calls = 3;
for (let i = 1; i < args.length; ++i) {
  if (args[i] === '--token') token = args[++i];
  else if (args[i] === '--calls') calls = Number(args[++i]);
}
if (!url || !(calls > 0)) {
  console.error('usage: node sdk_call.mjs URL [--token T] [--calls N]');
  process.exit(2);
}

const headers = token ? {Authorization: `Bearer ${token}`} : {};
const transport = new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers}});
const client = new Client({name: 'mcpgate-deploy-test', version: '1.0.0'});
try {
  await client.connect(transport);
  const {tools} = await client.listTools();
  if (!tools.some((t) => t.name === 'echo')) throw new Error('no echo tool in tools/list');
  for (let i = 0; i < calls; ++i) {
    const message = `hello from the SDK client, call ${i}`;
    const result = await client.callTool({name: 'echo', arguments: {message}});
    const text = result.content?.[0]?.text ?? '';
    if (result.isError || !text.includes(message)) {
      throw new Error(`call ${i}: unexpected answer ${JSON.stringify(result)}`);
    }
  }
  console.log(JSON.stringify({ok: true, tools: tools.length, calls, session: transport.sessionId}));
  await transport.terminateSession().catch(() => {});
  await client.close();
} catch (error) {
  console.error(`sdk_call: ${error.stack ?? error}`);
  process.exit(1);
}
