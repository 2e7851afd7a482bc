// Entry point of `pnpm admin`: runs one command, writes its JSON (or help text) to stdout, closes connections, exits.
import { systemClock } from '@svc/platform';
import { runCli } from './cli';
import { createAdminContext } from './context';

async function main(): Promise<void> {
  // The process's one clock, created here at start-up.
  const result = await runCli(process.argv.slice(2), process.env, (env) =>
    createAdminContext(env, systemClock),
  );
  if (result.stderr) process.stderr.write(result.stderr);
  process.exitCode = result.code;
  // Wait for stdout to flush (it may be a pipe), then leave even if a stray handle lingers.
  process.stdout.write(
    result.stdout === '' || result.stdout.endsWith('\n') ? result.stdout : `${result.stdout}\n`,
    () => {
      setTimeout(() => process.exit(result.code), 1000).unref();
    },
  );
}

main().catch(() => {
  process.stdout.write('{"error":"unexpected failure"}\n', () => process.exit(3));
});
