#!/usr/bin/env node
// A small MCP server for mcpgate's integration tests: MCP stdio transport
// (newline-delimited JSON-RPC on stdin/stdout), no dependencies.
//
// Every received message is recorded on stderr as one line
// `recv <method>` (or `recv response` for a response from the client), so a
// test can see what actually reached the server through the gateway.
//
// TEST_SERVER_RECORD=FILE also appends every received line, verbatim, to FILE:
// the proof of what did (or did not) reach the server, content included.
//
// Tools: echo {text}, region {region, query} (region is x-mcp-header: Region), crash {}, hang {}, slow {ms}, progress {steps},
// sample {text}, log {text}, big {bytes}, stderr {lines, text}, env {name}, pid {}, instance {},
// flood {count, bytes}, close-stdout {}.
// TEST_SERVER_IGNORE_SIGTERM=1 makes the process ignore SIGTERM.
// TEST_SERVER_DESCRIPTIONS='{"echo":"..."}' replaces tool descriptions at start.
// mutate {tool, description} changes a tool's description at run time and
// sends notifications/tools/list_changed (a "rug pull", for tool pinning).

import crypto from 'node:crypto';
import fs from 'node:fs';
import process from 'node:process';

const kInstance = crypto.randomUUID();

const recordFile = process.env.TEST_SERVER_RECORD;

const kSupportedVersions = ['2025-03-26', '2025-06-18', '2025-11-25'];
const kDefaultVersion = '2025-06-18';

if (process.env.TEST_SERVER_IGNORE_SIGTERM === '1') {
  process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\n'));
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

function textResult(text) {
  return {content: [{type: 'text', text: String(text)}]};
}

function reply(id, result) {
  send({jsonrpc: '2.0', id, result});
}

function replyError(id, code, message) {
  send({jsonrpc: '2.0', id, error: {code, message}});
}

// Server-to-client requests waiting for the client's response, by id.
const pendingClientRequests = new Map();
let nextClientRequest = 1;

function requestClient(method, params) {
  const id = `s-${nextClientRequest++}`;
  return new Promise((resolve) => {
    pendingClientRequests.set(id, resolve);
    send({jsonrpc: '2.0', id, method, params});
  });
}

const tools = {
  echo: {
    description: 'Returns its text argument',
    properties: {text: {type: 'string'}},
    run: (id, args) => reply(id, textResult(args.text ?? '')),
  },
  // A parameter a 2026-07-28 client mirrors into an Mcp-Param-Region header.
  region: {
    description: 'Returns its region argument',
    properties: {region: {type: 'string', 'x-mcp-header': 'Region'}, query: {type: 'string'}},
    run: (id, args) => reply(id, textResult(`region ${args.region ?? '<none>'}`)),
  },
  crash: {
    description: 'Writes to stderr and exits with status 3 without answering',
    properties: {},
    run: () => {
      // stderr to a pipe or file is synchronous on Linux: the line is out before exit.
      process.stderr.write('test server crashing on purpose\n');
      process.exit(3);
    },
  },
  hang: {
    description: 'Never answers',
    properties: {},
    run: () => {},
  },
  slow: {
    description: 'Answers after ms milliseconds',
    properties: {ms: {type: 'number'}},
    run: (id, args) => {
      const ms = Number(args.ms ?? 0);
      setTimeout(() => reply(id, textResult(`slept ${ms} ms`)), ms);
    },
  },
  progress: {
    description: 'Sends one progress notification per step, then answers',
    properties: {steps: {type: 'number'}},
    run: (id, args, params) => {
      const steps = Number(args.steps ?? 0);
      const token = params?._meta?.progressToken;
      if (token !== undefined) {
        for (let i = 1; i <= steps; i++) {
          send({
            jsonrpc: '2.0',
            method: 'notifications/progress',
            params: {progressToken: token, progress: i, total: steps},
          });
        }
      }
      reply(id, textResult(`done ${steps} steps`));
    },
  },
  sample: {
    description: 'Asks the client for sampling/createMessage (with text as the prompt) and ' +
        'returns its text',
    properties: {text: {type: 'string'}},
    run: async (id, args) => {
      const response = await requestClient('sampling/createMessage', {
        messages: [{role: 'user', content: {type: 'text', text: args.text ?? 'say something'}}],
        maxTokens: 10,
      });
      if (response.error) {
        replyError(id, -32603, `sampling failed: ${response.error.message}`);
        return;
      }
      reply(id, textResult(response.result?.content?.text ?? ''));
    },
  },
  log: {
    description: 'Sends notifications/message with its text, then answers',
    properties: {text: {type: 'string'}},
    run: (id, args) => {
      send({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: {level: 'info', data: args.text ?? ''},
      });
      reply(id, textResult('logged'));
    },
  },
  deaf: {
    description: 'Answers, then never reads its stdin again (a stuck server)',
    properties: {},
    run: (id) => {
      reply(id, textResult('not listening any more'));
      process.stdin.pause();
      setInterval(() => {}, 60_000);  // paused stdin alone would let node exit
    },
  },
  'close-stdout': {
    description: 'Closes its stdout and stays alive without answering (a broken server)',
    properties: {},
    run: () => {
      fs.closeSync(1);
      setInterval(() => {}, 60_000);
    },
  },
  flood: {
    description: 'Sends count notifications/message of about bytes each (waiting for stdout ' +
        'to drain, as a well-behaved server does), then answers',
    properties: {count: {type: 'number'}, bytes: {type: 'number'}},
    run: async (id, args) => {
      const count = Number(args.count ?? 0);
      const data = 'f'.repeat(Number(args.bytes ?? 1000));
      for (let i = 0; i < count; i++) {
        const line = JSON.stringify(
            {jsonrpc: '2.0', method: 'notifications/message', params: {level: 'info', data}});
        if (!process.stdout.write(line + '\n')) {
          await new Promise((resolve) => process.stdout.once('drain', resolve));
        }
      }
      reply(id, textResult(`flooded ${count}`));
    },
  },
  big: {
    description: 'Answers with a text of that many x characters',
    properties: {bytes: {type: 'number'}},
    run: (id, args) => reply(id, textResult('x'.repeat(Number(args.bytes ?? 0)))),
  },
  stderr: {
    description: 'Writes that many lines to stderr (or `text` as one line), then answers',
    properties: {lines: {type: 'number'}, text: {type: 'string'}},
    run: (id, args) => {
      const lines = Number(args.lines ?? 0);
      let text = args.text === undefined ? '' : `${args.text}\n`;
      for (let i = 1; i <= lines; i++) text += `stderr line ${i}\n`;
      process.stderr.write(text, () => reply(id, textResult(`wrote ${lines} lines`)));
    },
  },
  env: {
    description: 'Answers with the value of an environment variable, or <unset>',
    properties: {name: {type: 'string'}},
    run: (id, args) => reply(id, textResult(process.env[args.name] ?? '<unset>')),
  },
  pid: {
    description: 'Answers with the process id',
    properties: {},
    run: (id) => reply(id, textResult(process.pid)),
  },
  // In a sandbox's pid namespace every server is the same pid: this tells processes apart.
  instance: {
    description: 'Answers with a random id this process drew at start',
    properties: {},
    run: (id) => reply(id, textResult(kInstance)),
  },
};

tools.mutate = {
  description: 'Changes the description of another tool, then sends ' +
      'notifications/tools/list_changed',
  properties: {tool: {type: 'string'}, description: {type: 'string'}},
  run: (id, args) => {
    const tool = tools[args.tool];
    if (!tool) {
      replyError(id, -32602, `unknown tool: ${args.tool}`);
      return;
    }
    tool.description = String(args.description ?? '');
    send({jsonrpc: '2.0', method: 'notifications/tools/list_changed'});
    reply(id, textResult(`changed ${args.tool}`));
  },
};

if (process.env.TEST_SERVER_DESCRIPTIONS) {
  for (const [name, description] of Object.entries(JSON.parse(process.env.TEST_SERVER_DESCRIPTIONS))) {
    if (tools[name]) tools[name].description = description;
  }
}

function toolList() {
  return Object.entries(tools).map(([name, tool]) => ({
    name,
    description: tool.description,
    inputSchema: {type: 'object', properties: tool.properties},
  }));
}

function handleRequest(message) {
  const {id, method, params} = message;
  switch (method) {
    case 'initialize': {
      const asked = params?.protocolVersion;
      reply(id, {
        protocolVersion: kSupportedVersions.includes(asked) ? asked : kDefaultVersion,
        capabilities: {tools: {}},
        serverInfo: {name: 'mcpgate-test-server', version: '1.0.0'},
      });
      return;
    }
    case 'ping':
      reply(id, {});
      return;
    case 'tools/list':
      reply(id, {tools: toolList()});
      return;
    case 'tools/call': {
      const tool = tools[params?.name];
      if (!tool) {
        replyError(id, -32602, `unknown tool: ${params?.name}`);
        return;
      }
      tool.run(id, params.arguments ?? {}, params);
      return;
    }
    default:
      replyError(id, -32601, `method not found: ${method}`);
  }
}

function handleLine(line) {
  if (line.trim() === '') return;
  if (recordFile) fs.appendFileSync(recordFile, line + '\n');
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    process.stderr.write('recv unparseable\n');
    replyError(null, -32700, 'parse error');
    return;
  }
  const isResponse = message.method === undefined &&
      ('result' in message || 'error' in message);
  process.stderr.write(`recv ${isResponse ? 'response' : message.method}\n`);
  if (isResponse) {
    const resolve = pendingClientRequests.get(message.id);
    if (resolve) {
      pendingClientRequests.delete(message.id);
      resolve(message);
    }
    return;
  }
  if (message.id === undefined) return;  // a notification: never answered
  handleRequest(message);
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    handleLine(line);
  }
});
// Exit when the client closes stdin, even with a hanging call or timers pending.
// TEST_SERVER_IGNORE_SIGTERM=1 plays a stuck server: it outlives both.
process.stdin.on('end', () => {
  if (process.env.TEST_SERVER_IGNORE_SIGTERM === '1') setInterval(() => {}, 1000);
  else process.exit(0);
});
// The client went away: nothing left to answer.
process.stdout.on('error', () => process.exit(0));
