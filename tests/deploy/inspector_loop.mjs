// What a client that never ends its sessions leaves behind: the MCP Inspector
// CLI makes one session per call (initialize, the call, exit without DELETE).
// Runs the real Inspector CLI CALLS times against the real gateway on
// 127.0.0.1 with server-everything sandboxed, and prints how many servers are
// alive after each call and at the end, with session.max_per_client = LIMIT
// (0: no limit). Exit 1 when more than LIMIT stay alive.
//
// usage: node tests/deploy/inspector_loop.mjs INSPECTOR_DIR [CALLS=50] [LIMIT=16]
//   INSPECTOR_DIR: a folder with node_modules/@modelcontextprotocol/inspector
//   (npm install @modelcontextprotocol/inspector there; it is not a test dependency).
import {execFile} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import {everythingChildren, everythingServerLines, startGateway} from '../e2e/lib.mjs';

const [inspectorDir, callsArg = '50', limitArg = '16'] = process.argv.slice(2);
if (!inspectorDir) {
  console.error('usage: node tests/deploy/inspector_loop.mjs INSPECTOR_DIR [CALLS] [LIMIT]');
  process.exit(2);
}
const calls = Number(callsArg);
const limit = Number(limitArg);
const cli = path.join(inspectorDir, 'node_modules/.bin/mcp-inspector');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpgate-inspector-'));
fs.chmodSync(dir, 0o755);
const config = path.join(dir, 'mcpgate.yaml');
fs.writeFileSync(config, ['listen: 127.0.0.1:0', 'servers:', ...everythingServerLines(),
  // The idle timeout stays long: without the limit, every call's server would live this long.
  `session: {idle_timeout: 300s, grace: 2s, max_per_client: ${limit}}`,
  `state_dir: ${JSON.stringify(path.join(dir, 'state'))}`, ''].join('\n'));
const gw = await startGateway(config);
// Inspector CLI 0.15 sends any URL that does not end in /mcp to /mcp: the aggregate endpoint.
const url = `http://127.0.0.1:${gw.port}/mcp`;
let peak = 0;
let failed = 0;
const start = Date.now();
for (let i = 0; i < calls; ++i) {
  // Asynchronously: this process must keep reading the gateway's log pipes.
  const r = await new Promise((resolve) => execFile(cli, ['--cli', url, '--transport', 'http',
    '--method', 'tools/call', '--tool-name', 'everything__echo', '--tool-arg', `message=call ${i}`],
  {encoding: 'utf8', timeout: 60000},
  (error, stdout, stderr) => resolve({status: error ? (error.code ?? 'killed') : 0, stdout, stderr})));
  if (r.status !== 0 || !r.stdout.includes(`call ${i}`)) {
    ++failed;
    console.log(`call ${i}: exit ${r.status}: ${(r.stdout + r.stderr).slice(0, 300)}`);
  }
  const alive = everythingChildren(gw.proc.pid).length;
  peak = Math.max(peak, alive);
  if (i % 10 === 9 || i === calls - 1) console.log(`after call ${i + 1}: ${alive} servers alive`);
}
const alive = everythingChildren(gw.proc.pid).length;
console.log(JSON.stringify({calls, failed, max_per_client: limit, alive_at_end: alive, peak,
  seconds: Math.round((Date.now() - start) / 1000)}));
await gw.stop();
fs.rmSync(dir, {recursive: true, force: true});
process.exit(failed === 0 && (limit === 0 || peak <= limit) ? 0 : 1);
