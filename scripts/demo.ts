// `pnpm demo`: provisions `demo-app` for the three browser flows (idempotently; see demo-provision.ts) and prints
// ready commands with every value filled in.
import { runDemo } from './demo-provision';

runDemo(process.env).then(
  (r) => process.stdout.write(r.output),
  (err: unknown) => {
    process.stderr.write(`demo provisioning failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
