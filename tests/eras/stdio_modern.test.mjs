// A modern (2026-07-28) client of `mcpgate stdio` in front of a 2025-era
// server (server-everything), line by line: what the gateway answers on the
// pipe. The official v2 SDK client pinned to 2026-07-28 over the same path is
// in pair_matrix.test.mjs ('v2-pinned everything stdio').
//
//   node --test stdio_modern.test.mjs          (MCPGATE_BIN: the binary)

import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import readline from 'node:readline';
import {after, test} from 'node:test';

import {MCPGATE_BIN, writeEverythingConfig} from '../e2e/lib.mjs';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': {name: 'raw', version: '1'},
  'io.modelcontextprotocol/clientCapabilities': {},
};

// mcpgate stdio with the client's side as JSON lines in and out.
function startStdio(config) {
  const child = spawn(MCPGATE_BIN, ['stdio', '-c', config, 'everything'],
      {stdio: ['pipe', 'pipe', 'ignore']});
  const waiting = new Map();  // id -> resolve
  const lines = readline.createInterface({input: child.stdout});
  lines.on('line', (line) => {
    const message = JSON.parse(line);
    if (message.id !== undefined && waiting.has(message.id)) {
      waiting.get(message.id)(message);
      waiting.delete(message.id);
    }
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    ask(message) {
      const answered = new Promise((resolve) => waiting.set(message.id, resolve));
      child.stdin.write(JSON.stringify(message) + '\n');
      return answered;
    },
    async end() {
      child.stdin.end();
      return exited;
    },
  };
}

const config = writeEverythingConfig();
let gateway;
after(async () => {
  await gateway?.end();
});

test('modern requests on mcpgate stdio to a 2025-era server', async () => {
  gateway = startStdio(config);
  const discovered = await gateway.ask(
      {jsonrpc: '2.0', id: 1, method: 'server/discover', params: {_meta: META}});
  assert.deepEqual(discovered.result?.supportedVersions, ['2026-07-28'], JSON.stringify(discovered));
  assert.match(discovered.result._meta['io.modelcontextprotocol/serverInfo'].name, /everything/);

  const echoed = await gateway.ask({jsonrpc: '2.0', id: 'e', method: 'tools/call',
    params: {name: 'echo', arguments: {message: 'on a pipe'}, _meta: META}});
  assert.equal(echoed.result?.resultType, 'complete', JSON.stringify(echoed));
  assert.equal(echoed.result.content[0].text, 'Echo: on a pipe');

  // The envelope is checked as on HTTP: a version the gateway does not serve is -32022.
  const old = await gateway.ask({jsonrpc: '2.0', id: 3, method: 'tools/call',
    params: {name: 'echo', arguments: {message: 'x'},
      _meta: {...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01'}}});
  assert.equal(old.error?.code, -32022, JSON.stringify(old));
  assert.deepEqual(old.error.data.supported, ['2026-07-28']);
  assert.equal(old.error.data.requested, '2099-01-01');

  // The server asks for sampling, which this request did not declare: -32021.
  const lacking = await gateway.ask({jsonrpc: '2.0', id: 4, method: 'tools/call',
    params: {name: 'trigger-sampling-request', arguments: {prompt: 'p', maxTokens: 5}, _meta: META}});
  assert.equal(lacking.error?.code, -32021, JSON.stringify(lacking));
  assert.deepEqual(lacking.error.data.requiredCapabilities, {sampling: {}});

  // Declared, it becomes an InputRequiredResult; the retry's answer reaches the server.
  const withSampling = {...META, 'io.modelcontextprotocol/clientCapabilities': {sampling: {}}};
  const params = {name: 'trigger-sampling-request', arguments: {prompt: 'p', maxTokens: 5},
    _meta: withSampling};
  const asked = await gateway.ask({jsonrpc: '2.0', id: 5, method: 'tools/call', params});
  assert.equal(asked.result?.resultType, 'input_required', JSON.stringify(asked));
  const [key, question] = Object.entries(asked.result.inputRequests)[0];
  assert.equal(question.method, 'sampling/createMessage');
  const answered = await gateway.ask({jsonrpc: '2.0', id: 6, method: 'tools/call', params: {
    ...params,
    inputResponses: {[key]: {role: 'assistant', model: 'm', content: {type: 'text', text: 'sampled on stdio'}}},
    requestState: asked.result.requestState,
  }});
  assert.equal(answered.result?.resultType, 'complete', JSON.stringify(answered));
  assert.match(JSON.stringify(answered.result.content), /sampled on stdio/);

  const code = await gateway.end();
  gateway = null;
  assert.equal(code, 0);
});
