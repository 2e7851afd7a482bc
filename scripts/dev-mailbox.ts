// The development mailbox `pnpm start` runs when no SMTP server is configured outside production: maildev (an SMTP
// listener every host mails to, and a web page listing what it received, with the JSON list at GET /email), as a
// child process of the fleet so its own dependencies (express 4, socket.io) never load into a host. Its web page is
// reached only through a guard (dev-mailbox-guard.ts) that answers loopback names alone and no other origin.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { freeLoopbackPort, type MailboxGuard, startMailboxGuard } from './dev-mailbox-guard';

export interface DevMailbox {
  /** Where every host sends: smtp://127.0.0.1:<smtpPort>. */
  smtpUrl: string;
  /** Where a person reads the mail: http://localhost:<webPort>. */
  webUrl: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface DevMailboxOptions {
  webPort: number;
  smtpPort: number;
  /** Each line maildev prints (default: dropped). */
  onLine?: (line: string) => void;
  /** How long to wait for both ports (default 30 s: maildev loads jsdom and socket.io on a busy machine). */
  timeoutMs?: number;
}

/** The path of maildev's command-line entry, resolved from this workspace's own install. */
function maildevBin(): string {
  return path.join(path.dirname(require.resolve('maildev/package.json')), 'bin', 'maildev');
}

/**
 * Starts maildev on 127.0.0.1 (never reachable from the network: it shows every code sent) with SMTP on `smtpPort`
 * and its web page behind the guard on `webPort` (maildev's own web listener is on a free loopback port only the
 * guard uses), and resolves when maildev says both listen (its own lines: a port answering might be another
 * process's) and the guard listens. Rejects when maildev reports an error or exits first (a port taken), the guard
 * cannot listen, or maildev does not listen within the timeout.
 */
export async function startDevMailbox(opts: DevMailboxOptions): Promise<DevMailbox> {
  // maildev answers every origin (`Access-Control-Allow-Origin: *`) and any Host: its own port stays private.
  const innerPort = await freeLoopbackPort();
  let guard: MailboxGuard | undefined;
  try {
    guard = await startMailboxGuard({ port: opts.webPort, target: innerPort });
  } catch (err) {
    throw new Error(
      `the development mailbox did not start: port ${opts.webPort}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const child = spawn(
    process.execPath,
    [
      maildevBin(),
      '--web',
      String(innerPort),
      '--smtp',
      String(opts.smtpPort),
      '--ip',
      '127.0.0.1',
      '--web-ip',
      '127.0.0.1',
    ],
    // maildev reads MAILDEV_* variables too; give it none of the caller's.
    { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream! }).on('line', (line) => {
      lines.push(line);
      opts.onLine?.(line);
    });
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.all([exited, guard?.close()]);
  };
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const failed = lines.find((l) => /error|EADDRINUSE/i.test(l));
    if (failed || child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`the development mailbox did not start: ${failed ?? (lines.at(-1) || 'it exited')}`);
    }
    // maildev 2's start-up lines: "MailDev webapp running at ..." and "MailDev SMTP Server running at ...".
    if (lines.some((l) => /webapp running/.test(l)) && lines.some((l) => /SMTP Server running/.test(l)))
      break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the development mailbox did not listen on ports ${opts.webPort} and ${opts.smtpPort}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    smtpUrl: `smtp://127.0.0.1:${opts.smtpPort}`,
    webUrl: `http://localhost:${opts.webPort}`,
    child,
    stop,
  };
}
