// Entry point of `pnpm admin`: runs one command, writes its JSON to stdout, closes connections and exits.
import { runCli } from './cli';

async function main(): Promise<void> {
  const result = await runCli(process.argv.slice(2), process.env);
  if (result.stderr) process.stderr.write(result.stderr);
  process.exitCode = result.code;
  // Wait for stdout to flush (it may be a pipe), then leave even if a stray handle lingers.
  process.stdout.write(`${result.stdout}\n`, () => {
    setTimeout(() => process.exit(result.code), 1000).unref();
  });
}

main().catch(() => {
  process.stdout.write('{"error":"unexpected failure"}\n', () => process.exit(3));
});
