#!/usr/bin/env node
// A remote MCP server for mcpgate's tests: the official SDK's
// StreamableHTTPServerTransport (stateful, a session per initialize) over
// node's http or https module, on 127.0.0.1.
//
// Options:
//   --port N            port to listen on (0: any free one)
//   --cert F --key F    serve HTTPS with this certificate and key (PEM)
//   --client-ca F       require a client certificate signed by this CA
//   --record F          append one JSON line per HTTP request received:
//                       {method, headers, body}: the proof of what reached it
//   --require-header H=V  answer 401 to requests without header H set to V
//   --json              answer POSTs with JSON instead of an SSE stream
// Prints {"port": N} on stdout once it listens.
//
// Tools: echo {text}, aws_key {} (returns a text holding a fake AWS key),
// big {bytes} (a text of that many x), announce {} (answers, then sends
// notifications/tools/list_changed on the GET stream), sample {text} (asks
// the client for sampling/createMessage), progress {steps} (one progress
// notification per step, 50 ms apart), flood {count, bytes} (count
// notifications/message of about bytes each on the call's SSE stream, written
// as the socket drains, as a well-behaved server does, then the answer).

import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import {randomUUID} from 'node:crypto';

import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {StreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {isInitializeRequest} from '@modelcontextprotocol/sdk/types.js';
import {z} from 'zod';

export const FAKE_AWS_KEY = 'AKIA4YSNI2G3IITN5XVK';

const options = {port: 0};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const flag = argv[i];
  const value = () => argv[++i];
  if (flag === '--port') options.port = Number(value());
  else if (flag === '--cert') options.cert = value();
  else if (flag === '--key') options.key = value();
  else if (flag === '--client-ca') options.clientCa = value();
  else if (flag === '--record') options.record = value();
  else if (flag === '--require-header') options.requireHeader = value();
  else if (flag === '--json') options.json = true;
  else throw new Error(`unknown option ${flag}`);
}

function newServer() {
  const server = new McpServer({name: 'mcpgate-remote-test', version: '1.0.0'});
  server.tool('echo', 'Returns its text argument', {text: z.string()},
      async ({text}) => ({content: [{type: 'text', text}]}));
  server.tool('aws_key', 'Returns a text holding an AWS access key id', {},
      async () => ({content: [{type: 'text', text: `the key is ${FAKE_AWS_KEY} here`}]}));
  server.tool('big', 'Answers with a text of that many x characters', {bytes: z.number()},
      async ({bytes}) => ({content: [{type: 'text', text: 'x'.repeat(bytes)}]}));
  server.tool('announce', 'Answers, then 200 ms later says its tool list changed (a message ' +
      'outside any request: it goes on the GET stream)', {},
      async () => {
        setTimeout(() => server.sendToolListChanged(), 200);
        return {content: [{type: 'text', text: 'announcing'}]};
      });
  server.tool('sample', 'Asks the client for sampling/createMessage and returns its text',
      {text: z.string()},
      async ({text}, extra) => {
        // On the call's own stream, as the spec asks of a request that belongs
        // to one: on the GET stream it would be lost whenever the tool ran
        // before the gateway's GET was open (the SDK server drops messages
        // for a stream that is not there), which made this test flaky.
        const answer = await server.server.createMessage(
            {messages: [{role: 'user', content: {type: 'text', text}}], maxTokens: 10},
            {relatedRequestId: extra.requestId});
        return {content: [{type: 'text', text: `sampled: ${answer.content.text}`}]};
      });
  server.tool('progress', 'Sends one progress notification per step', {steps: z.number()},
      async ({steps}, extra) => {
        const token = extra._meta?.progressToken;
        for (let i = 1; i <= steps; i++) {
          if (token !== undefined) {
            await extra.sendNotification({method: 'notifications/progress',
              params: {progressToken: token, progress: i, total: steps}});
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return {content: [{type: 'text', text: `done ${steps} steps`}]};
      });
  return server;
}

const transports = new Map();  // session id -> transport

function record(req, body) {
  if (!options.record) return;
  fs.appendFileSync(options.record,
      JSON.stringify({method: req.method, headers: req.headers, body}) + '\n');
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req, res) {
  const body = req.method === 'POST' ? await readBody(req) : '';
  record(req, body);
  if (options.requireHeader) {
    const [name, expected] = options.requireHeader.split(/=(.*)/s);
    if (req.headers[name.toLowerCase()] !== expected) {
      res.writeHead(401, {'Content-Type': 'application/json'}).end('{"error":"unauthorized"}');
      return;
    }
  }
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? transports.get(sessionId) : undefined;
  let parsed;
  if (req.method === 'POST') {
    try {
      parsed = JSON.parse(body);
    } catch {
      res.writeHead(400).end();
      return;
    }
  }
  if (!transport) {
    if (sessionId) {
      res.writeHead(404, {'Content-Type': 'application/json'}).end(
          '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(parsed)) {
      res.writeHead(400).end();
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: Boolean(options.json),
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await newServer().connect(transport);
  }
  if (parsed?.method === 'tools/call' && parsed.params?.name === 'flood') {
    await flood(res, parsed);  // past the SDK: its SSE writes do not wait for the socket
    return;
  }
  await transport.handleRequest(req, res, parsed);
}

async function flood(res, request) {
  const {count = 0, bytes = 1000} = request.params.arguments ?? {};
  res.writeHead(200, {'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache'});
  const event = (message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;
  const data = 'f'.repeat(bytes);
  for (let i = 0; i < count && !res.destroyed; i++) {
    const line = event({jsonrpc: '2.0', method: 'notifications/message',
      params: {level: 'info', data}});
    if (!res.write(line)) {
      await new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      });
    }
  }
  res.end(event({jsonrpc: '2.0', id: request.id,
    result: {content: [{type: 'text', text: `flooded ${count}`}]}}));
}

const listener = (req, res) => {
  handle(req, res).catch((error) => {
    process.stderr.write(`remote_server: ${error.stack}\n`);
    if (!res.headersSent) res.writeHead(500).end();
  });
};

const server = options.cert
  ? https.createServer({
    cert: fs.readFileSync(options.cert),
    key: fs.readFileSync(options.key),
    ...(options.clientCa
      ? {ca: fs.readFileSync(options.clientCa), requestCert: true, rejectUnauthorized: true}
      : {}),
  }, listener)
  : http.createServer(listener);
server.listen(options.port, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({port: server.address().port}) + '\n');
});
process.on('SIGTERM', () => process.exit(0));
