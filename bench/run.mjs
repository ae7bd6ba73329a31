// The throughput and latency comparison of issue 6: the same native echo MCP
// server behind each system, the same native load generator, one run.
//
//   node bench/run.mjs [--smoke] [--build DIR] [--out FILE] [--plots DIR]
//   node bench/run.mjs --ab OTHER_MCPGATE [--rounds N] [--secrets] [--build DIR]
//
// Systems: direct (pipes, no HTTP), bare (a Beast server answering itself),
// relay (the same server relaying each body to a child echo server per
// session over pipes, parsing nothing: the ceiling for any stdio-to-HTTP
// gateway), mcpgate without DLP and with the full shipped rule pack, supergateway, and
// the official SDK client through mcpgate against server-everything. It
// writes its section of bench/RESULTS.md (between the markers below) and PNG
// plots with gnuplot. --smoke runs every system for a fraction of a second and
// writes to a temporary directory: CI runs it so the harness cannot rot; its
// figures mean nothing.
//
// --ab compares two gateway binaries, for one optimisation: OTHER_MCPGATE
// (say, a build of the commit before) and the build's own, each with the
// full rule pack, 16 sessions, 4 KiB (--secrets: with secrets to redact),
// alternating for N rounds (5), and prints the medians of calls/s and of the
// gateway's CPU per call. It writes nothing.

import {spawn, spawnSync} from 'node:child_process';
import {setMaxListeners} from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const SOURCE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BEGIN = '<!-- bench/run.mjs: begin (generated; edit the harness, not this section) -->';
const END = '<!-- bench/run.mjs: end -->';

function parseArgs(argv) {
  const options = {smoke: false, build: path.join(SOURCE_DIR, 'build'), out: null, plots: null,
    ab: null, rounds: 5, secrets: false};
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
    else if (a === '--rounds') options.rounds = Number(value());
    else if (a === '--secrets') options.secrets = true;
    else usage(`unknown argument ${a}`);
  }
  if (!(Number.isInteger(options.rounds) && options.rounds > 0)) usage('--rounds wants a count');
  if (options.ab && !fs.existsSync(options.ab)) usage(`--ab: no file ${options.ab}`);
  if (options.ab) return options;
  if (!options.smoke) {
    options.out ??= path.join(SOURCE_DIR, 'bench/RESULTS.md');
    options.plots ??= path.join(SOURCE_DIR, 'bench/plots');
  }
  return options;
}

function usage(why) {
  console.error(`bench/run.mjs: ${why}\nusage: node bench/run.mjs [--smoke] [--build DIR] ` +
      '[--out FILE] [--plots DIR]\n       node bench/run.mjs --ab OTHER_MCPGATE [--rounds N] ' +
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
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  fs.rmSync(work, {recursive: true, force: true});
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const started = Date.now();
function progress(text) {
  const s = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${s} s] ${text}\n`);
}

// ---------------------------------------------------------------------------
// Processes and their CPU time.

const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim()) || 100;

// CPU seconds of a process and every live descendant, counting the children
// each of them has reaped: the delta of two readings is what the tree used.
function treeCpu(root) {
  const parents = new Map();
  const times = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;  // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parents.set(Number(entry), Number(fields[1]));
    times.set(Number(entry), fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0));
  }
  let total = 0;
  for (const [pid, ticks] of times) {
    for (let p = pid; p > 1; p = parents.get(p) ?? 0) {
      if (p === root) {
        total += ticks;
        break;
      }
    }
  }
  return total / TICKS;
}

function rssKiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
}

// Starts a long-lived process; resolves once `ready(line)` returns a value
// for a line of its stdout or stderr. Its output goes to a log file.
async function startProcess(name, command, args, ready, {env, poll} = {}) {
  // The process writes its output straight to its log file, which is read
  // for the ready line: relaying it through this script would put Node.js on
  // the cores being measured for every line (a DLP finding is a log line).
  const logFile = path.join(work, `${name}.log`);
  const log = fs.openSync(logFile, 'a+');
  let offset = fs.fstatSync(log).size;  // before the spawn: the child may write at once
  const child = spawn(command, args, {stdio: ['ignore', log, log], env: env ?? process.env});
  children.add(child);
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = {code, signal};
    children.delete(child);
  });
  let found = null;
  let partial = '';
  const readLines = () => {
    const size = fs.fstatSync(log).size;
    if (size <= offset) return;
    const chunk = Buffer.alloc(size - offset);
    fs.readSync(log, chunk, 0, chunk.length, offset);
    offset = size;
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop();
    for (const line of lines) found ??= ready(line);
  };
  const deadline = Date.now() + 30000;
  while (!found && !exited && Date.now() < deadline) {
    readLines();
    if (!found && poll) found = await poll();
    if (!found) await sleep(20);
  }
  if (!found) {
    child.kill('SIGKILL');
    throw new Error(`${name} did not start (${exited ? `exited ${JSON.stringify(exited)}` :
        'no ready line in 30 s'}); its log:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`);
  }
  return {
    pid: child.pid,
    value: found,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        for (let i = 0; i < 500 && !exited; ++i) await sleep(20);
        if (!exited) child.kill('SIGKILL');
      }
      fs.closeSync(log);
    },
  };
}

function portFrom(regex) {
  return (line) => {
    const m = regex.exec(line);
    return m ? Number(m[1]) : null;
  };
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

function mcpgateSystem(name, {dlp, threads, binary = BIN.mcpgate}) {
  return {
    name,
    async start() {
      const args = ['serve', '-c', mcpgateConfig(name, {dlp})];
      if (threads) args.push('--threads', String(threads));
      const p = await startProcess(name, binary, args,
          portFrom(/"msg":"listening".*"address":"[^"]*:(\d+)"/));
      return {url: `http://127.0.0.1:${p.value}/mcp/echo`, pid: p.pid, stop: p.stop};
    },
  };
}

const SYSTEMS = {
  direct: {
    name: 'direct',
    async start() {
      return {direct: BIN.echo, stop: async () => {}};
    },
  },
  bare: {
    name: 'bare',
    async start() {
      const p = await startProcess('bare', BIN.bare, ['--listen', '127.0.0.1:0'],
          portFrom(/^listening [^ ]*:(\d+)/));
      return {url: `http://127.0.0.1:${p.value}/mcp/echo`, pid: p.pid, stop: p.stop};
    },
  },
  relay: {
    name: 'relay',
    async start() {
      const p = await startProcess('relay', BIN.bare,
          ['--listen', '127.0.0.1:0', '--relay', BIN.echo], portFrom(/^listening [^ ]*:(\d+)/));
      return {url: `http://127.0.0.1:${p.value}/mcp/echo`, pid: p.pid, stop: p.stop};
    },
  },
  'mcpgate-nodlp': mcpgateSystem('mcpgate-nodlp', {dlp: false}),
  'mcpgate-dlp': mcpgateSystem('mcpgate-dlp', {dlp: true}),
  supergateway: {
    name: 'supergateway',
    async start() {
      const port = await freePort();
      const p = await startProcess('supergateway', process.execPath,
          [BIN.supergateway, '--stdio', BIN.echo, '--outputTransport', 'streamableHttp',
            '--port', String(port), '--stateful', '--logLevel', 'none',
            '--healthEndpoint', '/healthz'],
          () => null, {poll: async () => {
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
  if (secrets) args.push('--secrets');
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
const HTTP_SYSTEMS = ['bare', 'relay', 'mcpgate-nodlp', 'mcpgate-dlp', 'supergateway'];
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
      portFrom(/"msg":"listening".*"address":"[^"]*:(\d+)"/));
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
// Report: tables in RESULTS.md, plots with gnuplot.

const fmt = (n, digits = 0) => Number(n).toLocaleString('en-US',
    {minimumFractionDigits: digits, maximumFractionDigits: digits});
// A difference, with its sign: +12, −3.
const delta = (n) => (n < 0 ? `−${fmt(-n)}` : `+${fmt(n)}`);
const sizeName = (b) => (b >= 1048576 ? `${b / 1048576} MiB` : b >= 1024 ? `${b / 1024} KiB` :
                                                                            `${b} B`);

function cpuCells(r) {
  if (r.system_cpu_s === undefined) {
    // direct: the echo servers are the load generator's children.
    return [fmt(r.children_cpu_s / r.duration_s, 2), fmt(r.children_cpu_s / r.calls * 1e6, 1)];
  }
  return [fmt(r.system_cpu_s / r.duration_s, 2), fmt(r.system_cpu_s / r.calls * 1e6, 1)];
}

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

function latencyCells(l) {
  return [l.p50, l.p90, l.p99, l.p999, l.max].map((v) => fmt(v));
}

function machine() {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.cpus().length} × ${cpu}, ${fmt(os.totalmem() / 2 ** 30)} GiB, ` +
      `Linux ${os.release()}, Node.js ${process.versions.node}`;
}

function goals() {
  const lines = [];
  const sessionsFor = plan.concurrency.includes(256) ? 256 : plan.concurrency.at(-1);
  const best = (system) => Math.max(...results.throughput.filter((r) => r.system === system &&
      r.payload === 4096 && !r.secrets && !r.failed).map((r) => r.calls_per_s));
  const dlp = best('mcpgate-dlp');
  const sg = best('supergateway');
  const bare = best('bare');
  const verdict = (ok) => (ok ? '**met**' : '**not met**');
  lines.push(`- Throughput with the full DLP pack (4 KiB, best of 1/16/256 sessions): ` +
      `${fmt(dlp)} calls/s = **${fmt(dlp / sg, 1)}×** supergateway (${fmt(sg)}), goal ≥ 10×: ` +
      `${verdict(dlp / sg >= 10)}; **${fmt(100 * dlp / bare)} %** of the bare Beast server ` +
      `(${fmt(bare)}), goal ≥ 60 %: ${verdict(dlp / bare >= 0.6)}.`);
  const nodlp = best('mcpgate-nodlp');
  if (Number.isFinite(nodlp) && nodlp > 0) {
    lines.push(`  Without DLP mcpgate reaches ${fmt(nodlp)} calls/s, ${fmt(100 * nodlp / bare)} % ` +
        'of bare: the share of the gap that relaying to a child process costs, as against scanning.');
  }
  const relay = best('relay');
  if (Number.isFinite(relay) && relay > 0) {
    lines.push(`  The ceiling for any gateway that relays to a stdio server: the bare server ` +
        `relaying each body to a child over pipes, parsing and checking nothing, reaches ` +
        `${fmt(relay)} calls/s, **${fmt(100 * relay / bare)} %** of bare; mcpgate with the full ` +
        `pack reaches **${fmt(100 * dlp / relay)} %** of that ceiling, without DLP ` +
        `${fmt(100 * nodlp / relay)} %.`);
  }
  const half = (system) => results.latency.find((r) => r.system === system && r.fraction === 0.5);
  const d = half('direct');
  const g = half('mcpgate-dlp');
  if (d && g) {
    const p50 = g.latency_us.p50 - d.latency_us.p50;
    const p99 = g.latency_us.p99 - d.latency_us.p99;
    lines.push(`- Added latency over direct at half of mcpgate-dlp's peak (${fmt(g.rate)} ` +
        `calls/s offered, ${g.sessions} sessions, 4 KiB): p50 **${delta(p50)} µs** (goal ≤ 50: ` +
        `${verdict(p50 <= 50)}), p99 **${delta(p99)} µs** (goal ≤ 250: ${verdict(p99 <= 250)}).`);
    // The HTTP hop alone, with nothing relayed or scanned: what any HTTP
    // front end adds over the pipes on this machine at the same load.
    const b = half('bare');
    if (b) {
      lines.push(`  For scale: the bare Beast server, which answers itself (no child, no ` +
          `scanning), adds p50 ${delta(b.latency_us.p50 - d.latency_us.p50)} µs and p99 ` +
          `${delta(b.latency_us.p99 - d.latency_us.p99)} µs over direct at the same load.`);
    }
    const r = half('relay');
    if (r) {
      lines.push(`  The relay (the HTTP hop and the pipe hop, nothing parsed) adds p50 ` +
          `${delta(r.latency_us.p50 - d.latency_us.p50)} µs and p99 ` +
          `${delta(r.latency_us.p99 - d.latency_us.p99)} µs over direct at the same load.`);
    }
  }
  const idle = results.idle.find((r) => r.system === 'mcpgate-dlp');
  if (idle) {
    lines.push(`- An idle session costs **${fmt(idle.per_session_kib, 1)} KiB** of gateway RSS ` +
        `(${idle.sessions} sessions), goal ≤ 64 KiB: ${verdict(idle.per_session_kib <= 64)}.`);
  }
  const t = (threads) => results.threads.find((r) => r.threads === threads &&
      r.sessions === sessionsFor);
  const counts = [...new Set(results.threads.map((r) => r.threads))].sort((a, b) => a - b);
  if (counts.length > 1) {
    const first = t(counts[0]);
    const last = t(counts.at(-1));
    lines.push(`- Scaling with worker threads (${sessionsFor} sessions): ${counts[0]} thread ` +
        `${fmt(first.calls_per_s)} calls/s, ${counts.at(-1)} threads ${fmt(last.calls_per_s)} ` +
        `(×${fmt(last.calls_per_s / first.calls_per_s, 2)} on ${os.cpus().length} cores shared ` +
        'with the load generator and the echo servers).');
  }
  return lines.join('\n');
}

function report(command) {
  const parts = [];
  parts.push(`## Gateways compared (issue 6)\n\nCommand: \`${command}\` ` +
      `(${new Date().toISOString().slice(0, 10)}, ${machine()}). One run; every system ` +
      'serves the same native echo MCP server (`bench/mcp_echo_server`) to the same load ' +
      'generator (`bench/mcp_loadgen`: one keep-alive connection per MCP session, ' +
      'initialize, then tools/call in a closed loop, every answer checked against its ' +
      'request). The load generator runs on the same cores as the system measured. ' +
      '"system CPU" is the CPU time of the system\'s process tree (the gateway and the ' +
      'servers it spawned) during the measured window, in cores and per call.' +
      (options.smoke ? '\n\n**Smoke run: these figures mean nothing.**' : ''));
  parts.push(`### Goals\n\n${goals()}`);

  const throughputRows = results.throughput.filter((r) => r.payload === 4096 && !r.secrets && !r.failed &&
      plan.concurrency.includes(r.sessions));
  parts.push('### Throughput against concurrency (4 KiB arguments and results)\n\n' +
      '![throughput](plots/throughput.png)\n\n' +
      table(['system', 'sessions', 'calls/s', 'p50 µs', 'p90 µs', 'p99 µs', 'p99.9 µs', 'max µs',
        'system CPU (cores)', 'CPU µs per call', 'load generator CPU (cores)'],
      throughputRows.map((r) => [r.system, r.sessions, fmt(r.calls_per_s), ...latencyCells(
          r.latency_us), ...cpuCells(r), fmt(r.loadgen_cpu_s / r.duration_s, 2)])));

  const payloadRows = results.throughput.filter((r) => r.sessions === plan.payloadSessions);
  parts.push(`### Payload sizes, with and without secrets (${plan.payloadSessions} sessions)\n\n` +
      'With secrets, the text carries about one secret per 4 KiB that the shipped pack ' +
      'redacts (an AWS key id, a phone number, a GitHub token); mcpgate-dlp answers with ' +
      'them redacted, the others echo them.\n\n' +
      table(['system', 'payload', 'secrets', 'calls/s', 'MB/s each way', 'p50 µs', 'p99 µs',
        'p99.9 µs', 'max µs', 'system CPU (cores)', 'CPU µs per call', 'redacted answers'],
      payloadRows.sort((a, b) => a.payload - b.payload || Number(a.secrets) - Number(b.secrets) ||
          ALL_SYSTEMS.indexOf(a.system) - ALL_SYSTEMS.indexOf(b.system)).map((r) => r.failed ? [
        r.system, sizeName(r.payload), r.secrets ? 'yes' : 'no',
        `failed: ${Object.entries(r.failed).map(([k, n]) => `${k} × ${n}`).join(', ')}`,
        ...Array(8).fill('—')] : [
        r.system, sizeName(r.payload), r.secrets ? 'yes' : 'no', fmt(r.calls_per_s),
        fmt(r.calls_per_s * r.payload / 1e6, 1), fmt(r.latency_us.p50), fmt(r.latency_us.p99),
        fmt(r.latency_us.p999), fmt(r.latency_us.max), ...cpuCells(r), fmt(r.redacted)])));

  parts.push('### Latency against offered load (16 sessions, 4 KiB, fixed rate)\n\n' +
      '![latency](plots/latency.png)\n\n' +
      table(['system', '% of mcpgate-dlp peak', 'offered calls/s', 'achieved calls/s', 'p50 µs',
        'p90 µs', 'p99 µs', 'p99.9 µs', 'max µs'],
      results.latency.map((r) => [r.system, fmt(r.fraction * 100), fmt(r.rate),
        fmt(r.calls_per_s), ...latencyCells(r.latency_us)])));

  parts.push('### Worker threads (mcpgate with the full pack, 4 KiB)\n\n' +
      table(['threads', 'sessions', 'calls/s', 'p50 µs', 'p99 µs', 'system CPU (cores)'],
          results.threads.map((r) => [r.threads, r.sessions, fmt(r.calls_per_s),
            fmt(r.latency_us.p50), fmt(r.latency_us.p99), cpuCells(r)[0]])));

  parts.push('### Memory per idle session\n\n' +
      'RSS of the gateway process alone (not the servers it spawned) with N sessions open ' +
      'and idle, against its RSS after one session came and went.\n\n' +
      table(['system', 'idle sessions', 'RSS before KiB', 'RSS with them KiB', 'KiB per session'],
          results.idle.map((r) => [r.system, r.sessions, fmt(r.rss_before_kib),
            fmt(r.rss_idle_kib), fmt(r.per_session_kib, 1)])));

  parts.push('### What a user of the official SDK sees (server-everything, 4 KiB echo)\n\n' +
      table(['path', 'clients', 'calls/s', 'p50 µs', 'p99 µs'],
          results.sdk.map((r) => [r.path, r.clients, fmt(r.calls_per_s), fmt(r.p50),
            fmt(r.p99)])));
  return parts.join('\n\n');
}

function writeResults(text) {
  const old = fs.existsSync(options.out) ? fs.readFileSync(options.out, 'utf8') : '# Results\n';
  const section = `${BEGIN}\n${text}\n${END}`;
  const begin = old.indexOf(BEGIN);
  const end = old.indexOf(END);
  const next = begin >= 0 && end > begin ?
    old.slice(0, begin) + section + old.slice(end + END.length) :
    `${old.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(options.out, next);
}

function plot() {
  fs.mkdirSync(options.plots, {recursive: true});
  const data = (name, rows) => {
    const file = path.join(work, name);
    fs.writeFileSync(file, rows.map((r) => r.join(' ')).join('\n') + '\n');
    return file;
  };
  const throughputSeries = ALL_SYSTEMS.map((system) => data(`tp-${system}.dat`,
      results.throughput.filter((r) => r.system === system && r.payload === 4096 && !r.secrets && !r.failed &&
          plan.concurrency.includes(r.sessions)).sort((a, b) => a.sessions - b.sessions)
          .map((r) => [r.sessions, r.calls_per_s])));
  const latencySeries = LATENCY_SYSTEMS.map((system) => data(
      `lat-${system}.dat`, results.latency.filter((r) => r.system === system)
          .map((r) => [r.calls_per_s, r.latency_us.p50, r.latency_us.p99, r.latency_us.p999])));
  const script = [
    'set terminal pngcairo size 900,560 noenhanced font ",10"',
    `set output ${JSON.stringify(path.join(options.plots, 'throughput.png'))}`,
    'set title "tools/call throughput, 4 KiB arguments and results"',
    'set xlabel "concurrent MCP sessions"', 'set ylabel "calls per second"',
    'set logscale x 2', 'set logscale y 10', 'set grid', 'set key outside right',
    'plot ' + ALL_SYSTEMS.map((s, i) => `${JSON.stringify(throughputSeries[i])} using 1:2 ` +
        `with linespoints lw 2 title ${JSON.stringify(s)}`).join(', '),
    'unset logscale',
    `set output ${JSON.stringify(path.join(options.plots, 'latency.png'))}`,
    'set title "latency against load, 16 sessions, 4 KiB"',
    'set xlabel "achieved calls per second"', 'set ylabel "latency (µs)"',
    'set logscale y 10',
    // Each system in the colour it has in the throughput plot.
    'plot ' + LATENCY_SYSTEMS.flatMap((s, i) => [
      `${JSON.stringify(latencySeries[i])} using 1:2 with linespoints lw 2 ` +
          `lc ${ALL_SYSTEMS.indexOf(s) + 1} title "${s} p50"`,
      `${JSON.stringify(latencySeries[i])} using 1:3 with linespoints dt 2 ` +
          `lc ${ALL_SYSTEMS.indexOf(s) + 1} title "${s} p99"`,
    ]).join(', '),
  ].join('\n');
  const run = spawnSync('gnuplot', [], {input: script});
  if (run.status !== 0) throw new Error(`gnuplot failed: ${run.stderr}`);
}

// ---------------------------------------------------------------------------

// Two gateway binaries, alternating (which goes first alternates too: on
// this machine the first run after a pause is often the slower).
async function abRuns() {
  const binaries = [['other', options.ab], ['this build', BIN.mcpgate]];
  const runs = new Map(binaries.map(([label]) => [label, []]));
  for (let round = 0; round < options.rounds; ++round) {
    const order = round % 2 === 0 ? binaries : [...binaries].reverse();
    for (const [label, binary] of order) {
      await withSystem(mcpgateSystem(`ab-${round}-${label.replace(' ', '-')}`,
          {dlp: true, binary}), async (target) => {
        const r = await load(target, {sessions: 16, payload: 4096, secrets: options.secrets,
          duration: 3, warmup: 1});
        const cpu = r.system_cpu_s * 1e6 / r.calls;
        runs.get(label).push({calls: r.calls_per_s, cpu});
        progress(`round ${round + 1}, ${label}: ${describe(r)}, ${fmt(cpu, 1)} µs CPU per call`);
      });
    }
  }
  const median = (values) => percentile([...values].sort((a, b) => a - b), 0.5);
  for (const [label, binary] of binaries) {
    const r = runs.get(label);
    console.log(`${label} (${binary}): median ${fmt(median(r.map((x) => x.calls)))} calls/s, ` +
        `${fmt(median(r.map((x) => x.cpu)), 1)} µs of gateway CPU per call ` +
        `(${options.rounds} rounds, 16 sessions, 4 KiB${options.secrets ? ' with secrets' : ''})`);
  }
}

if (options.ab) {
  await abRuns();
  process.exit(0);
}

const command = options.smoke ? 'node bench/run.mjs --smoke' : 'bash bench/run.sh';
progress(`work dir ${work}; ${options.smoke ? 'smoke run' : 'full run'}`);
await throughputRuns();
await latencyRuns();
await threadRuns();
await idleRuns();
await sdkRuns();
writeResults(report(command));
plot();
progress(`wrote ${options.out} and the plots in ${options.plots}`);
process.exit(0);
