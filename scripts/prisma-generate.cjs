// Runs `prisma generate` offline: the CLI wants a schema-engine binary path to exist even though generate never runs it.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
};
execFileSync(
  process.execPath,
  [
    require.resolve('prisma/build/index.js'),
    'generate',
    '--schema',
    path.join(__dirname, '..', 'prisma', 'schema.prisma'),
  ],
  { stdio: 'inherit', env, cwd: path.join(__dirname, '..') },
);
