#!/usr/bin/env node
// A legacy (2025-11-25) Streamable HTTP MCP server that closes a POST's SSE
// stream after a priming event, as the 2025-11-25 spec allows (SEP-1699): the
// stream opens with `id: <n>` and `retry: <ms>` and empty data, then ends; the
// answer waits for a GET carrying `Last-Event-ID: <n>`. A GET without one is
// refused with 405 (no standalone stream). Plain node:http on 127.0.0.1, no
// SDK: it does exactly this and nothing else.
//
//   node resuming_server.mjs [--retry MS] [--record FILE]
// Prints {"port": N} on stdout once it listens. --record appends one JSON
// line per HTTP request: {method, lastEventId, body}.
//
// Tools: echo {text} (answered on the resumed stream), direct {text}
// (answered on the POST's stream, no resumption).

import fs from 'node:fs';
import http from 'node:http';
import {randomUUID} from 'node:crypto';

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : fallback;
};
const retryMs = Number(option('--retry', '100'));
const record = option('--record');

const sessionId = randomUUID();
let nextEvent = 1;
// Event id of a priming event -> the answer waiting for its resumption.
const waiting = new Map();

function sse(res) {
  res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache',
    'Mcp-Session-Id': sessionId});
}

function answer(message) {
  const {id, method, params} = message;
  if (method === 'initialize') {
    return {jsonrpc: '2.0', id, result: {protocolVersion: '2025-11-25',
      capabilities: {tools: {}}, serverInfo: {name: 'resuming-server', version: '1.0.0'}}};
  }
  if (method === 'tools/list') {
    const schema = {type: 'object', properties: {text: {type: 'string'}}, required: ['text']};
    return {jsonrpc: '2.0', id, result: {tools: [
      {name: 'echo', description: 'Answers on a resumed stream', inputSchema: schema},
      {name: 'direct', description: 'Answers on the POST stream', inputSchema: schema}]}};
  }
  if (method === 'tools/call') {
    return {jsonrpc: '2.0', id, result: {content: [{type: 'text', text: `echo: ${params.arguments.text}`}]}};
  }
  if (method === 'ping') return {jsonrpc: '2.0', id, result: {}};
  return {jsonrpc: '2.0', id, error: {code: -32601, message: `no method ${method}`}};
}

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => body += chunk);
  req.on('end', () => {
    const lastEventId = req.headers['last-event-id'];
    if (record) fs.appendFileSync(record, JSON.stringify({method: req.method, lastEventId, body}) + '\n');
    if (req.method === 'GET') {
      const pending = lastEventId && waiting.get(lastEventId);
      if (!pending) {
        res.writeHead(405).end();
        return;
      }
      waiting.delete(lastEventId);
      sse(res);
      res.end(`id: ${nextEvent++}\ndata: ${JSON.stringify(pending)}\n\n`);
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(200).end();
      return;
    }
    const message = JSON.parse(body);
    if (message.id === undefined) {
      res.writeHead(202, {'Mcp-Session-Id': sessionId}).end();
      return;
    }
    const response = answer(message);
    if (message.method === 'tools/call' && message.params?.name === 'echo') {
      // Prime, then close: the answer comes only on a resumed stream.
      const event = String(nextEvent++);
      waiting.set(event, response);
      sse(res);
      res.end(`id: ${event}\nretry: ${retryMs}\ndata: \n\n`);
      return;
    }
    res.writeHead(200, {'Content-Type': 'application/json', 'Mcp-Session-Id': sessionId});
    res.end(JSON.stringify(response));
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({port: server.address().port}) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
