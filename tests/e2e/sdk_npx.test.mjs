// An npx server, as users configure most MCP servers: `mcpgate install`
// fills the managed cache from the npm registry (network inside the sandbox),
// then the gateway runs `npx -y @modelcontextprotocol/server-everything@V`
// under the default profile (network none) from that cache, and the official
// SDK client goes through the whole MCP flow. The host copy of the cache is
// left exactly as the install wrote it.

import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {MCPGATE_BIN, SOURCE_DIR, newSamplingClient, runSteps, startGateway} from './lib.mjs';

// The version npm ci installed for the other tests: the same code either way.
const VERSION = JSON.parse(fs.readFileSync(path.join(
    SOURCE_DIR, 'node_modules/@modelcontextprotocol/server-everything/package.json'))).version;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-npx-'));
fs.chmodSync(dir, 0o755);  // the sandbox user (nobody, for root) must reach the cache
const configFile = path.join(dir, 'mcpgate.yaml');
fs.writeFileSync(configFile, [
  'listen: 127.0.0.1:0',
  'cache_dir: cache',
  'state_dir: state',  // tool pins of its own
  'servers:',
  '  everything:',
  '    command: npx',
  `    args: [-y, "@modelcontextprotocol/server-everything@${VERSION}", stdio]`,
  'session: {idle_timeout: 60s, grace: 2s}',
  '',
].join('\n'));
process.on('exit', () => fs.rmSync(dir, {recursive: true, force: true}));

// Every file under root with its size and mtime: what "unchanged" means here.
function snapshot(root) {
  const out = [];
  const walk = (p) => {
    for (const entry of fs.readdirSync(p, {withFileTypes: true})) {
      const full = path.join(p, entry.name);
      const st = fs.lstatSync(full);
      out.push(`${path.relative(root, full)} ${st.size} ${st.mtimeMs}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  return out.sort();
}

let gateway;
let installed;
before(async () => {
  const run = spawnSync(MCPGATE_BIN, ['install', '-c', configFile],
      {encoding: 'utf8', timeout: 240_000});
  assert.equal(run.status, 0, `mcpgate install failed (needs the npm registry):\n${run.stderr}`);
  assert.match(run.stderr, /install: everything: done/);
  installed = snapshot(path.join(dir, 'cache/npm/everything'));
  assert.ok(installed.some((line) => line.startsWith('_npx/')), 'install left no _npx folder');
  gateway = await startGateway(configFile);
});
after(async () => {
  await gateway?.stop();
});

test('npx server from the installed cache, through mcpgate, with the SDK client', async (t) => {
  const client = newSamplingClient();
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url('everything')));
  await client.connect(transport);
  await runSteps(t, client);
  await transport.terminateSession();
  await client.close();

  await t.test('it ran without network, in the default sandbox', () => {
    const parse = (line) => {
      try {
        return JSON.parse(line);
      } catch {
        return null;
      }
    };
    const report = gateway.logs().split('\n').map(parse)
        .filter((entry) => entry?.msg === 'sandbox').pop();
    assert.ok(report, `no sandbox report in the log:\n${gateway.logs()}`);
    assert.ok(report.enforced.includes('network'), JSON.stringify(report));
    assert.deepEqual(report.degraded, []);
  });

  await t.test('the host cache is unchanged by the run', () => {
    assert.deepEqual(snapshot(path.join(dir, 'cache/npm/everything')), installed);
  });
});
