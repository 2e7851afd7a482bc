// Which build answers: run from source, the commit is git's and there is no build time; /healthz says so.
import { execFileSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createHostApp, finishHostApp } from './http';
import { createLogger } from './logger';
import { buildVersion } from './version';

const repo = path.resolve(__dirname, '..', '..', '..');

test('from source: the checkout commit (dirty when it has changes) and no build time', () => {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo }).toString().trim();
  const { commit, builtAt } = buildVersion();
  expect(commit).toMatch(new RegExp(`^${head}(-dirty)?$`));
  expect(builtAt).toBeNull();
});

test('/healthz answers the version', async () => {
  const opts = { name: 'version-test', logger: createLogger('version-test', { level: 'silent' }) };
  const app = createHostApp(opts);
  finishHostApp(app, opts);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
    expect(await res.json()).toEqual({ status: 'ok', version: buildVersion() });
  } finally {
    server.close();
  }
});
