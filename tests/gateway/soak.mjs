#!/usr/bin/env node
// Soak (issue 19): many sessions to the native echo server through the real
// gateway, every answer matched to its request and session (mcp_loadgen
// checks each one and counts mismatches as errors), the gateway's RSS flat
// within 10 % after warm-up, and once the sessions idle out no fd, child,
// zombie or cgroup left behind.
//
//   node tests/gateway/soak.mjs --build build [--sessions 1000] [--duration 120]
//        [--threads 2] [--warmup-fraction 0.25] [--bench DIR (default BUILD/bench)]
//
// Prints one JSON line of figures; exits 1 (saying why) when a bound fails.

import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const build = path.resolve(opt('build', 'build'));
const sessions = Number(opt('sessions', 1000));
const duration = Number(opt('duration', 120));
const threads = Number(opt('threads', 2));
const warmupFraction = Number(opt('warmup-fraction', 0.25));

const bench = path.resolve(opt('bench', path.join(build, 'bench')));  // mcp_loadgen, mcp_echo_server
const BIN = {
  mcpgate: path.join(build, 'gateway/mcpgate'),
  echo: path.join(bench, 'mcp_echo_server'),
  loadgen: path.join(bench, 'mcp_loadgen'),
};
for (const bin of Object.values(BIN)) {
  if (!fs.existsSync(bin)) {
    console.error(`soak: ${bin} is missing; build the mcpgate, mcp_echo_server and mcp_loadgen targets`);
    process.exit(2);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rssKiB = (pid) => {
  const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m);
  return m ? Number(m[1]) : NaN;
};
const fdCount = (pid) => fs.readdirSync(`/proc/${pid}/fd`).length;
// Processes whose parent is `pid`, with their state letter.
const children = (pid) => {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) out.push({pid: Number(entry), state: fields[0]});
    } catch {
      // gone meanwhile
    }
  }
  return out;
};
// The server's name here, unique to this run: its sandboxes' cgroups are named
// mcpgate-<supervisor pid>-<server>, so those of other gateways on the host (other tests, other
// runs) are not counted.
const serverName = `soak-${process.pid}`;
// This run's sandbox cgroups: directories named mcpgate-*-<server> under the cgroup mounts.
const cgroups = () => {
  let count = 0;
  const walk = (dir, depth) => {
    if (depth > 8) return;
    let entries = [];
    try {
      entries = fs.readdirSync(dir, {withFileTypes: true});
    } catch {
      return;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      if (e.name.startsWith('mcpgate-') && e.name.endsWith(`-${serverName}`)) ++count;
      walk(path.join(dir, e.name), depth + 1);
    }
  };
  walk('/sys/fs/cgroup', 0);
  return count;
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-soak-'));
const echoDir = path.dirname(BIN.echo);
const config = path.join(work, 'mcpgate.yaml');
fs.writeFileSync(config, [
  'listen: 127.0.0.1:0',
  'servers:',
  `  ${serverName}:`,
  `    command: ${JSON.stringify(BIN.echo)}`,
  `    sandbox: {binds: [{src: ${JSON.stringify(echoDir)}, dst: ${JSON.stringify(echoDir)}}]}`,
  `sandbox: {commands: [${JSON.stringify(BIN.echo)}]}`,
  // Long enough for the first session to wait while 1,000 sandboxes start on a loaded host; the
  // default grace, so that a slow teardown is not cut short by SIGKILL.
  'session: {idle_timeout: 15s}',
  `limits: {max_sessions: ${sessions + 16}, max_connections_per_address: ${sessions + 16}}`,
  `state_dir: ${JSON.stringify(path.join(work, 'state'))}`,
  `cache_dir: ${JSON.stringify(path.join(work, 'cache'))}`,
  '',
].join('\n'));

const cgroupsBefore = cgroups();
const log = fs.openSync(path.join(work, 'gateway.log'), 'w');
const gateway = spawn(BIN.mcpgate, ['serve', '-c', config, '--threads', String(threads)],
    {stdio: ['ignore', 'ignore', log]});
let port = 0;
for (let i = 0; i < 200 && !port; ++i) {
  await sleep(100);
  const m = fs.readFileSync(path.join(work, 'gateway.log'), 'utf8')
      .match(/"msg":"listening".*"address":"[^"]*:(\d+)"/);
  if (m) port = Number(m[1]);
}
const failures = [];
const fail = (why) => failures.push(why);
if (!port) {
  console.error(fs.readFileSync(path.join(work, 'gateway.log'), 'utf8'));
  gateway.kill('SIGKILL');
  process.exit(1);
}
await sleep(500);
const fdsBefore = fdCount(gateway.pid);
const rssBefore = rssKiB(gateway.pid);

// The load: closed loop, every answer checked by mcp_loadgen.
const loadgen = spawn(BIN.loadgen, ['--url', `http://127.0.0.1:${port}/mcp/${serverName}`,
  '--sessions', String(sessions), '--duration', String(duration), '--warmup', '2',
  '--threads', String(threads)], {stdio: ['ignore', 'pipe', 'pipe']});
let out = '';
let err = '';
loadgen.stdout.on('data', (d) => out += d);
loadgen.stderr.on('data', (d) => err += d);
const samples = [];
const started = Date.now();
let done = false;
const exited = new Promise((resolve) => loadgen.on('exit', (code) => {
  done = true;
  resolve(code);
}));
while (!done) {
  await sleep(1000);
  if (!done) samples.push({t: (Date.now() - started) / 1000, rss: rssKiB(gateway.pid)});
}
const code = await exited;
let report = {};
try {
  report = JSON.parse(out.trim().split('\n').pop());
} catch {
  fail(`mcp_loadgen printed no report: ${err}`);
}
if (code !== 0) fail(`mcp_loadgen exited ${code}: ${err.trim()}`);
const calls = report.calls ?? 0;
if (report.failed_sessions) fail(`${report.failed_sessions} sessions failed`);
if (report.errors) fail(`${report.errors} answers missing, wrong or unmatched`);

// RSS after warm-up: flat within 10 % of the first sample after it.
const after = samples.filter((s) => s.t >= samples.at(-1).t * warmupFraction);
const base = after[0]?.rss ?? NaN;
const peak = Math.max(...after.map((s) => s.rss));
const growth = (peak - base) / base;
if (!(growth <= 0.10)) fail(`RSS grew ${(growth * 100).toFixed(1)} % after warm-up (${base} -> ${peak} KiB)`);

// The sessions idle out: no child, zombie, fd or cgroup left.
let left = children(gateway.pid);
for (let i = 0; i < 120 && left.length > 0; ++i) {
  await sleep(500);
  left = children(gateway.pid);
}
await sleep(1000);
const fdsAfter = fdCount(gateway.pid);
const zombies = children(gateway.pid).filter((c) => c.state === 'Z').length;
const cgroupsAfter = cgroups();
if (left.length > 0) fail(`${left.length} child processes left (${zombies} zombies)`);
if (fdsAfter > fdsBefore + 2) fail(`fds ${fdsBefore} before, ${fdsAfter} after`);
if (cgroupsAfter > cgroupsBefore) fail(`cgroups ${cgroupsBefore} before, ${cgroupsAfter} after`);
const rssAfter = rssKiB(gateway.pid);

gateway.kill('SIGTERM');
await new Promise((resolve) => gateway.on('exit', resolve));
fs.rmSync(work, {recursive: true, force: true});

console.log(JSON.stringify({
  sessions, duration_s: duration, calls, calls_per_s: Math.round(calls / duration),
  errors: report.errors ?? null, error_kinds: report.error_kinds ?? null,
  latency_us: report.latency_us ?? null, ready_sessions: report.ready_sessions ?? null,
  rss_kib: {before: rssBefore, after_warmup: base, peak_after_warmup: peak, end: rssAfter},
  rss_growth_after_warmup_pct: Number((growth * 100).toFixed(1)),
  fds: {before: fdsBefore, after: fdsAfter}, children_left: left.length, zombies,
  cgroups: {before: cgroupsBefore, after: cgroupsAfter},
}));
if (failures.length > 0) {
  console.error(`soak: FAILED\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
