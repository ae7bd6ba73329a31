// The v2 SDK test server (servers/v2_server.mjs) over Streamable HTTP on
// 127.0.0.1, port 0, as a remote (`url:`) upstream for the era tests.

import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const V2_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'servers/v2_server.mjs');

// Starts it with `--legacy reject|serve`; with `logFile`, the server writes one
// JSON line per HTTP request it receives there (see v2_server.mjs), read back
// by log(). stop() ends it.
export async function startV2Http(legacy, {logFile} = {}) {
  const env = logFile ? {...process.env, V2_SERVER_HTTP_LOG: logFile} : process.env;
  const proc = spawn(process.execPath, [V2_SERVER, '--http', '--legacy', legacy],
      {stdio: ['ignore', 'ignore', 'pipe'], env});
  const port = await new Promise((resolve, reject) => {
    let seen = '';
    proc.stderr.on('data', (chunk) => {
      seen += chunk;
      const match = /listening on port (\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    proc.on('exit', (code) => reject(new Error(`v2 server (--legacy ${legacy}) exited ${code}: ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log: () => (logFile && fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '')
        .split('\n').filter(Boolean).map((line) => JSON.parse(line)),
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.on('exit', () => resolve());
      proc.kill();
    }),
  };
}
