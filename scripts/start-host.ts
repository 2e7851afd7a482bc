// `pnpm start:<host>` for hosts that may not be built yet (device, oidc): runs services/<host>/src/main.ts when it
// exists, and otherwise fails loudly (exit 1 with a message naming the missing file) instead of doing nothing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const host = process.argv[2] ?? '';
const entry = path.join(root, 'services', host, 'src', 'main.ts');

if (!/^[a-z]+$/.test(host) || !existsSync(entry)) {
  process.stderr.write(
    `cannot start the ${host || '(unnamed)'} host: it is not built yet (${path.relative(root, entry)} does not exist)\n`,
  );
  process.exit(1);
}

const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
