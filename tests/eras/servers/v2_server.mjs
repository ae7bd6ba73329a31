#!/usr/bin/env node
// An MCP server built on the official TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0), for mcpgate's two-era tests.
//
//   node v2_server.mjs [--legacy reject|serve] [--http [--port N]]
//
// stdio (default): `serveStdio` from `@modelcontextprotocol/server/stdio`.
//   --legacy reject   modern (2026-07-28) only: an `initialize` opening gets
//                     the unsupported-protocol-version error.
//   --legacy serve    both eras (the SDK's default): a legacy opening is
//                     served by a 2025-era instance of the same factory.
// --http: `createMcpHandler` behind node:http on 127.0.0.1 (port 0 unless
//   --port), path /mcp; logs `listening on port N` on stderr. `--legacy serve`
//   maps to the SDK's stateless legacy fallback (HTTP has no sessionful mode).
//
// Tools (one factory, both eras; input requests use the multi round-trip
// pattern, which the SDK's legacy shim turns into real server-to-client
// requests on a 2025-era connection):
//   echo {text}                 -> "echo: <text>"
//   region {region, text}       -> "region: <region>" (region: x-mcp-header Region)
//   pid {}                      -> the server's process id
//   progress {steps, ms}        -> progress notifications, then "done <steps>"
//   sample {prompt}             -> asks the client for sampling, returns its text
//   elicit {message}            -> asks the client for {name}, returns it
//   roots {}                    -> asks the client for its roots, returns their URIs
//   add-tool {name}             -> registers a tool; sends tools/list_changed
//   secret {}                   -> a text holding a fake AWS access key id
//   touch {}                    -> bumps demo://counter; sends resources/updated
// Resources: demo://counter (its text is the counter). Prompts: greet {name}.
//
// V2_SERVER_RECORD=FILE appends one line per tool call ("<tool> <era>") to FILE.
// V2_SERVER_HTTP_LOG=FILE (--http) appends one JSON line per HTTP request to
// FILE: {method, version, mcpMethod, mcpName, session} from its headers and
// `client`, the clientInfo name in the body's envelope; and {event: 'aborted', method,
// mcpMethod, mcpName, id} when the client closes a response before its end.

import fs from 'node:fs';
import http from 'node:http';
import process from 'node:process';

import {McpServer, acceptedContent, createMcpHandler, inputRequired} from '@modelcontextprotocol/server';
import {serveStdio} from '@modelcontextprotocol/server/stdio';
import {toNodeHandler} from '@modelcontextprotocol/node';

// A fake AWS access key id of the documented shape (AKIA + 16), never a real one.
export const FAKE_SECRET = 'AKIA4YSNI2G3IITN5XVK';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
};
const legacyMode = option('--legacy', 'serve');
if (legacyMode !== 'serve' && legacyMode !== 'reject') {
  process.stderr.write(`--legacy must be serve or reject, not ${legacyMode}\n`);
  process.exit(2);
}
const recordFile = process.env.V2_SERVER_RECORD;
const httpLog = process.env.V2_SERVER_HTTP_LOG;

// A hand-written Standard Schema with its JSON Schema: no schema library
// needed, and the arguments are checked here as the SDK would.
function objectSchema(properties, required = []) {
  const json = {type: 'object', properties, required};
  return {
    '~standard': {
      version: 1,
      vendor: 'mcpgate-tests',
      validate(value) {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          return {issues: [{message: 'arguments must be an object'}]};
        }
        for (const key of required) {
          if (!(key in value)) return {issues: [{message: `missing ${key}`, path: [key]}]};
        }
        for (const [key, spec] of Object.entries(properties)) {
          if (key in value && typeof value[key] !== spec.type.replace('integer', 'number')) {
            return {issues: [{message: `${key} must be a ${spec.type}`, path: [key]}]};
          }
        }
        return {value};
      },
      jsonSchema: {input: () => json, output: () => json},
    },
  };
}

const text = (value) => ({content: [{type: 'text', text: String(value)}]});
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// State shared by every instance the factory makes (HTTP makes one per request).
let counter = 0;
const addedTools = [];
const instances = new Set();
let httpHandler = null;

function record(tool, era) {
  if (recordFile) fs.appendFileSync(recordFile, `${tool} ${era}\n`);
}

function registerAdded(server, name) {
  server.registerTool(name, {description: `added at run time`, inputSchema: objectSchema({})},
      async () => text(`${name} called`));
}

function factory(ctx) {
  const era = ctx?.era ?? 'unknown';
  const server = new McpServer(
      {name: 'mcpgate-v2-test-server', version: '2.4.0-test'},
      {capabilities: {tools: {listChanged: true}, resources: {subscribe: true, listChanged: true},
        prompts: {}}});

  server.registerTool('echo', {description: 'Echoes its text', inputSchema: objectSchema(
      {text: {type: 'string'}}, ['text'])}, async ({text: value}) => {
    record('echo', era);
    return text(`echo: ${value}`);
  });

  // Its region is mirrored into an Mcp-Param-Region header over HTTP (x-mcp-header).
  server.registerTool('region', {description: 'Says which region it ran in', inputSchema: objectSchema(
      {region: {type: 'string', 'x-mcp-header': 'Region'}, text: {type: 'string'}}, ['region'])},
  async ({region}) => text(`region: ${region}`));

  server.registerTool('pid', {description: 'The process id of this server',
    inputSchema: objectSchema({})}, async () => {
    record('pid', era);
    return text(process.pid);
  });

  server.registerTool('progress', {description: 'Sends progress notifications',
    inputSchema: objectSchema({steps: {type: 'number'}, ms: {type: 'number'}})},
  async ({steps = 3, ms = 100}, c) => {
    record('progress', era);
    const token = c.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await sleep(ms);
      if (token !== undefined) {
        await c.mcpReq.notify({method: 'notifications/progress',
          params: {progressToken: token, progress: i, total: steps, message: `step ${i}`}});
      }
    }
    return text(`done ${steps}`);
  });

  server.registerTool('sample', {description: 'Asks the client for a sampling completion',
    inputSchema: objectSchema({prompt: {type: 'string'}}, ['prompt'])}, async ({prompt}, c) => {
    record('sample', era);
    const answer = c.mcpReq.inputResponses?.sample;
    if (!answer) {
      return inputRequired({inputRequests: {sample: inputRequired.createMessage({
        messages: [{role: 'user', content: {type: 'text', text: prompt}}], maxTokens: 50})}});
    }
    const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
    return text(`sampled: ${content?.text ?? JSON.stringify(answer)}`);
  });

  server.registerTool('elicit', {description: 'Asks the user for a name',
    inputSchema: objectSchema({message: {type: 'string'}}, ['message'])}, async ({message}, c) => {
    record('elicit', era);
    const responses = c.mcpReq.inputResponses;
    if (!responses?.who) {
      return inputRequired({inputRequests: {who: inputRequired.elicit({message,
        requestedSchema: {type: 'object', properties: {name: {type: 'string'}}, required: ['name']}})}});
    }
    const content = acceptedContent(responses, 'who');
    return text(content ? `hello ${content.name}` : `elicitation ${responses.who.action}`);
  });

  server.registerTool('roots', {description: 'Asks the client for its roots',
    inputSchema: objectSchema({})}, async (_args, c) => {
    record('roots', era);
    const answer = c.mcpReq.inputResponses?.roots;
    if (!answer) return inputRequired({inputRequests: {roots: inputRequired.listRoots()}});
    return text(`roots: ${(answer.roots ?? []).map((r) => r.uri).join(',')}`);
  });

  server.registerTool('add-tool', {description: 'Adds a tool and announces the changed list',
    inputSchema: objectSchema({name: {type: 'string'}}, ['name'])}, async ({name}) => {
    record('add-tool', era);
    if (!addedTools.includes(name)) {
      addedTools.push(name);
      // Every live instance learns the tool; each registration makes the SDK
      // send notifications/tools/list_changed on its own connection (stdio).
      for (const other of instances) registerAdded(other, name);
      httpHandler?.notify.toolsChanged();
    }
    return text(`added ${name}`);
  });

  server.registerTool('secret', {description: 'Returns a fake credential',
    inputSchema: objectSchema({})}, async () => {
    record('secret', era);
    return text(`the key is ${FAKE_SECRET}`);
  });

  server.registerTool('touch', {description: 'Bumps demo://counter',
    inputSchema: objectSchema({})}, async () => {
    record('touch', era);
    counter += 1;
    for (const other of instances) {
      await other.server.sendResourceUpdated({uri: 'demo://counter'}).catch(() => {});
    }
    httpHandler?.notify.resourceUpdated('demo://counter');
    return text(`counter ${counter}`);
  });

  server.registerResource('counter', 'demo://counter', {mimeType: 'text/plain'},
      async (uri) => ({contents: [{uri: uri.href, mimeType: 'text/plain', text: String(counter)}]}));

  server.registerPrompt('greet', {description: 'A greeting',
    argsSchema: objectSchema({name: {type: 'string'}}, ['name'])},
  async ({name}) => ({messages: [{role: 'user', content: {type: 'text', text: `Hello ${name}`}}]}));

  for (const name of addedTools) registerAdded(server, name);
  // stdio keeps one instance per connection; HTTP makes one per request and
  // announces changes through its handler instead, so nothing is kept there.
  if (httpHandler) return server;
  instances.add(server);
  const close = server.close.bind(server);
  server.close = async () => {
    instances.delete(server);
    return close();
  };
  return server;
}

if (flag('--http')) {
  httpHandler = createMcpHandler(factory, {legacy: legacyMode === 'reject' ? 'reject' : 'stateless'});
  const node = toNodeHandler(httpHandler);
  const server = http.createServer((req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (!httpLog) {
      node(req, res);
      return;
    }
    // Read here to log who sent it; handed on parsed (toNodeHandler takes a parsed body).
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let body;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      } catch {
        body = undefined;
      }
      const header = (name) => req.headers[name] ?? null;
      const client = body?.params?._meta?.['io.modelcontextprotocol/clientInfo']?.name ?? null;
      fs.appendFileSync(httpLog, JSON.stringify({method: req.method,
        version: header('mcp-protocol-version'), mcpMethod: header('mcp-method'),
        mcpName: header('mcp-name'), session: header('mcp-session-id'), client}) + '\n');
      // A response closed before it was finished: the client (the gateway) went away, which on
      // a modern connection is how a request is cancelled.
      res.on('close', () => {
        if (!res.writableFinished) {
          fs.appendFileSync(httpLog, JSON.stringify({event: 'aborted', method: req.method,
            mcpMethod: header('mcp-method'), mcpName: header('mcp-name'), id: body?.id ?? null}) + '\n');
        }
      });
      node(req, res, body);
    });
  });
  server.listen(Number(option('--port', '0')), '127.0.0.1', () => {
    process.stderr.write(`listening on port ${server.address().port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  serveStdio(factory, {legacy: legacyMode, onerror: (error) => process.stderr.write(`${error.message}\n`)});
}
