// Fails when a domain file reaches past its ports: imports Prisma, pg, ioredis, @svc/db or a store module, or
// names a database or Redis handle type (Db, Redis, PrismaClient), even as a type. The domain declares the ports it
// needs (domain/ports.ts) and the host's deps.ts binds stores to them; this keeps that rule in `pnpm check`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Modules a domain file may not import from, not even types. */
const FORBIDDEN_MODULE = [
  /^@svc\/db(\/|$)/,
  /^@prisma\//,
  /^pg(\/|$)/,
  /^ioredis(\/|$)/,
  /^@svc\/[^/]+\/store(\/|$)/,
  /(^|\/)stores?(\/|$)/, // '../store/sessions', './store', '../../store'
];

/** Handle types a domain file may not name, whichever module re-exports them. */
const FORBIDDEN_NAMES = new Set(['Db', 'Redis', 'PrismaClient', 'Prisma', 'Pool', 'PoolClient']);

export interface LayerViolation {
  file: string;
  line: number;
  what: string;
}

/** Every `*.ts` file (tests excluded) under a `src/domain/` folder of libs/ and services/. */
export function domainFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, inDomain: boolean) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (name === 'node_modules' || name === 'generated' || name === 'dist') continue;
      const p = path.join(dir, name);
      if (statSync(p).isDirectory())
        walk(p, inDomain || (name === 'domain' && dir.endsWith(`${path.sep}src`)));
      else if (inDomain && p.endsWith('.ts') && !p.endsWith('.test.ts')) out.push(p);
    }
  };
  for (const top of ['libs', 'services']) walk(path.join(root, top), false);
  return out.sort();
}

/** The violations in one file's source text. */
export function violationsIn(file: string, text: string): LayerViolation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LayerViolation[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, what });
  const checkModule = (node: ts.Node, spec: string) => {
    if (FORBIDDEN_MODULE.some((re) => re.test(spec))) at(node, `imports '${spec}'`);
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      checkModule(node, node.moduleSpecifier.text);
      const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) {
          const imported = (el.propertyName ?? el.name).text;
          if (FORBIDDEN_NAMES.has(imported)) at(el, `names the handle type ${imported}`);
        }
      }
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) checkModule(node, arg.literal.text);
      const q = node.qualifier;
      const last = q && (ts.isIdentifier(q) ? q.text : q.right.text);
      if (last && FORBIDDEN_NAMES.has(last)) at(node, `names the handle type ${last}`);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      checkModule(node, node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function checkLayers(root: string): { violations: LayerViolation[]; files: number } {
  const files = domainFiles(root);
  const violations = files.flatMap((file) =>
    violationsIn(path.relative(root, file), readFileSync(file, 'utf8')),
  );
  return { violations, files: files.length };
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const { violations, files } = checkLayers(root);
  for (const v of violations)
    console.error(`${v.file}:${v.line}: a domain file ${v.what}; take a port instead`);
  if (violations.length) process.exit(1);
  console.log(`${files} domain files import no store, database or Redis module`);
}
