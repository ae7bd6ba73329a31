// Processes for bench/run.mjs: starting the systems, and the CPU time and
// memory of a process tree. `children` holds every child still running;
// run.mjs kills them if it exits early.

import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const children = new Set();
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim()) || 100;

// CPU seconds of a process and every live descendant, counting the children
// each of them has reaped: the delta of two readings is what the tree used.
export function treeCpu(root) {
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

export function rssKiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
}

// Starts a long-lived process; resolves once `ready(line)` returns a value
// for a line of its stdout or stderr. Its output goes to NAME.log in `logDir`.
export async function startProcess(name, command, args, ready, {logDir, env, poll}) {
  // The process writes its output straight to its log file, which is read
  // for the ready line: relaying it through this script would put Node.js on
  // the cores being measured for every line (a DLP finding is a log line).
  const logFile = path.join(logDir, `${name}.log`);
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

export function portFrom(regex) {
  return (line) => {
    const m = regex.exec(line);
    return m ? Number(m[1]) : null;
  };
}
