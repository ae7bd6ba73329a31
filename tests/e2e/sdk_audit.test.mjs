// The audit log and /metrics as an operator sees them while the official SDK
// client calls server-everything through `mcpgate serve`: warn findings are
// forwarded and audited, the audit file never holds the secret, and the
// counters and gauges follow the session.

import {after, test} from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {SOURCE_DIR, startGateway, waitFor, writeEverythingConfig} from './lib.mjs';

// A synthetic key in AWS's format, which the shipped aws-access-key-id rule matches.
const KEY = 'AKIA4YSNI2G3IITN5XVK';
const MARKER = 'WARNME-123456';

const gateways = [];
after(async () => {
  for (const gateway of gateways) await gateway.stop();
});

// A sample's value in Prometheus text, or undefined.
function sample(text, name, labels = '') {
  const prefix = labels ? `${name}{${labels}} ` : `${name} `;
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

test('warn is forwarded and audited; the audit log never holds the secret', async (t) => {
  // The config's directory holds the marker rule and the audit log; the key
  // is under its state/ (writeEverythingConfig's state_dir).
  const configFile = writeEverythingConfig([
    `dlp: {rules: [markers.yaml, ${JSON.stringify(path.join(SOURCE_DIR, 'rules'))}]}`,
    'audit: {path: audit.jsonl}',
  ]);
  const dir = path.dirname(configFile);
  fs.writeFileSync(path.join(dir, 'markers.yaml'), [
    'rules:',
    '  - id: test-warn-marker',
    '    description: a marker that warns',
    '    category: custom',
    '    severity: low',
    '    directions: [request]',
    "    pattern: 'WARNME-[0-9]{6}'",
    '    action: warn',
    '',
  ].join('\n'));
  const gateway = await startGateway(configFile);
  gateways.push(gateway);
  const client = new Client({name: 'mcpgate-e2e-audit', version: '1.0.0'});
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url('everything')));
  t.after(() => client.close());
  await client.connect(transport);

  const result = await client.callTool(
      {name: 'echo', arguments: {message: `${MARKER} with key ${KEY}`}});
  const text = result.content?.[0]?.text ?? '';
  assert.ok(text.includes(MARKER), `the warned text was not forwarded: ${text}`);
  assert.ok(!text.includes(KEY), `the key came back: ${text}`);

  const audit = fs.readFileSync(path.join(dir, 'audit.jsonl'), 'utf8');
  assert.ok(!audit.includes(KEY), `the audit log holds the key:\n${audit}`);
  assert.ok(!audit.includes(MARKER), `the audit log holds the marker:\n${audit}`);
  const lines = audit.trim().split('\n').map((line) => JSON.parse(line));
  const byRule = Object.fromEntries(lines.map((line) => [line.rule, line]));
  const warn = byRule['test-warn-marker'];
  assert.ok(warn, `no warn finding in:\n${audit}`);
  assert.equal(warn.action, 'warn');
  assert.equal(warn.event, 'finding');
  assert.equal(warn.server, 'everything');
  assert.equal(warn.method, 'tools/call');
  assert.equal(warn.tool, 'echo');
  assert.equal(warn.direction, 'request');
  assert.equal(warn.session, transport.sessionId);
  assert.match(warn.match_hash, /^hmac-sha256:[0-9a-f]{32}$/);
  const key = byRule['aws-access-key-id'];
  assert.ok(key, `no key finding in:\n${audit}`);
  assert.equal(key.category, 'secret');
  assert.equal(key.action, 'redact');
  assert.notEqual(key.match_hash, warn.match_hash);
  assert.equal(fs.statSync(path.join(dir, 'state/audit.key')).mode & 0o777, 0o600);

  // The same findings are counted, and the gauges follow the session.
  const metricsUrl = `http://127.0.0.1:${gateway.port}/metrics`;
  let metrics = await (await fetch(metricsUrl)).text();
  assert.equal(sample(metrics, 'mcpgate_dlp_findings_total',
      'rule="test-warn-marker",action="warn"'), 1, metrics);
  assert.equal(sample(metrics, 'mcpgate_dlp_findings_total',
      'rule="aws-access-key-id",action="redact"'), 1, metrics);
  assert.equal(sample(metrics, 'mcpgate_jsonrpc_requests_total',
      'server="everything",method="tools/call",outcome="ok"'), 1, metrics);
  assert.equal(sample(metrics, 'mcpgate_sessions'), 1, metrics);
  assert.equal(sample(metrics, 'mcpgate_children'), 1, metrics);

  await transport.terminateSession();  // HTTP DELETE
  const gone = await waitFor(async () => {
    metrics = await (await fetch(metricsUrl)).text();
    return sample(metrics, 'mcpgate_children') === 0;
  }, {timeoutMs: 10000});
  assert.ok(gone, metrics);
  assert.equal(sample(metrics, 'mcpgate_sessions'), 0, metrics);
  assert.equal(sample(metrics, 'mcpgate_reaps_total', 'server="everything"'), 1, metrics);

  const ready = await fetch(`http://127.0.0.1:${gateway.port}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), {status: 'ready'});
});
