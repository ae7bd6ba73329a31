// Makes Node 20's global fetch honor HTTP_PROXY/HTTPS_PROXY/NO_PROXY, which it
// does not by itself (Node 24 has NODE_USE_ENV_PROXY=1 for that). Load it with
//   NODE_OPTIONS="--require /path/to/env-proxy.cjs"
// where the `undici` npm package (>= 6.10, for EnvHttpProxyAgent) resolves.
// The http/https modules are not covered: they need an agent of their own.
'use strict';
const undici = require('undici');
const agent = new undici.EnvHttpProxyAgent();
undici.setGlobalDispatcher(agent);
// Node's bundled fetch and the package's may be different majors: use the package's.
globalThis.fetch = (input, init) => undici.fetch(input, { dispatcher: agent, ...init });
