// The official SDK client over stdio, launching `mcpgate stdio -c FILE
// everything` as its server (as a desktop client would), through to
// server-everything. Closing the client must end mcpgate and its child.

import {test} from 'node:test';
import assert from 'node:assert/strict';

import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';

import {MCPGATE_BIN, everythingChildren, newSamplingClient, runSteps, waitFor, waitUntilGone,
  writeEverythingConfig} from './lib.mjs';

test('SDK client through mcpgate stdio', async (t) => {
  const config = writeEverythingConfig();
  const transport = new StdioClientTransport(
      {command: MCPGATE_BIN, args: ['stdio', '-c', config, 'everything'], stderr: 'pipe'});
  const log = [];
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (chunk) => log.push(chunk));
  const client = newSamplingClient();
  t.after(() => client.close());
  await client.connect(transport);
  const gatewayPid = transport.pid;
  // The SDK keeps the ChildProcess private; its exit status tells whether
  // mcpgate left on stdin EOF or had to be signalled by the SDK.
  let exit = null;
  transport._process?.on('exit', (code, signal) => exit = {code, signal});

  await runSteps(t, client);

  await t.test('closing the client ends mcpgate and its server process', async () => {
    const children = await waitFor(() => {
      const found = everythingChildren(gatewayPid);
      return found.length > 0 ? found : null;
    }, {timeoutMs: 2000});
    assert.ok(children, `no server-everything process under mcpgate stdio (pid ${gatewayPid})`);
    assert.equal(children.length, 1, JSON.stringify(children));

    // close() ends stdin, waits 2 s, then sends SIGTERM, then SIGKILL.
    await client.close();
    await waitFor(() => exit !== null, {timeoutMs: 5000});
    assert.deepEqual(exit, {code: 0, signal: null},
        `mcpgate stdio should exit 0 by itself when stdin closes; got ${JSON.stringify(exit)}\n` +
        `log:\n${log.join('')}`);
    const states = await waitUntilGone([gatewayPid, ...children.map((c) => c.pid)], 5000);
    assert.ok(Object.values(states).every((s) => s === 'gone'),
        `processes after close (want gone): ${JSON.stringify(states)}\nlog:\n${log.join('')}`);
  });
});
