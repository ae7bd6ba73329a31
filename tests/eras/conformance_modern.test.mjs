// The official conformance suite's 2026-07-28 server scenarios
// (@modelcontextprotocol/conformance 0.2.0-alpha.12, installed as
// conformance-modern; it needs Node 22) against the v2 SDK test server with
// `legacy: 'reject'` (modern only) over its own HTTP, and against the same
// server over stdio behind mcpgate on /mcp/<server>. Every check that passes
// directly must pass through the gateway; a check may pass through the
// gateway alone only where the gateway does the work itself (it validates
// Host/Origin; the bare SDK handler does not).

import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, test} from 'node:test';

import {SOURCE_DIR, startGateway, waitFor} from '../e2e/lib.mjs';

const NODE22 = path.join(SOURCE_DIR, 'node_modules/node22/bin/node');
const CONFORMANCE = path.join(SOURCE_DIR, 'node_modules/conformance-modern/dist/index.js');
const V2_SERVER = path.join(SOURCE_DIR, 'tests/eras/servers/v2_server.mjs');
const kGatewayOwnChecks = new Set(['dns-rebinding-protection/localhost-host-rebinding-rejected']);

async function runConformance(url) {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-conformance-modern-'));
  const proc = spawn(NODE22, [CONFORMANCE, 'server', '--url', url, '--requirements', '2026-07-28',
    '--timeout', '15000', '-o', outDir], {stdio: ['ignore', 'pipe', 'pipe']});
  let output = '';
  proc.stdout.on('data', (d) => output += d);
  proc.stderr.on('data', (d) => output += d);
  const code = await new Promise((resolve) => proc.on('exit', resolve));
  const checks = new Map();
  for (const dir of fs.readdirSync(outDir)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    const file = path.join(outDir, dir, 'checks.json');
    if (!fs.existsSync(file)) continue;
    for (const check of JSON.parse(fs.readFileSync(file, 'utf8'))) {
      checks.set(`${scenario}/${check.id}`,
          {status: check.status, error: check.errorMessage, details: check.details});
    }
  }
  fs.rmSync(outDir, {recursive: true, force: true});
  assert.ok(checks.size > 0, `conformance produced no results (exit ${code}):\n${output}`);
  return checks;
}

const kFailing = new Set(['FAILURE', 'WARNING']);
const passing = (checks) =>
  new Set([...checks].filter(([, c]) => !kFailing.has(c.status)).map(([key]) => key));
const sorted = (set) => [...set].sort();
const results = {};

async function startV2Http() {
  const proc = spawn(process.execPath, [V2_SERVER, '--http', '--legacy', 'reject'],
      {stdio: ['ignore', 'ignore', 'pipe']});
  let err = '';
  proc.stderr.on('data', (d) => err += d);
  const port = await waitFor(() => Number(/listening on port (\d+)/.exec(err)?.[1] ?? 0), {timeoutMs: 10000});
  assert.ok(port, `the v2 server did not start: ${err}`);
  return {url: `http://127.0.0.1:${port}/mcp`, stop: () => proc.kill('SIGTERM')};
}

function writeConfig() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-eras-conf-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'mcpgate.yaml');
  fs.writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'servers:',
    '  modern:',
    '    command: node',
    '    args: [/opt/eras/servers/v2_server.mjs, --legacy, reject]',
    `    sandbox: {binds: [{src: ${JSON.stringify(path.join(SOURCE_DIR, 'node_modules'))}, ` +
        `dst: /opt/node_modules}, {src: ${JSON.stringify(path.join(SOURCE_DIR, 'tests/eras/servers'))}, ` +
        'dst: /opt/eras/servers}]}',
    // The suite's secret-shaped test values are not what this run is about.
    'dlp: {enabled: false}',
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    '',
  ].join('\n'));
  return file;
}

test('conformance 2026-07-28: the v2 SDK server directly', async () => {
  const server = await startV2Http();
  try {
    results.direct = await runConformance(server.url);
  } finally {
    server.stop();
  }
  const pass = passing(results.direct);
  console.log(`directly: ${pass.size} of ${results.direct.size} checks pass`);
  assert.ok(pass.has('tools-list/tools-list') || [...pass].some((k) => k.startsWith('tools-list/')),
      'the v2 server itself fails tools-list: the baseline is broken');
});

test('conformance 2026-07-28: the same server behind mcpgate', async () => {
  const gateway = await startGateway(writeConfig());
  after(() => gateway.stop());
  try {
    results.gateway = await runConformance(gateway.url('modern'));
  } finally {
    await gateway.stop();
  }
  console.log(`through mcpgate: ${passing(results.gateway).size} of ${results.gateway.size} checks pass`);
});

test('conformance 2026-07-28: every check passing directly passes through mcpgate', () => {
  assert.ok(results.direct && results.gateway, 'a conformance run above did not complete');
  const direct = passing(results.direct);
  const gateway = passing(results.gateway);
  const lost = sorted(direct).filter((k) => !gateway.has(k));
  const gained = sorted(gateway).filter((k) => !direct.has(k) && !kGatewayOwnChecks.has(k));
  const describe = (keys) => keys.map((k) => {
    const [d, g] = [results.direct.get(k), results.gateway.get(k)];
    return `  ${k}\n    directly: ${d?.status ?? 'not run'} ${d?.error ?? ''}\n` +
        `    through mcpgate: ${g?.status ?? 'not run'} ${g?.error ?? ''} ${JSON.stringify(g?.details ?? {}).slice(0, 600)}`;
  }).join('\n');
  if (gained.length > 0) console.log(`pass through mcpgate only:\n${describe(gained)}`);
  assert.deepEqual(lost, [], `pass directly, not through mcpgate:\n${describe(lost)}`);
});
