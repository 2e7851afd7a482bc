// Fails when git tracks what only a machine holds: `.tools` (the Node scripts/use-node.sh fetched; a link to it in a
// worktree) or `node_modules`. A tracked `.tools` link replaces every checkout's fetched Node with the link on the
// next merge (git treats the ignored directory as expendable), so `pnpm check` refuses it before it lands.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const tracked = execFileSync('git', ['ls-files', '--', '.tools', 'node_modules'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter(Boolean);
if (tracked.length > 0) {
  process.stderr.write(
    `tracked but machine-local: ${tracked.join(', ')}; untrack with \`git rm --cached ${tracked.join(' ')}\` (the files stay)\n`,
  );
  process.exit(1);
}
