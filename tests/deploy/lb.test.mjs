// Three real gateway processes behind real HAProxy (docker/haproxy.cfg), the
// official SDK client through it: sessions stay on the replica that created
// them (HAProxy's per-request log shows the replica), a killed replica's
// sessions get 404 and re-initialize elsewhere, a replica drained with SIGTERM
// exits 0 without failing a call except with the documented 404, and modern
// (sessionless) requests are routed by their bearer token.
// Label `lb`: outside the default CI run. Skips when haproxy is not installed.

import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {after, before, test} from 'node:test';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {SOURCE_DIR, TEST_SERVER_INSIDE, freePort, sleep, startGateway, waitFor} from '../e2e/lib.mjs';

const haveHaproxy = spawnSync('haproxy', ['-v']).status === 0;
const SESSIONS = Number(process.env.LB_SESSIONS ?? 30);
const CALLS = Number(process.env.LB_CALLS ?? 50);
const tokens = {alice: crypto.randomBytes(24).toString('hex'), bob: crypto.randomBytes(24).toString('hex')};
const sha = (t) => crypto.createHash('sha256').update(t).digest('hex');

let dir;
let replicas = [];  // {name, gw}
let lb;             // {proc, port, lines}

function writeConfig() {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-lb-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'mcpgate.yaml');
  fs.writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'servers:',
    '  test:',
    '    command: node',
    `    args: [${JSON.stringify(TEST_SERVER_INSIDE)}]`,
    `    sandbox: {binds: [{src: ${JSON.stringify(path.join(SOURCE_DIR, 'tests/servers'))}, ` +
        'dst: /opt/mcpgate-tests}]}',
    'session: {idle_timeout: 120s, grace: 2s}',
    // One state_dir for all replicas: the shared volume (tool pins, audit key).
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    'audit: {path: "-"}',
    'auth:',
    '  tokens:',
    `    - {client: alice, sha256: ${sha(tokens.alice)}}`,
    `    - {client: bob, sha256: ${sha(tokens.bob)}}`,
    '  clients:',
    '    "*": {servers: ["*"]}',
    'limits: {max_sessions: 1000}',
    '',
  ].join('\n'));
  return file;
}

async function startLb() {
  const port = await freePort();
  const env = {...process.env, MCPGATE_LB_BIND: `127.0.0.1:${port}`};
  replicas.forEach((r, i) => env[`MCPGATE_R${i + 1}`] = `127.0.0.1:${r.gw.port}`);
  const proc = spawn('haproxy', ['-db', '-f', path.join(SOURCE_DIR, 'docker/haproxy.cfg')],
      {env, stdio: ['ignore', 'pipe', 'pipe']});
  const lines = [];
  let partial = '';
  const collect = (chunk) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop();
    lines.push(...parts);
  };
  proc.stdout.setEncoding('utf8').on('data', collect);
  proc.stderr.setEncoding('utf8').on('data', collect);
  // Up when every replica passed its /readyz check.
  const up = await waitFor(async () => {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      return r.ok;
    } catch {
      return false;
    }
  }, {timeoutMs: 5000});
  assert.ok(up, `haproxy did not come up:\n${lines.join('\n')}`);
  await sleep(1000);  // rise 2 x inter 300ms for every server
  return {proc, port, lines};
}

// Parses HAProxy's per-request log line (docker/haproxy.cfg log-format).
function parseLog(lines) {
  const out = [];
  for (const line of lines) {
    const m = /mcpgate-lb backend=(\S+) replica=(\S+) status=(\d+) req_session=(\S*) res_session=(\S*) (\S+) (\S+)/.exec(line);
    if (m) out.push({backend: m[1], replica: m[2], status: Number(m[3]), reqSession: m[4], resSession: m[5], method: m[6]});
  }
  return out;
}

// What a client sees when its replica went away: a 404 for its session id
// (the documented close: initialize again), or, for a call in flight on a
// killed replica, the connection cut. Anything else is a failure.
function goneKind(error) {
  const text = String(error?.message ?? error);
  if (error?.code === 404 || /\b404\b|session not found/i.test(text)) return '404';
  if (/fetch failed|terminated|other side closed|socket hang up|\b502\b/i.test(text)) return 'cut';
  return null;
}

// One SDK client: connect through the LB, `calls` echo calls (call `slowAt` is
// a `slow` call of `slowMs` instead); on a 404 (its replica is gone) it
// re-initializes and repeats the call. Returns its story.
async function worker(index, calls, {between, token = tokens.alice, slowAt = -1, slowMs = 0} = {}) {
  const story = {sessions: [], reinits: 0, errors: [], gone: []};
  let client;
  let transport;
  const connect = async () => {
    for (let attempt = 0; ; ++attempt) {
      transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${lb.port}/mcp/test`),
          {requestInit: {headers: {Authorization: `Bearer ${token}`}}});
      client = new Client({name: `lb-worker-${index}`, version: '1.0.0'});
      try {
        await client.connect(transport);
        story.sessions.push(transport.sessionId);
        return;
      } catch (error) {
        const kind = goneKind(error);
        if (!kind || attempt >= 2) throw error;
        story.gone.push(`connect: ${kind}`);
        await client.close().catch(() => {});
      }
    }
  };
  await connect();
  for (let i = 0; i < calls; ++i) {
    const text = `w${index} c${i}`;
    for (let attempt = 0; ; ++attempt) {
      try {
        if (i === slowAt) {
          const r = await client.callTool({name: 'slow', arguments: {ms: slowMs}});
          assert.equal(r.content?.[0]?.text, `slept ${slowMs} ms`);
          break;
        }
        const r = await client.callTool({name: 'echo', arguments: {text}});
        assert.equal(r.content?.[0]?.text, text);
        break;
      } catch (error) {
        const kind = goneKind(error);
        if (!kind || attempt >= 2) {
          story.errors.push(String(error?.message ?? error));
          break;
        }
        story.gone.push(kind);
        story.reinits += 1;
        await client.close().catch(() => {});
        await connect();
      }
    }
    if (between) await between(i);
  }
  await transport.terminateSession().catch(() => {});
  await client.close().catch(() => {});
  return story;
}

// Which replicas answered requests carrying each session id.
function replicasBySession(entries) {
  const map = new Map();
  for (const e of entries) {
    const id = e.reqSession && e.reqSession !== '-' ? e.reqSession : e.resSession;
    if (!id || id === '-') continue;
    if (!map.has(id)) map.set(id, new Set());
    if (e.status !== 404 && e.status < 500) map.get(id).add(e.replica);
  }
  return map;
}

before(async () => {
  if (!haveHaproxy) return;
  const config = writeConfig();
  for (const name of ['r1', 'r2', 'r3']) replicas.push({name, gw: await startGateway(config)});
  lb = await startLb();
});

after(async () => {
  lb?.proc.kill('SIGTERM');
  for (const r of replicas) await r.gw.stop();
  if (dir) fs.rmSync(dir, {recursive: true, force: true});
});

test(`${SESSIONS} sessions x ${CALLS} calls: every call of a session answered by one replica`,
    {skip: !haveHaproxy && 'haproxy is not installed'}, async () => {
  const start = lb.lines.length;
  const stories = await Promise.all([...Array(SESSIONS).keys()].map((i) => worker(i, CALLS)));
  for (const s of stories) assert.deepEqual(s.errors, []);
  await sleep(200);
  const entries = parseLog(lb.lines.slice(start));
  const posts = entries.filter((e) => e.method === 'POST');
  assert.ok(posts.length >= SESSIONS * (CALLS + 2), `only ${posts.length} POSTs in the LB log`);
  const bySession = replicasBySession(entries);
  const used = new Map();
  for (const s of stories) {
    const set = bySession.get(s.sessions[0]);
    assert.ok(set, `session ${s.sessions[0]} is not in the LB log`);
    assert.equal(set.size, 1, `session ${s.sessions[0]} was answered by ${[...set]}`);
    const [replica] = set;
    used.set(replica, (used.get(replica) ?? 0) + 1);
  }
  console.log(`sessions per replica: ${JSON.stringify(Object.fromEntries(used))}`);
  assert.ok(used.size >= 2, 'the sessions did not spread over the replicas');
});

test('a killed replica: only its sessions fail, with 404, and re-initialize elsewhere',
    {skip: !haveHaproxy && 'haproxy is not installed'}, async () => {
  const start = lb.lines.length;
  const victim = replicas[0];
  let killed = false;
  const stories = await Promise.all([...Array(SESSIONS).keys()].map((i) => worker(i, 10, {
    between: async (call) => {
      if (call === 4 && !killed) {
        killed = true;
        victim.gw.proc.kill('SIGKILL');
      }
      await sleep(call === 4 ? 800 : 20);  // the LB's health check sees the death
    },
  })));
  for (const s of stories) assert.deepEqual(s.errors, [], 'a call failed for good');
  const bySession = replicasBySession(parseLog(lb.lines.slice(start)));
  let onVictim = 0;
  const kinds = {};
  for (const s of stories) {
    const first = [...(bySession.get(s.sessions[0]) ?? [])];
    if (first.includes(victim.name)) {
      onVictim += 1;
      assert.equal(s.reinits, 1, `a session on ${victim.name} re-initialized ${s.reinits} times`);
      const last = [...(bySession.get(s.sessions.at(-1)) ?? [])];
      assert.ok(last.length === 1 && last[0] !== victim.name, `retried on ${last}`);
      for (const k of s.gone) kinds[k] = (kinds[k] ?? 0) + 1;
    } else {
      assert.deepEqual(s.gone, [], `a session on ${first} saw its replica go away`);
    }
  }
  console.log(`sessions on the killed replica: ${onVictim} of ${SESSIONS}, all re-initialized ` +
      `on another; what their clients saw: ${JSON.stringify(kinds)}`);
  assert.ok(onVictim > 0, 'no session was on the killed replica');
});

test('a replica drained with SIGTERM under load exits 0; no call fails except with 404',
    {skip: !haveHaproxy && 'haproxy is not installed'}, async () => {
  const victim = replicas[1];
  let exit;
  // Call 6 of every session is a 1.5 s call; the SIGTERM lands while they are
  // in flight, and they must still be answered (session.grace is 2s).
  const stories = await Promise.all([...Array(SESSIONS).keys()].map((i) => worker(i, 20, {
    slowAt: 6,
    slowMs: 1500,
    between: async (call) => {
      if (call === 5 && i === 0) {
        exit = new Promise((resolve) => victim.gw.proc.on('exit', (code, signal) => resolve({code, signal})));
        setTimeout(() => victim.gw.proc.kill('SIGTERM'), 500);
      }
      await sleep(20);
    },
  })));
  for (const s of stories) assert.deepEqual(s.errors, [], 'a call failed for good');
  const result = await exit;
  assert.deepEqual(result, {code: 0, signal: null});
  const kinds = {};
  for (const s of stories) for (const k of s.gone) kinds[k] = (kinds[k] ?? 0) + 1;
  // A drain never cuts a call: its clients see only the documented 404.
  assert.equal(kinds.cut ?? 0, 0, `calls cut by the drain: ${JSON.stringify(kinds)}`);
  console.log(`re-initialized after the drain: ${stories.filter((s) => s.reinits > 0).length} ` +
      `sessions; what they saw: ${JSON.stringify(kinds)}`);
});

test('modern (sessionless) requests are routed by the bearer token, one replica per client',
    {skip: !haveHaproxy && 'haproxy is not installed'}, async () => {
  const start = lb.lines.length;
  for (let i = 0; i < 20; ++i) {
    for (const token of [tokens.alice, tokens.bob]) {
      await fetch(`http://127.0.0.1:${lb.port}/mcp/test`, {
        method: 'POST',
        headers: {'Authorization': `Bearer ${token}`, 'Content-Type': 'application/json',
          'Accept': 'application/json, text/event-stream', 'MCP-Protocol-Version': '2026-07-28'},
        body: JSON.stringify({jsonrpc: '2.0', id: i, method: 'server/discover', params: {}}),
      }).then((r) => r.arrayBuffer());
    }
  }
  await sleep(200);
  const entries = parseLog(lb.lines.slice(start)).filter((e) => e.backend === 'by_client');
  assert.equal(entries.length, 40, 'modern requests did not take the by_client backend');
  // The log does not carry the token: requests alternate alice, bob.
  const alice = new Set(entries.filter((_, i) => i % 2 === 0).map((e) => e.replica));
  const bob = new Set(entries.filter((_, i) => i % 2 === 1).map((e) => e.replica));
  assert.equal(alice.size, 1, `alice's requests went to ${[...alice]}`);
  assert.equal(bob.size, 1, `bob's requests went to ${[...bob]}`);
});
