// Shared helpers for mcpgate's end-to-end tests: start the real gateway,
// find the processes it spawned, and the MCP flow every transport must pass.

import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {CreateMessageRequestSchema} from '@modelcontextprotocol/sdk/types.js';

export const SOURCE_DIR = process.env.MCPGATE_SOURCE_DIR ??
    path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const MCPGATE_BIN =
    process.env.MCPGATE_BIN ?? path.join(SOURCE_DIR, 'build/gateway/mcpgate');
export const EVERYTHING_JS = path.join(
    SOURCE_DIR, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// The same file as the sandboxed server sees it (see writeEverythingConfig).
export const EVERYTHING_INSIDE =
    '/opt/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js';
export const CONFORMANCE_BIN = path.join(SOURCE_DIR, 'node_modules/.bin/conformance');

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Polls fn until it returns a truthy value; returns that value, or the last
// falsy one when the deadline passes (so the caller's assert explains it).
export async function waitFor(fn, {timeoutMs = 5000, intervalMs = 50} = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value || Date.now() >= deadline) return value;
    await sleep(intervalMs);
  }
}

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const tempDirs = [];
process.on('exit', () => {
  for (const dir of tempDirs) fs.rmSync(dir, {recursive: true, force: true});
});

// The `servers:` entry of server-everything, named `everything`.
export function everythingServerLines() {
  return [
    '  everything:',
    '    command: node',
    `    args: [${JSON.stringify(EVERYTHING_INSIDE)}, stdio]`,
    // The default sandbox shows the server only /usr and its binds.
    `    sandbox: {binds: [{src: ${JSON.stringify(path.join(SOURCE_DIR, 'node_modules'))}, ` +
        'dst: /opt/mcp/node_modules}]}',
  ];
}

// Writes a gateway config with one server, `everything`, to a fresh temp dir
// that is removed when the test process exits. `extraLines` are appended
// (top-level sections such as `dlp:`).
export function writeEverythingConfig(extraLines = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-e2e-'));
  tempDirs.push(dir);
  const file = path.join(dir, 'mcpgate.yaml');
  fs.writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'servers:',
    ...everythingServerLines(),
    'session: {idle_timeout: 60s, grace: 2s}',
    // Tool pins of its own: none left by another run or test.
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    ...extraLines,
    '',
  ].join('\n'));
  return file;
}

export const TEST_SERVER_INSIDE = '/opt/mcpgate-tests/test_server.mjs';

// Writes a gateway config with one server, `test`: the recording test server
// (tests/servers/test_server.mjs), which appends every line it receives to
// `received.jsonl` in the returned dir. `env` adds to its environment;
// `extraLines` are appended (top-level sections such as `policies:`), and
// `moreServers` (entries such as everythingServerLines()) go under `servers:`.
// Returns {file, dir, received()}.
export function writeTestServerConfig(extraLines = [], env = {}, moreServers = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-e2e-'));
  tempDirs.push(dir);
  // Others may enter (the sandboxed server runs as another user) but not write: a bind source
  // under a directory others can write is refused (a planted symlink could redirect it).
  fs.chmodSync(dir, 0o755);
  const record = path.join(dir, 'record');
  fs.mkdirSync(record, {mode: 0o777});
  fs.chmodSync(record, 0o777);
  const file = path.join(dir, 'mcpgate.yaml');
  const serverEnv = {TEST_SERVER_RECORD: '/record/received.jsonl', ...env};
  fs.writeFileSync(file, [
    'listen: 127.0.0.1:0',
    'servers:',
    '  test:',
    '    command: node',
    `    args: [${JSON.stringify(TEST_SERVER_INSIDE)}]`,
    `    env: ${JSON.stringify(serverEnv)}`,
    `    sandbox: {binds: [{src: ${JSON.stringify(path.join(SOURCE_DIR, 'tests/servers'))}, ` +
        `dst: /opt/mcpgate-tests}, {src: ${JSON.stringify(record)}, dst: /record, ro: false}]}`,
    ...moreServers,
    'session: {idle_timeout: 60s, grace: 2s}',
    `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`,
    ...extraLines,
    '',
  ].join('\n'));
  const received = () => {
    try {
      return fs.readFileSync(path.join(record, 'received.jsonl'), 'utf8');
    } catch {
      return '';
    }
  };
  return {file, dir, received};
}

// Parses the port out of the gateway's `"msg":"listening"` log line. Tolerant
// of field order and extra fields; accepts a non-JSON line that has both.
export function parseListeningPort(line) {
  if (!line.includes('"listening"') || !line.includes('"address"')) return null;
  try {
    const entry = JSON.parse(line);
    if (entry.msg === 'listening' && typeof entry.address === 'string') {
      const port = Number(entry.address.slice(entry.address.lastIndexOf(':') + 1));
      if (port > 0) return port;
    }
  } catch {
    // fall through to the textual match
  }
  const match = /"address"\s*:\s*"[^"]*:(\d+)"/.exec(line);
  return match ? Number(match[1]) : null;
}

// Collects a child's stderr as lines, for assertions and failure messages.
function collectLines(stream) {
  const lines = [];
  let partial = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop();
    lines.push(...parts);
  });
  return lines;
}

// Starts `mcpgate serve -c configFile` and waits until it logs its port.
export async function startGateway(configFile, {timeoutMs = 15000} = {}) {
  assert.ok(fs.existsSync(MCPGATE_BIN), `gateway binary not found: ${MCPGATE_BIN} (set MCPGATE_BIN)`);
  const proc = spawn(MCPGATE_BIN, ['serve', '-c', configFile], {stdio: ['ignore', 'pipe', 'pipe']});
  const stdout = collectLines(proc.stdout);
  const stderr = collectLines(proc.stderr);
  let exit = null;
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
    exit = {code, signal};
    resolve(exit);
  }));
  const logs = () => [...stderr, ...stdout].join('\n');

  const port = await waitFor(() => {
    if (exit) return -1;
    for (const line of [...stderr, ...stdout]) {
      const found = parseListeningPort(line);
      if (found) return found;
    }
    return null;
  }, {timeoutMs});
  if (port === -1 || !port) {
    proc.kill('SIGKILL');
    await exited;
    assert.fail(`mcpgate serve did not log a listening address ` +
        `(${exit ? `exited ${JSON.stringify(exit)}` : `no line within ${timeoutMs} ms`}); log:\n${logs()}`);
  }

  return {
    proc,
    port,
    url: (server) => `http://127.0.0.1:${port}/mcp/${server}`,
    logs,
    // SIGTERM, then wait; SIGKILL only if the gateway ignores the deadline.
    async stop({timeoutMs = 10000} = {}) {
      if (exit) return exit;
      proc.kill('SIGTERM');
      let timer;
      const result = await Promise.race(
          [exited, new Promise((resolve) => timer = setTimeout(resolve, timeoutMs, null))]);
      clearTimeout(timer);
      if (result) return result;
      proc.kill('SIGKILL');
      await exited;
      return {code: null, signal: 'SIGKILL', timedOut: true};
    },
  };
}

function readProcStat(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields follow the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {state: rest[0], ppid: Number(rest[1])};
  } catch {
    return null;
  }
}

function readArgv(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

// All live descendants of pid (children, grandchildren, …) with their
// command lines. A sandbox layer between the gateway and the server must not
// hide the server from the tests, hence descendants rather than children.
export function descendants(pid) {
  const parentOf = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcStat(entry);
    if (stat) parentOf.set(Number(entry), stat.ppid);
  }
  const found = [];
  const wanted = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of parentOf) {
      if (wanted.has(parent) && !wanted.has(child)) {
        wanted.add(child);
        const argv = readArgv(child);
        found.push({pid: child, argv, cmdline: argv.join(' ')});
        grew = true;
      }
    }
  }
  return found;
}

// The node processes running server-everything below the gateway; wrappers
// (a shell, a sandbox init) that merely carry the path in their argv are not.
export function everythingChildren(gatewayPid) {
  return descendants(gatewayPid).filter(
      ({argv}) => path.basename(argv[0] ?? '') === 'node' && argv.includes(EVERYTHING_INSIDE));
}

// 'gone', 'zombie' or 'alive': a zombie means nobody reaped the child.
export function processState(pid) {
  const stat = readProcStat(pid);
  if (!stat) return 'gone';
  return stat.state === 'Z' ? 'zombie' : 'alive';
}

export async function waitUntilGone(pids, timeoutMs = 5000) {
  await waitFor(() => pids.every((pid) => processState(pid) === 'gone'), {timeoutMs});
  return Object.fromEntries(pids.map((pid) => [pid, processState(pid)]));
}

export const SAMPLED_TEXT = 'sampled by the mcpgate e2e client';

// An SDK client that declares sampling and answers every sampling request.
export function newSamplingClient() {
  const client = new Client({name: 'mcpgate-e2e', version: '1.0.0'}, {capabilities: {sampling: {}}});
  client.samplingRequests = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    client.samplingRequests.push(request.params);
    return {role: 'assistant', model: 'e2e-model', content: {type: 'text', text: SAMPLED_TEXT}};
  });
  return client;
}

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

// The MCP flow every transport must carry, as [name, fn(client)] steps. Tool,
// argument, prompt and resource names are those of
// @modelcontextprotocol/server-everything 2026.8.31.
export const everythingSteps = [
  ['initialize: server identifies itself', async (client) => {
    assert.equal(client.getServerVersion()?.name, 'mcp-servers/everything');
    const caps = client.getServerCapabilities();
    assert.ok(caps?.tools && caps?.resources && caps?.prompts, `capabilities: ${JSON.stringify(caps)}`);
  }],
  ['tools/list: includes echo, progress and sampling tools', async (client) => {
    const {tools} = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['echo', 'trigger-long-running-operation', 'trigger-sampling-request']) {
      assert.ok(names.includes(name), `${name} missing from tools/list: ${names.join(', ')}`);
    }
  }],
  ['tools/call echo', async (client) => {
    const result = await client.callTool({name: 'echo', arguments: {message: 'hello through mcpgate'}});
    assert.equal(textOf(result), 'Echo: hello through mcpgate');
  }],
  ['tools/call with progress notifications', async (client) => {
    const progress = [];
    const result = await client.callTool(
        {name: 'trigger-long-running-operation', arguments: {duration: 1, steps: 4}}, undefined,
        {onprogress: (p) => progress.push({...p, at: Date.now()})});
    assert.match(textOf(result), /Long running operation completed/);
    assert.ok(progress.length >= 2, `expected >= 2 progress notifications, got ${JSON.stringify(progress)}`);
    // The SDK client may drop the last step when the result arrives right
    // behind it, so the sequence is checked for order, not completeness.
    const values = progress.map((p) => p.progress);
    assert.ok(values.every((v, i) => v === i + 1 && progress[i].total === 4),
        `progress out of order or wrong total: ${JSON.stringify(progress)}`);
    // Steps are 250 ms apart at the server: a client must see them as they
    // happen, not in one burst when the call ends (a burst spreads over a few
    // ms; the bound leaves room for a loaded machine).
    const spread = progress.at(-1).at - progress[0].at;
    assert.ok(spread >= 100 * (progress.length - 1),
        `progress arrived in a burst (${spread} ms for ${progress.length} steps), not streamed`);
  }],
  ['tools/call whose server asks the client for sampling', async (client) => {
    const before = client.samplingRequests.length;
    const result = await client.callTool(
        {name: 'trigger-sampling-request', arguments: {prompt: 'tell me about gateways', maxTokens: 20}});
    assert.equal(client.samplingRequests.length, before + 1, 'client saw no sampling/createMessage');
    const asked = client.samplingRequests.at(-1);
    assert.match(JSON.stringify(asked.messages), /tell me about gateways/);
    assert.ok(textOf(result).includes(SAMPLED_TEXT), `tool result lacks the client's answer: ${textOf(result)}`);
  }],
  ['resources/read', async (client) => {
    const uri = 'demo://resource/dynamic/text/1';
    const {contents} = await client.readResource({uri});
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, uri);
    assert.match(contents[0].text, /^Resource 1: This is a plaintext resource/);
  }],
  ['prompts/get', async (client) => {
    const {messages} = await client.getPrompt({name: 'simple-prompt'});
    assert.equal(messages[0].content.text, 'This is a simple prompt without arguments.');
  }],
];

export async function runSteps(t, client) {
  for (const [name, step] of everythingSteps) await t.test(name, () => step(client));
}

// Starts server-everything in its own Streamable HTTP mode (no gateway), on
// http://127.0.0.1:PORT/mcp.
export async function startEverythingHttp({timeoutMs = 15000} = {}) {
  const port = await freePort();
  const proc = spawn(process.execPath, [EVERYTHING_JS, 'streamableHttp'], {
    env: {...process.env, PORT: String(port)},
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = collectLines(proc.stdout);
  const stderr = collectLines(proc.stderr);
  let exit = null;
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve(exit = {code, signal})));
  const ready = await waitFor(
      () => exit || stderr.some((l) => l.includes(`listening on port ${port}`)), {timeoutMs});
  if (ready !== true) {
    proc.kill('SIGKILL');
    assert.fail(`server-everything streamableHttp did not start: ${JSON.stringify(exit)}\n` +
        [...stderr, ...stdout].join('\n'));
  }
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      if (exit) return exit;
      proc.kill('SIGTERM');
      return exited;
    },
  };
}
