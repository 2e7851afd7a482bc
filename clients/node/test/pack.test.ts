// `npm pack` yields an installable package: the tarball (built with tsc by prepack) installs into a fresh project
// with only jose beside it, and a plain ESM snippet imports it, verifies a token against a stand-in key set and
// builds a client. It packs a copy of the package in the test's temporary directory, so prepack's build never
// writes clients/node/dist in the checkout.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PACKAGE = path.resolve(__dirname, '..');
const SNIPPET = `
import { createServer } from 'node:http';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createSigninClient, createVerifier, TokenVerificationError } from '@signin-service/node';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' };
const server = createServer((req, res) => {
  res.setHeader('cache-control', 'public, max-age=300');
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ keys: [jwk] }));
}).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
const now = Math.floor(Date.now() / 1000);
const input = b64({ alg: 'RS256', kid: 'k1', typ: 'vnd.service.application-access+jwt' }) + '.' +
  b64({ iss: 'https://iss.test', aud: 'packed-app', sub: 'sub-1', sid: 's', jti: 'j', iat: now, exp: now + 60 });
const token = input + '.' + sign('sha256', Buffer.from(input), privateKey).toString('base64url');
const verifier = createVerifier({
  sessionUrl: 'http://127.0.0.1:' + server.address().port, applicationAnchor: 'packed-app', issuer: 'https://iss.test',
});
const ok = await verifier.verify(token);
const refused = await verifier.verify(token.slice(0, -4) + 'AAAA').catch((e) => e instanceof TokenVerificationError && e.reason);
const client = createSigninClient({ applicationAnchor: 'packed-app', sessionUrl: 'http://127.0.0.1:9' });
server.close();
console.log(JSON.stringify({ sub: ok.sub, refused, refresh: typeof client.refresh }));
`;

test('npm pack builds a tarball that installs into a temporary project and runs a snippet', () => {
  const checkoutDist = existsSync(path.join(PACKAGE, 'dist'));
  const dir = mkdtempSync(path.join(tmpdir(), 'sdk-pack-'));
  try {
    const copy = path.join(dir, 'package');
    for (const entry of ['package.json', 'README.md', 'tsconfig.build.json', 'src']) {
      cpSync(path.join(PACKAGE, entry), path.join(copy, entry), { recursive: true });
    }
    symlinkSync(path.join(PACKAGE, 'node_modules'), path.join(copy, 'node_modules'));
    // prepack's tsc is the workspace's.
    const PATH = `${path.join(PACKAGE, '../../node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`;
    execFileSync('npm', ['pack', '--pack-destination', dir], {
      cwd: copy,
      stdio: 'pipe',
      env: { ...process.env, PATH },
    });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    expect(tarball).toBe('signin-service-node-0.1.0.tgz');
    const project = path.join(dir, 'app');
    execFileSync('mkdir', ['-p', project]);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    execFileSync(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        path.join(dir, tarball!),
      ],
      { cwd: project, stdio: 'pipe' },
    );
    const installed = readdirSync(path.join(project, 'node_modules')).sort();
    expect(installed.filter((n) => !n.startsWith('.'))).toEqual(['@signin-service', 'jose']);
    writeFileSync(path.join(project, 'snippet.mjs'), SNIPPET);
    const out = execFileSync(process.execPath, ['snippet.mjs'], { cwd: project, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ sub: 'sub-1', refused: 'TokenSignatureInvalid', refresh: 'function' });
    // Nothing was built in the checkout.
    expect(existsSync(path.join(PACKAGE, 'dist'))).toBe(checkoutDist);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
