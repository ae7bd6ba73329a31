// The throughput and latency comparison of issue 6: the same native echo MCP
// server behind each system, the same native load generator, one run.
//
//   node bench/run.mjs [--smoke] [--build DIR] [--out FILE] [--plots DIR]
//   node bench/run.mjs --ab OTHER_MCPGATE [--nodlp] [--modern] [--rounds N] [--secrets] [--rate R] [--build DIR]
//   node bench/run.mjs --compare SYSTEM,... [--rounds N] [--secrets] [--rate R] [--build DIR]
//
// Systems: direct (pipes, no HTTP), bare (a Beast server answering itself),
// nginx (a static JSON-RPC answer: the ceiling with --compare),
// relay (the same server relaying each body to a child echo server per
// session over pipes, parsing nothing: the ceiling for any stdio-to-HTTP
// gateway), mcpgate without DLP and with the full shipped rule pack, mcpgate
// with a 2026-07-28 load generator (no session; pooled server processes),
// supergateway, and
// the official SDK client through mcpgate against server-everything. It
// writes its section of bench/RESULTS.md (between the markers below) and PNG
// plots with gnuplot. --smoke runs every system for a fraction of a second and
// writes to a temporary directory: CI runs it so the harness cannot rot; its
// figures mean nothing.
//
// --ab compares two gateway binaries, for one optimisation: OTHER_MCPGATE
// (say, a build of the commit before) and the build's own, each with the
// full rule pack (--nodlp: DLP off in both), 16 sessions, 4 KiB (--secrets:
// with secrets to redact; --modern: a 2026-07-28 load generator, served from lanes),
// alternating for N rounds (5), and prints the medians of calls/s and of the
// gateway's CPU per call. --compare does the same for systems of the full run
// by name (say bare,relay,mcpgate-dlp), with each one's share of the first
// one's calls/s: the ratios of the goals, measured in alternation. --rate
// offers R calls/s in total instead of a closed loop (for latency at a given
// load). Neither writes anything.

import {spawn, spawnSync} from 'node:child_process';
import {setMaxListeners} from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {children, portFrom, rssKiB, sleep, startProcess, treeCpu} from './processes.mjs';
import {fmt, plot, report, writeResults} from './report.mjs';

const SOURCE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const options = {smoke: false, build: path.join(SOURCE_DIR, 'build'), out: null, plots: null,
    ab: null, compare: null, rounds: 5, secrets: false, rate: 0, nodlp: false, modern: false};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--smoke') options.smoke = true;
    else if (a === '--build') options.build = path.resolve(value());
    else if (a === '--out') options.out = path.resolve(value());
    else if (a === '--plots') options.plots = path.resolve(value());
    else if (a === '--ab') options.ab = path.resolve(value());
    else if (a === '--compare') options.compare = value().split(',');
    else if (a === '--rounds') options.rounds = Number(value());
    else if (a === '--secrets') options.secrets = true;
    else if (a === '--nodlp') options.nodlp = true;
    else if (a === '--modern') options.modern = true;
    else if (a === '--rate') options.rate = Number(value());
    else usage(`unknown argument ${a}`);
  }
  if (!(Number.isInteger(options.rounds) && options.rounds > 0)) usage('--rounds wants a count');
  if (!(options.rate >= 0)) usage('--rate wants calls per second');
  if (options.ab && !fs.existsSync(options.ab)) usage(`--ab: no file ${options.ab}`);
  if (options.ab && options.compare) usage('--ab or --compare, not both');
  if (options.ab || options.compare) return options;
  if (!options.smoke) {
    options.out ??= path.join(SOURCE_DIR, 'bench/RESULTS.md');
    options.plots ??= path.join(SOURCE_DIR, 'bench/plots');
  }
  return options;
}

function usage(why) {
  console.error(`bench/run.mjs: ${why}\nusage: node bench/run.mjs [--smoke] [--build DIR] ` +
      '[--out FILE] [--plots DIR]\n       node bench/run.mjs --ab OTHER_MCPGATE [--nodlp] [--modern] [--rounds N] ' +
      '[--secrets] [--rate R] [--build DIR]\n       node bench/run.mjs --compare SYSTEM,... ' +
      '[--rounds N] [--rate R] ' +
      '[--secrets] [--build DIR]');
  process.exit(2);
}

const options = parseArgs(process.argv.slice(2));
// The SDK's HTTP transport adds an abort listener per request to one signal;
// thousands of calls are expected here, not a leak.
setMaxListeners(0);
const BIN = {
  mcpgate: path.join(options.build, 'gateway/mcpgate'),
  echo: path.join(options.build, 'bench/mcp_echo_server'),
  bare: path.join(options.build, 'bench/mcp_bare_server'),
  loadgen: path.join(options.build, 'bench/mcp_loadgen'),
  supergateway: path.join(SOURCE_DIR, 'node_modules/supergateway/dist/index.js'),
  nginx: '/usr/sbin/nginx',
  everything: path.join(SOURCE_DIR,
      'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
};
for (const [name, file] of Object.entries(BIN)) {
  if (!fs.existsSync(file)) usage(`${name} not found at ${file}: build with -DMCPGATE_BENCH=ON`);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-bench-'));
// A smoke run's report goes with its work directory unless told otherwise.
options.out ??= path.join(work, 'RESULTS.md');
options.plots ??= path.join(work, 'plots');
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(work, {recursive: true, force: true});
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const started = Date.now();
function progress(text) {
  const s = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${s} s] ${text}\n`);
}

// ---------------------------------------------------------------------------
// The systems. Each start() gives {url | direct, pid?, stop()}.

function mcpgateConfig(name, {dlp}) {
  const dir = fs.mkdtempSync(path.join(work, `${name}-`));
  const file = path.join(dir, 'mcpgate.yaml');
  const echoDir = path.dirname(BIN.echo);
  fs.writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'servers:',
    '  echo:',
    `    command: ${JSON.stringify(BIN.echo)}`,
    `    sandbox: {binds: [{src: ${JSON.stringify(echoDir)}, dst: ${JSON.stringify(echoDir)}}]}`,
    `sandbox: {commands: [${JSON.stringify(BIN.echo)}]}`,
    'session: {idle_timeout: 600s}',
    'limits: {max_sessions: 4096}',
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    `cache_dir: ${JSON.stringify(path.join(dir, 'cache'))}`,
    dlp ? '# dlp: the shipped rule packs (the default)' : 'dlp: {enabled: false}',
    '',
  ].join('\n'));
  return file;
}

// modern: the load generator is a 2026-07-28 client (no session; each call
// with its envelope and headers), which the gateway serves from the echo
// server processes it keeps for that client (its lanes), the echo server
// being a 2025-era one.
function mcpgateSystem(name, {dlp, threads, binary = BIN.mcpgate, modern = false}) {
  return {
    name,
    async start() {
      const args = ['serve', '-c', mcpgateConfig(name, {dlp})];
      if (threads) args.push('--threads', String(threads));
      const p = await startProcess(name, binary, args,
          portFrom(/"msg":"listening".*"address":"[^"]*:(\d+)"/), {logDir: work});
      return {url: `http://127.0.0.1:${p.value}/mcp/echo`, pid: p.pid, stop: p.stop, modern};
    },
  };
}

// The bare Beast server answering itself, or with --relay passing each body
// to a child echo server per session.
function bareSystem(name, args = []) {
  return {
    name,
    async start() {
      const p = await startProcess(name, BIN.bare, ['--listen', '127.0.0.1:0', ...args],
          portFrom(/^listening [^ ]*:(\d+)/), {logDir: work});
      return {url: `http://127.0.0.1:${p.value}/mcp/echo`, pid: p.pid, stop: p.stop};
    },
  };
}

// nginx (the Debian package) answering every POST with one static JSON-RPC
// result about as large as the echo's (3.9 of 4 KiB of text): the ceiling for any HTTP front end on this
// machine, with a production server's HTTP code. Its own config in a
// directory of the work dir, on a free loopback port, as many workers as the
// gateway has threads (one per core). The load generator counts its answers
// without checking ids or echoes (--fixed-answer).
function nginxConfig(dir, port) {
  // nginx.conf takes at most 4 KiB in one token: the echo's text, cut to fit.
  const text = spawnSync(BIN.loadgen, ['--print-payload', '--payload', '4096'],
      {encoding: 'utf8'}).stdout.slice(0, 3900);
  const answer = JSON.stringify({jsonrpc: '2.0', id: 1,
    result: {content: [{type: 'text', text}]}});
  if (/['\\$]/.test(answer)) throw new Error('the static answer needs quoting for nginx.conf');
  const file = path.join(dir, 'nginx.conf');
  fs.writeFileSync(file, [
    'daemon off;',
    'master_process on;',
    `worker_processes ${os.availableParallelism()};`,
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (t) => `  ${t}_temp_path ${path.join(dir, t)};`),
    // Sessions keep their connection for the whole run, as with the gateway.
    '  keepalive_requests 100000000;',
    '  keepalive_timeout 600s;',
    '  client_body_buffer_size 1m;',
    '  client_max_body_size 1m;',
    '  server {',
    `    listen 127.0.0.1:${port};`,
    `    location / { default_type application/json; return 200 '${answer}'; }`,
    '  }',
    '}',
    '',
  ].join('\n'));
  return file;
}

const SYSTEMS = {
  direct: {
    name: 'direct',
    async start() {
      return {direct: BIN.echo, stop: async () => {}};
    },
  },
  bare: bareSystem('bare'),
  relay: bareSystem('relay', ['--relay', BIN.echo]),
  'mcpgate-nodlp': mcpgateSystem('mcpgate-nodlp', {dlp: false}),
  'mcpgate-dlp': mcpgateSystem('mcpgate-dlp', {dlp: true}),
  'mcpgate-modern-nodlp': mcpgateSystem('mcpgate-modern-nodlp', {dlp: false, modern: true}),
  'mcpgate-modern-dlp': mcpgateSystem('mcpgate-modern-dlp', {dlp: true, modern: true}),
  nginx: {
    name: 'nginx',
    async start() {
      const dir = fs.mkdtempSync(path.join(work, 'nginx-'));
      const port = await freePort();
      const p = await startProcess('nginx', BIN.nginx,
          ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', nginxConfig(dir, port)],
          () => null, {logDir: work, poll: async () => {
            try {
              return (await fetch(`http://127.0.0.1:${port}/mcp/echo`, {method: 'POST'})).ok ?
                port : null;
            } catch {
              return null;  // not listening yet
            }
          }});
      return {url: `http://127.0.0.1:${port}/mcp/echo`, pid: p.pid, stop: p.stop,
        fixedAnswer: true};
    },
  },
  supergateway: {
    name: 'supergateway',
    async start() {
      const port = await freePort();
      const p = await startProcess('supergateway', process.execPath,
          [BIN.supergateway, '--stdio', BIN.echo, '--outputTransport', 'streamableHttp',
            '--port', String(port), '--stateful', '--logLevel', 'none',
            '--healthEndpoint', '/healthz'],
          () => null, {logDir: work, poll: async () => {
            try {
              return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok ? port : null;
            } catch {
              return null;  // not listening yet
            }
          }});
      return {url: `http://127.0.0.1:${port}/mcp`, pid: p.pid, stop: p.stop};
    },
  },
};

async function freePort() {
  const net = await import('node:net');
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// ---------------------------------------------------------------------------
// One load generator run against a started system.

async function load(target, {sessions, payload, secrets = false, rate = 0, duration, warmup,
  idle = 0}) {
  const args = target.direct ? ['--direct', target.direct] : ['--url', target.url];
  args.push('--sessions', String(sessions), '--payload', String(payload));
  if (!idle) args.push('--duration', String(duration), '--warmup', String(warmup));
  if (secrets && !target.fixedAnswer) args.push('--secrets');
  if (target.fixedAnswer) args.push('--fixed-answer');
  if (target.modern) args.push('--modern');
  if (rate) args.push('--rate', String(Math.round(rate)));
  if (idle) args.push('--idle', String(idle));
  const child = spawn(BIN.loadgen, args, {stdio: ['ignore', 'pipe', 'pipe']});
  children.add(child);
  let stdout = '';
  let stderr = '';
  let cpuStart = null;
  let cpuEnd = null;
  let rssIdle = null;
  // The load generator says when its measured window opens and closes (and,
  // with --idle, when its sessions are open): the system's CPU and memory
  // are read at those moments.
  const readings = (text) => {
    if (!target.pid) return;
    if (cpuStart === null && text.includes('measure: start')) cpuStart = treeCpu(target.pid);
    if (cpuEnd === null && text.includes('measure: end')) cpuEnd = treeCpu(target.pid);
    if (rssIdle === null && /^ready/m.test(text)) rssIdle = rssKiB(target.pid);
  };
  child.stdout.on('data', (chunk) => stdout += chunk);
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    readings(stderr);
  });
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
  children.delete(child);
  let result;
  try {
    result = JSON.parse(stdout);
  } catch {
    throw new Error(`mcp_loadgen ${args.join(' ')} exited ${code} without a result:\n` +
        stderr.slice(-3000));
  }
  if (code !== 0) {
    const error = new Error(`mcp_loadgen ${args.join(' ')} reported errors (exit ${code}): ` +
        `${JSON.stringify(result.error_kinds)}\n${stderr.slice(-3000)}`);
    error.kinds = result.error_kinds;
    throw error;
  }
  if (cpuStart !== null && cpuEnd !== null) result.system_cpu_s = cpuEnd - cpuStart;
  if (rssIdle !== null) result.rss_idle_kib = rssIdle;
  return result;
}

// ---------------------------------------------------------------------------
// The plan.

const FULL = {
  duration: 5,
  warmup: 1,
  concurrency: [1, 16, 256],
  payloads: [256, 4096, 65536, 1048576],
  payloadSessions: 16,
  loadFractions: [0.1, 0.25, 0.5, 0.75, 0.9],
  idleSessions: 256,
  sdkSeconds: 5,
};
const SMOKE = {
  duration: 0.3,
  warmup: 0.1,
  concurrency: [2],
  payloads: [4096],
  payloadSessions: 2,
  loadFractions: [0.5],
  idleSessions: 4,
  sdkSeconds: 0.3,
};
const plan = options.smoke ? SMOKE : FULL;
const HTTP_SYSTEMS = ['bare', 'relay', 'mcpgate-nodlp', 'mcpgate-dlp', 'mcpgate-modern-dlp',
  'supergateway'];
const ALL_SYSTEMS = ['direct', ...HTTP_SYSTEMS];
const LATENCY_SYSTEMS = ['direct', 'bare', 'relay', 'mcpgate-dlp'];

const results = {
  throughput: [],  // {system, sessions, payload, secrets, ...loadgen result}
  latency: [],     // {system, fraction, rate, ...}
  threads: [],     // {threads, sessions, ...}
  idle: [],        // {system, sessions, rss_before_kib, rss_idle_kib}
  sdk: [],         // {path, clients, calls_per_s, p50, p99}
};

async function withSystem(system, fn) {
  const target = await system.start();
  try {
    return await fn(target);
  } finally {
    await target.stop();
  }
}

function describe(r) {
  const lat = r.latency_us;
  return `${Math.round(r.calls_per_s).toLocaleString('en-US')} calls/s, p50 ${lat.p50.toFixed(0)} µs, ` +
      `p99 ${lat.p99.toFixed(0)} µs` + (r.system_cpu_s !== undefined ?
      `, system CPU ${(r.system_cpu_s / r.duration_s).toFixed(2)} cores` : '');
}

async function throughputRuns() {
  for (const name of ALL_SYSTEMS) {
    await withSystem(SYSTEMS[name], async (target) => {
      const runs = [];
      for (const sessions of plan.concurrency) runs.push({sessions, payload: 4096, secrets: false});
      for (const payload of plan.payloads) {
        for (const secrets of [false, true]) {
          if (payload === 4096 && !secrets && plan.concurrency.includes(plan.payloadSessions)) {
            continue;  // measured above
          }
          runs.push({sessions: plan.payloadSessions, payload, secrets});
        }
      }
      for (const run of runs) {
        // 1 MiB messages take milliseconds each: give them time to add up.
        const duration = run.payload >= 1048576 && !options.smoke ? plan.duration * 2 :
                                                                     plan.duration;
        let r;
        try {
          r = await load(target, {...run, duration, warmup: plan.warmup});
        } catch (error) {
          // A system that refuses the load (supergateway answers 413 to a
          // 1 MiB body) is reported as such; anything else stops the run.
          if (!error.kinds || options.smoke) throw error;
          results.throughput.push({system: name, ...run, failed: error.kinds});
          progress(`${name.padEnd(14)} ${String(run.sessions).padStart(3)} sessions ` +
              `${String(run.payload).padStart(7)} B${run.secrets ? ' +secrets' : ''}: ` +
              `FAILED ${JSON.stringify(error.kinds)}`);
          continue;
        }
        results.throughput.push({system: name, ...run, ...r});
        progress(`${name.padEnd(14)} ${String(run.sessions).padStart(3)} sessions ` +
            `${String(run.payload).padStart(7)} B${run.secrets ? ' +secrets' : ''}: ${describe(r)}`);
      }
    });
  }
}

function peak(system, sessions, payload = 4096) {
  const r = results.throughput.find((x) => x.system === system && x.sessions === sessions &&
      x.payload === payload && !x.secrets);
  return r ? r.calls_per_s : 0;
}

// Latency against offered load, at fractions of mcpgate-dlp's peak with 16
// sessions (the same absolute rates for every system, so the added latency
// at "half of peak load" is a difference of two runs at one rate).
async function latencyRuns() {
  const sessions = plan.payloadSessions;
  const top = peak('mcpgate-dlp', sessions);
  for (const name of LATENCY_SYSTEMS) {
    await withSystem(SYSTEMS[name], async (target) => {
      for (const fraction of plan.loadFractions) {
        const rate = Math.max(1, top * fraction);
        const r = await load(target, {sessions, payload: 4096, rate, duration: plan.duration,
          warmup: plan.warmup});
        results.latency.push({system: name, fraction, rate, sessions, ...r});
        progress(`${name.padEnd(14)} at ${(fraction * 100).toFixed(0).padStart(2)} % of ` +
            `mcpgate-dlp's peak (${Math.round(rate)} calls/s offered): ${describe(r)}`);
      }
    });
  }
}

async function threadRuns() {
  const counts = [...new Set([1, 2, os.cpus().length])].filter((n) => n <= os.cpus().length);
  for (const threads of counts) {
    await withSystem(mcpgateSystem(`mcpgate-dlp-t${threads}`, {dlp: true, threads}),
        async (target) => {
          for (const sessions of plan.concurrency.filter((c) => c > 1)) {
            const r = await load(target, {sessions, payload: 4096, duration: plan.duration,
              warmup: plan.warmup});
            results.threads.push({...r, threads, sessions});
            progress(`mcpgate-dlp with ${threads} thread(s), ${sessions} sessions: ${describe(r)}`);
          }
        });
  }
}

// Memory per idle session: RSS with N open, idle sessions (initialize and
// notifications/initialized, then nothing) against RSS after one session ran
// and ended, so what every process loads once is not counted.
async function idleRuns() {
  for (const name of ['mcpgate-dlp', 'supergateway']) {
    await withSystem(SYSTEMS[name], async (target) => {
      await load(target, {sessions: 1, payload: 4096, duration: 0.2, warmup: 0.1});
      await sleep(200);
      const before = rssKiB(target.pid);
      const r = await load(target, {sessions: plan.idleSessions, payload: 256,
        idle: options.smoke ? 0.5 : 2});
      const perSession = (r.rss_idle_kib - before) / plan.idleSessions;
      results.idle.push({system: name, sessions: plan.idleSessions, rss_before_kib: before,
        rss_idle_kib: r.rss_idle_kib, per_session_kib: perSession});
      progress(`${name}: ${plan.idleSessions} idle sessions: RSS ${before} → ` +
          `${r.rss_idle_kib} KiB, ${perSession.toFixed(1)} KiB per session`);
    });
  }
}

// ---------------------------------------------------------------------------
// The cost a real user sees: the official SDK client calling server-everything's
// echo directly (stdio) and through mcpgate with the full rule pack.

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function sdkLoop(makeTransport, clients, seconds) {
  const text = 'lorem ipsum '.repeat(342).slice(0, 4096);
  const latencies = [];
  const connected = await Promise.all(Array.from({length: clients}, async () => {
    const client = new Client({name: 'mcpgate-bench', version: '1.0.0'});
    await client.connect(makeTransport());
    return client;
  }));
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(connected.map(async (client) => {
    while (Date.now() < deadline) {
      const t0 = process.hrtime.bigint();
      const answer = await client.callTool({name: 'echo', arguments: {message: text}});
      latencies.push(Number(process.hrtime.bigint() - t0) / 1000);
      if (!answer.content?.[0]?.text?.includes(text)) throw new Error('SDK echo: wrong answer');
    }
  }));
  await Promise.all(connected.map((client) => client.close()));
  latencies.sort((a, b) => a - b);
  return {calls: latencies.length, calls_per_s: latencies.length / seconds,
    p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99)};
}

async function sdkRuns() {
  const dir = fs.mkdtempSync(path.join(work, 'sdk-'));
  const config = path.join(dir, 'mcpgate.yaml');
  const modules = path.join(SOURCE_DIR, 'node_modules');
  fs.writeFileSync(config, [
    'listen: 127.0.0.1:0',
    'servers:',
    '  everything:',
    '    command: node',
    '    args: [/opt/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js, stdio]',
    `    sandbox: {binds: [{src: ${JSON.stringify(modules)}, dst: /opt/mcp/node_modules}]}`,
    'session: {idle_timeout: 600s}',
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    `cache_dir: ${JSON.stringify(path.join(dir, 'cache'))}`,
    '',
  ].join('\n'));
  const gateway = await startProcess('mcpgate-sdk', BIN.mcpgate, ['serve', '-c', config],
      portFrom(/"msg":"listening".*"address":"[^"]*:(\d+)"/), {logDir: work});
  try {
    const url = new URL(`http://127.0.0.1:${gateway.value}/mcp/everything`);
    for (const clients of options.smoke ? [1] : [1, 16]) {
      const direct = await sdkLoop(() => new StdioClientTransport(
          {command: process.execPath, args: [BIN.everything, 'stdio'], stderr: 'ignore'}),
      clients, plan.sdkSeconds);
      const through = await sdkLoop(() => new StreamableHTTPClientTransport(url), clients,
          plan.sdkSeconds);
      results.sdk.push({path: 'SDK client → server-everything (stdio)', clients, ...direct});
      results.sdk.push({path: 'SDK client → mcpgate (full DLP) → server-everything', clients,
        ...through});
      progress(`SDK, ${clients} client(s): direct ${direct.calls_per_s.toFixed(0)} calls/s ` +
          `p50 ${direct.p50.toFixed(0)} µs; through mcpgate ${through.calls_per_s.toFixed(0)} ` +
          `calls/s p50 ${through.p50.toFixed(0)} µs`);
    }
  } finally {
    await gateway.stop();
  }
}

// ---------------------------------------------------------------------------

// Systems in alternating rounds (the order reverses every round: on this
// machine the first run after a pause is often the slower), 16 sessions,
// 4 KiB; prints each one's medians and its share of the first one's calls/s.
// `entries`: [label, shown as, system].
async function alternatingRuns(entries) {
  const runs = new Map(entries.map(([label]) => [label, []]));
  for (let round = 0; round < options.rounds; ++round) {
    const order = round % 2 === 0 ? entries : [...entries].reverse();
    for (const [label, , system] of order) {
      await withSystem(system(round), async (target) => {
        const r = await load(target, {sessions: 16, payload: 4096, secrets: options.secrets,
          rate: options.rate, duration: 3, warmup: 1});
        // direct: its echo servers are the load generator's children.
        const cpu = (r.system_cpu_s ?? r.children_cpu_s) * 1e6 / r.calls;
        runs.get(label).push({calls: r.calls_per_s, cpu, p50: r.latency_us.p50,
          p99: r.latency_us.p99});
        progress(`round ${round + 1}, ${label}: ${describe(r)}, ${fmt(cpu, 1)} µs CPU per call`);
      });
    }
  }
  const median = (values) => percentile([...values].sort((a, b) => a - b), 0.5);
  const first = median(runs.get(entries[0][0]).map((x) => x.calls));
  for (const [label, shown] of entries) {
    const r = runs.get(label);
    const calls = median(r.map((x) => x.calls));
    console.log(`${shown}: median ${fmt(calls)} calls/s (${fmt(100 * calls / first)} % of ` +
        `${entries[0][0]}), ${fmt(median(r.map((x) => x.cpu)), 1)} µs of system CPU per call, ` +
        `p50 ${fmt(median(r.map((x) => x.p50)))} µs, p99 ${fmt(median(r.map((x) => x.p99)))} µs ` +
        `(${options.rounds} rounds, 16 sessions, 4 KiB${options.secrets ? ' with secrets' : ''}` +
        `${options.rate ? `, ${fmt(options.rate)} calls/s offered` : ''})`);
  }
}

if (options.ab) {
  const gateway = (label, binary) => [label, `${label} (${binary})`,
    (round) => mcpgateSystem(`ab-${round}-${label.replace(' ', '-')}`,
        {dlp: !options.nodlp, binary, modern: options.modern})];
  await alternatingRuns([gateway('other', options.ab), gateway('this build', BIN.mcpgate)]);
  process.exit(0);
}
if (options.compare) {
  const unknown = options.compare.filter((name) => !SYSTEMS[name]);
  if (unknown.length) usage(`--compare: no system ${unknown.join(', ')} (${Object.keys(SYSTEMS)})`);
  await alternatingRuns(options.compare.map((name) => [name, name, () => SYSTEMS[name]]));
  process.exit(0);
}

const command = options.smoke ? 'node bench/run.mjs --smoke' : 'bash bench/run.sh';
progress(`work dir ${work}; ${options.smoke ? 'smoke run' : 'full run'}`);
await throughputRuns();
await latencyRuns();
await threadRuns();
await idleRuns();
await sdkRuns();
const run = {results, plan, options, work,
  systems: {all: ALL_SYSTEMS, latency: LATENCY_SYSTEMS}};
writeResults(options.out, report(run, command));
plot(run);
progress(`wrote ${options.out} and the plots in ${options.plots}`);
process.exit(0);
