// The layering check: a planted violation in a throwaway tree fails it; the repository itself passes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkLayers, domainFiles, violationsIn } from './check-layers';

describe('check-layers', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'layers-'));
    mkdirSync(path.join(root, 'services/demo/src/domain/deeper'), { recursive: true });
    mkdirSync(path.join(root, 'services/demo/src/store'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const plant = (rel: string, text: string) => writeFileSync(path.join(root, rel), text);

  it('passes a domain file that takes ports', () => {
    plant(
      'services/demo/src/domain/ports.ts',
      'export interface Things { find(id: string): Promise<string>; }\n',
    );
    plant(
      'services/demo/src/domain/find.ts',
      "import type { Things } from './ports';\nexport const f = (p: { things: Things }) => p.things.find('x');\n",
    );
    expect(checkLayers(root)).toEqual({ violations: [], files: 2 });
  });

  it.each([
    ["import { createPrisma } from '@svc/db';", "imports '@svc/db'"],
    ["import type { Db } from '@svc/db';", "imports '@svc/db'"],
    ["import type { Redis } from '@svc/platform';", 'names the handle type Redis'],
    ["import IORedis from 'ioredis';", "imports 'ioredis'"],
    ["import { Pool } from 'pg';", "imports 'pg'"],
    ["import { PrismaClient } from '@prisma/client';", "imports '@prisma/client'"],
    ["import { findThing } from '../../store/things';", "imports '../../store/things'"],
    ["export { findThing } from '../store';", "imports '../store'"],
    ["type H = import('@svc/db').Db;", "imports '@svc/db'"],
    ["const s = require('../store/things');", "imports '../store/things'"],
  ])('fails on %s', (line, what) => {
    plant('services/demo/src/domain/deeper/bad.ts', `${line}\nexport const x = 1;\n`);
    const { violations } = checkLayers(root);
    expect(violations.map((v) => v.what)).toContain(what);
    expect(violations[0]).toMatchObject({ file: 'services/demo/src/domain/deeper/bad.ts', line: 1 });
  });

  it('skips tests and non-domain folders', () => {
    plant('services/demo/src/domain/find.test.ts', "import { createPrisma } from '@svc/db';\n");
    plant('services/demo/src/store/things.ts', "import { createPrisma } from '@svc/db';\n");
    expect(checkLayers(root).violations).toEqual([]);
  });

  it('names the line of the offending import', () => {
    expect(violationsIn('a.ts', "// purpose\n\nimport type { Db } from '@svc/db';\n")).toEqual([
      { file: 'a.ts', line: 3, what: "imports '@svc/db'" },
      { file: 'a.ts', line: 3, what: 'names the handle type Db' },
    ]);
  });

  it('holds for this repository', () => {
    expect(checkLayers(path.resolve(__dirname, '..')).violations).toEqual([]);
  });

  it("covers the libraries' rules as well as the hosts' (libs/provisioning's among them)", () => {
    const root = path.resolve(__dirname, '..');
    const files = domainFiles(root).map((f) => path.relative(root, f));
    expect(files).toEqual(
      expect.arrayContaining([
        'libs/issuance/src/domain/rotation.ts',
        'libs/provisioning/src/domain/ports.ts',
        'libs/provisioning/src/domain/tenancy.ts',
      ]),
    );
  });
});
