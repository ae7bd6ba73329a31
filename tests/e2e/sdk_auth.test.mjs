// The auth matrix as the official SDK client sees it, through `mcpgate serve`
// to server-everything: no token, wrong token, expired JWT, a server the
// client may not use, a session id used by another client; and a token and
// a JWT that do get in. Keys and tokens are made here with node:crypto.

import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams} from
  '@modelcontextprotocol/sdk/client/auth.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import {startGateway, writeEverythingConfig} from './lib.mjs';

const ISSUER = 'https://idp.test';
const ALICE = 'mcpg_' + crypto.randomBytes(32).toString('base64url');
const BOB = 'mcpg_' + crypto.randomBytes(32).toString('base64url');
const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');
const {privateKey, publicKey} = crypto.generateKeyPairSync('rsa', {modulusLength: 2048});

function jwt(claims) {
  const b64 = (object) => Buffer.from(JSON.stringify(object)).toString('base64url');
  const input = `${b64({alg: 'RS256', typ: 'JWT', kid: 'k1'})}.${b64(claims)}`;
  return `${input}.${crypto.sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}
const now = () => Math.floor(Date.now() / 1000);
const idToken = (sub, expIn) => jwt({iss: ISSUER, aud: 'mcpgate', sub, exp: now() + expIn});

let gateway;
before(async () => {
  const config = writeEverythingConfig([
    'auth:',
    '  tokens:',
    `    - {client: alice, sha256: ${sha256(ALICE)}}`,
    `    - {client: bob, sha256: ${sha256(BOB)}}`,
    `  jwt: {jwks_file: jwks.json, issuer: "${ISSUER}", audience: mcpgate}`,
    `  authorization_servers: ["${ISSUER}"]`,
    '  clients:',
    '    alice: {servers: [everything]}',
    '    bob: {servers: []}',
    '    jwt-user: {servers: [everything]}',
  ]);
  fs.writeFileSync(path.join(path.dirname(config), 'jwks.json'), JSON.stringify(
      {keys: [{...publicKey.export({format: 'jwk'}), kid: 'k1', use: 'sig', alg: 'RS256'}]}));
  gateway = await startGateway(config);
});
after(async () => {
  await gateway?.stop();
});

function transportWith(token, options = {}) {
  const headers = token ? {Authorization: `Bearer ${token}`} : {};
  return new StreamableHTTPClientTransport(new URL(gateway.url('everything')),
      {requestInit: {headers}, ...options});
}

async function connectAs(t, token) {
  const client = new Client({name: 'mcpgate-e2e-auth', version: '1.0.0'});
  const transport = transportWith(token);
  await client.connect(transport);
  t.after(() => client.close());
  return {client, transport};
}

async function refusedWith(token, status) {
  const client = new Client({name: 'mcpgate-e2e-auth', version: '1.0.0'});
  await assert.rejects(client.connect(transportWith(token)), (error) => {
    assert.equal(error.code, status, `want HTTP ${status}: ${error.message}`);
    return true;
  });
}

test('a listed token gets in and calls a tool', async (t) => {
  const {client} = await connectAs(t, ALICE);
  const result = await client.callTool({name: 'echo', arguments: {message: 'hello'}});
  assert.match(result.content[0].text, /hello/);
  assert.ok(!gateway.logs().includes(ALICE), 'a token reached the gateway log');
});

test('no token: 401 whose challenge leads the SDK to the metadata document', async () => {
  await refusedWith(undefined, 401);
  const response = await fetch(gateway.url('everything'), {
    method: 'POST',
    headers: {'content-type': 'application/json', 'accept': 'application/json, text/event-stream'},
    body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'ping'}),
  });
  assert.equal(response.status, 401);
  const {resourceMetadataUrl, error} = extractWWWAuthenticateParams(response);
  assert.equal(error, undefined, 'no error= without a token (RFC 6750)');
  assert.equal(resourceMetadataUrl?.href, `http://127.0.0.1:${gateway.port}` +
      '/.well-known/oauth-protected-resource/mcp/everything');
  const metadata = await discoverOAuthProtectedResourceMetadata(
      new URL(gateway.url('everything')), {resourceMetadataUrl});
  assert.equal(metadata.resource, gateway.url('everything'));
  assert.deepEqual(metadata.authorization_servers, [ISSUER]);
});

test('wrong token: 401 invalid_token', async () => {
  await refusedWith('mcpg_wrong', 401);
  const response = await fetch(gateway.url('everything'), {
    method: 'POST',
    headers: {'content-type': 'application/json', 'accept': 'application/json',
      'authorization': 'Bearer mcpg_wrong'},
    body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'ping'}),
  });
  assert.equal(extractWWWAuthenticateParams(response).error, 'invalid_token');
});

test('expired JWT: 401; a valid one gets in', async (t) => {
  await refusedWith(idToken('jwt-user', -3600), 401);
  const {client} = await connectAs(t, idToken('jwt-user', 300));
  const result = await client.callTool({name: 'echo', arguments: {message: 'jwt'}});
  assert.match(result.content[0].text, /jwt/);
  assert.match(gateway.logs(), /"client":"jwt-user"/);
});

test('a server the client may not use: 403', async () => {
  await refusedWith(BOB, 403);
});

test('a session id used by another client: 404, and the owner keeps it', async (t) => {
  const {client, transport} = await connectAs(t, ALICE);
  // The thief may use the server itself: only the session is not its own.
  const stolen = transportWith(idToken('jwt-user', 300), {sessionId: transport.sessionId});
  await assert.rejects(stolen.send({jsonrpc: '2.0', id: 7, method: 'tools/list'}), (error) => {
    assert.equal(error.code, 404, error.message);
    return true;
  });
  const jwtThief = transportWith(idToken('jwt-user', 300), {sessionId: transport.sessionId});
  await assert.rejects(jwtThief.terminateSession(), (error) => error.code === 404);
  const tools = await client.listTools();
  assert.ok(tools.tools.some((tool) => tool.name === 'echo'));
});
