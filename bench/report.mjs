// The report of bench/run.mjs: its section of bench/RESULTS.md (the goals
// and the tables) and the PNG plots, drawn with gnuplot. `run` is what the
// harness measured: {results, plan, options, systems: {all, latency}, work}.

import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const BEGIN = '<!-- bench/run.mjs: begin (generated; edit the harness, not this section) -->';
const END = '<!-- bench/run.mjs: end -->';

export const fmt = (n, digits = 0) => Number(n).toLocaleString('en-US',
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

function goals({results, plan}) {
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

export function report(run, command) {
  const {results, plan, options, systems} = run;
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
  parts.push(`### Goals\n\n${goals(run)}`);

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
          systems.all.indexOf(a.system) - systems.all.indexOf(b.system)).map((r) => r.failed ? [
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

// Replaces the generated section of `file` (or appends it), keeping the text around it.
export function writeResults(file, text) {
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Results\n';
  const section = `${BEGIN}\n${text}\n${END}`;
  const begin = old.indexOf(BEGIN);
  const end = old.indexOf(END);
  const next = begin >= 0 && end > begin ?
    old.slice(0, begin) + section + old.slice(end + END.length) :
    `${old.trimEnd()}\n\n${section}\n`;
  fs.writeFileSync(file, next);
}

export function plot(run) {
  const {results, plan, options, systems, work} = run;
  fs.mkdirSync(options.plots, {recursive: true});
  const data = (name, rows) => {
    const file = path.join(work, name);
    fs.writeFileSync(file, rows.map((r) => r.join(' ')).join('\n') + '\n');
    return file;
  };
  const throughputSeries = systems.all.map((system) => data(`tp-${system}.dat`,
      results.throughput.filter((r) => r.system === system && r.payload === 4096 && !r.secrets && !r.failed &&
          plan.concurrency.includes(r.sessions)).sort((a, b) => a.sessions - b.sessions)
          .map((r) => [r.sessions, r.calls_per_s])));
  const latencySeries = systems.latency.map((system) => data(
      `lat-${system}.dat`, results.latency.filter((r) => r.system === system)
          .map((r) => [r.calls_per_s, r.latency_us.p50, r.latency_us.p99, r.latency_us.p999])));
  const script = [
    'set terminal pngcairo size 900,560 noenhanced font ",10"',
    `set output ${JSON.stringify(path.join(options.plots, 'throughput.png'))}`,
    'set title "tools/call throughput, 4 KiB arguments and results"',
    'set xlabel "concurrent MCP sessions"', 'set ylabel "calls per second"',
    'set logscale x 2', 'set logscale y 10', 'set grid', 'set key outside right',
    'plot ' + systems.all.map((s, i) => `${JSON.stringify(throughputSeries[i])} using 1:2 ` +
        `with linespoints lw 2 title ${JSON.stringify(s)}`).join(', '),
    'unset logscale',
    `set output ${JSON.stringify(path.join(options.plots, 'latency.png'))}`,
    'set title "latency against load, 16 sessions, 4 KiB"',
    'set xlabel "achieved calls per second"', 'set ylabel "latency (µs)"',
    'set logscale y 10',
    // Each system in the colour it has in the throughput plot.
    'plot ' + systems.latency.flatMap((s, i) => [
      `${JSON.stringify(latencySeries[i])} using 1:2 with linespoints lw 2 ` +
          `lc ${systems.all.indexOf(s) + 1} title "${s} p50"`,
      `${JSON.stringify(latencySeries[i])} using 1:3 with linespoints dt 2 ` +
          `lc ${systems.all.indexOf(s) + 1} title "${s} p99"`,
    ]).join(', '),
  ].join('\n');
  const gnuplot = spawnSync('gnuplot', [], {input: script});
  if (gnuplot.status !== 0) throw new Error(`gnuplot failed: ${gnuplot.stderr}`);
}
