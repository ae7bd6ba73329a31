#!/usr/bin/env node
// The official MCP SDK client against mcpgate: initialize, then N calls of the
// test server's `echo` tool, each answer checked, then the session is ended.
// usage: node sdk_echo.mjs URL N   (prints {"ok":true,...}; exits 1 on failure)
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, count] = process.argv.slice(2);
const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({name: 'mcpgate-spawner-test', version: '1.0.0'});
try {
  await client.connect(transport);
  for (let i = 0; i < Number(count); ++i) {
    const text = `through the spawner, call ${i}`;
    const result = await client.callTool({name: 'echo', arguments: {text}});
    if (result.isError || result.content?.[0]?.text !== text) {
      throw new Error(`call ${i}: unexpected answer ${JSON.stringify(result)}`);
    }
  }
  console.log(JSON.stringify({ok: true, calls: Number(count)}));
  await transport.terminateSession().catch(() => {});
  await client.close();
} catch (error) {
  console.error(`sdk_echo: ${error.stack ?? error}`);
  process.exit(1);
}
