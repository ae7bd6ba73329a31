// A stdio MCP server whose one tool, `fetch`, makes an HTTP request from inside
// its sandbox with the client named in the call: `node` (global fetch), `python`
// (urllib) or `curl`, each using only the proxy variables of its environment.
// The result text is "status <code> <body>" or "error <message>".
// `env` answers with the value of the environment variables named in the call.
import {execFile} from 'node:child_process';
import {createInterface} from 'node:readline';

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function run(file, args) {
  return new Promise((resolve) => {
    execFile(file, args, {timeout: 20000}, (error, stdout, stderr) => {
      resolve(error ? `error ${String(stderr || error.message).trim()}` : stdout.trim());
    });
  });
}

const kPython = [
  'import sys, urllib.request, urllib.error',
  'try:',
  '    r = urllib.request.urlopen(sys.argv[1], timeout=15)',
  '    print("status", r.status, r.read().decode())',
  'except urllib.error.HTTPError as e:',
  '    print("status", e.code, e.read().decode().strip())',
  'except Exception as e:',
  '    print("error", e)',
].join('\n');

async function fetchWith(client, url) {
  if (client === 'node') {
    try {
      const r = await fetch(url, {signal: AbortSignal.timeout(15000)});
      return `status ${r.status} ${(await r.text()).trim()}`;
    } catch (e) {
      return `error ${e.cause?.message ?? e.message}`;
    }
  }
  if (client === 'python') return run('/usr/bin/python3', ['-c', kPython, url]);
  if (client === 'curl') {
    const out = await run('/usr/bin/curl', ['-sS', '-m', '15', '-w', '\n%{http_code}', url]);
    if (out.startsWith('error')) return out;
    const lines = out.split('\n');
    const code = lines.pop();
    return `status ${code} ${lines.join('\n').trim()}`;
  }
  return `error unknown client ${client}`;
}

const rl = createInterface({input: process.stdin});
rl.on('line', async (line) => {
  const {id, method, params} = JSON.parse(line);
  if (method === 'initialize') {
    send({jsonrpc: '2.0', id, result: {protocolVersion: params.protocolVersion,
      capabilities: {tools: {}}, serverInfo: {name: 'egress-client', version: '1'}}});
  } else if (method === 'tools/list') {
    send({jsonrpc: '2.0', id, result: {tools: [
      {name: 'fetch', inputSchema: {type: 'object'}}, {name: 'env', inputSchema: {type: 'object'}}]}});
  } else if (method === 'tools/call') {
    const args = params.arguments ?? {};
    const text = params.name === 'env'
        ? JSON.stringify(Object.fromEntries((args.names ?? []).map((n) => [n, process.env[n] ?? null])))
        : await fetchWith(args.client, args.url);
    send({jsonrpc: '2.0', id, result: {content: [{type: 'text', text}]}});
  } else if (id !== undefined) {
    send({jsonrpc: '2.0', id, result: {}});
  }
});
