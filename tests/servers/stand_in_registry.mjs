// A stand-in npm registry on 127.0.0.1 for `mcpgate install` tests. It serves
// one package, egress-probe@1.0.0, whose postinstall script looks for the
// server's variables and tries to reach another loopback port (argv[2])
// directly and through the proxy, then writes what it found to
// $npm_config_cache/probe-result.json. Prints its port, then serves until killed.
//   node stand_in_registry.mjs OTHER_PORT WORK_DIR
import {execFileSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {createServer} from 'node:http';
import {join} from 'node:path';

const [otherPort, workDir] = process.argv.slice(2);

const probe = `'use strict';
const fs = require('fs');
const http = require('http');
const net = require('net');
const result = {
  variables: Object.keys(process.env).filter((k) => !k.startsWith('npm_')).sort(),
  server_secret: process.env.SERVER_SECRET ?? null,
};
const done = () => {
  fs.writeFileSync(process.env.npm_config_cache + '/probe-result.json', JSON.stringify(result));
};
const direct = net.connect(${Number(otherPort)}, '127.0.0.1');
direct.on('connect', () => { result.direct = 'connected'; direct.destroy(); viaProxy(); });
direct.on('error', (e) => { result.direct = e.code; viaProxy(); });
function viaProxy() {
  const proxy = new URL(process.env.http_proxy);
  const req = http.request({host: proxy.hostname, port: proxy.port,
      path: 'http://127.0.0.1:${Number(otherPort)}/', headers: {host: '127.0.0.1'}}, (res) => {
    result.via_proxy = res.statusCode;
    res.resume();
    res.on('end', done);
  });
  req.on('error', (e) => { result.via_proxy = e.code; done(); });
  req.end();
}
`;

const packageDir = join(workDir, 'package');
mkdirSync(packageDir, {recursive: true});
writeFileSync(join(packageDir, 'package.json'), JSON.stringify({
  name: 'egress-probe', version: '1.0.0', scripts: {postinstall: 'node probe.js'},
}));
writeFileSync(join(packageDir, 'probe.js'), probe);
const tarball = join(workDir, 'egress-probe-1.0.0.tgz');
execFileSync('tar', ['-czf', tarball, '-C', workDir, 'package']);
const bytes = readFileSync(tarball);
const shasum = createHash('sha1').update(bytes).digest('hex');
const integrity = 'sha512-' + createHash('sha512').update(bytes).digest('base64');

const server = createServer((req, res) => {
  const port = server.address().port;
  if (req.url === '/egress-probe') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({
      name: 'egress-probe',
      'dist-tags': {latest: '1.0.0'},
      versions: {'1.0.0': {
        name: 'egress-probe', version: '1.0.0', hasInstallScript: true,
        scripts: {postinstall: 'node probe.js'},
        dist: {tarball: `http://127.0.0.1:${port}/egress-probe/-/egress-probe-1.0.0.tgz`,
          shasum, integrity},
      }},
    }));
  } else if (req.url === '/egress-probe/-/egress-probe-1.0.0.tgz') {
    res.setHeader('content-type', 'application/octet-stream');
    res.end(bytes);
  } else {
    res.statusCode = 404;
    res.end('{}');
  }
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
