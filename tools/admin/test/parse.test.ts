// Unit tests of the admin command line without spawning: parsing, flag validation, error mapping, JSON output.
import { ProvisioningError } from '@svc/provisioning';
import { COMMANDS, parseCommandLine, UsageError } from '@svc/provisioning/commands';
import { runCli, toJson } from '../src/cli';
import { describeFailure, EXIT } from '../src/errors';
import { jsonFile } from './run-admin';

const SECTOR = '0b6c7a52-2f0e-4f57-9d59-3c8a3a7f2d10';
const ACCOUNT = '5d0e4a3c-7a1b-4c2d-8e9f-0a1b2c3d4e5f';

function parse(line: string) {
  return parseCommandLine(COMMANDS, line.split(' '));
}

// biome-ignore lint/suspicious/noExplicitAny: CLI output is untyped JSON, checked by the assertions
function input(line: string): any {
  const p = parse(line);
  if (p.kind !== 'command') throw new Error('expected a command');
  return p.input;
}

function usageError(line: string | string[]): string {
  try {
    parseCommandLine(COMMANDS, typeof line === 'string' ? line.split(' ') : line);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`expected a usage error for ${line}`);
}

describe('admin command line', () => {
  it('implements every command of the CONTRACTS admin table', () => {
    const names = COMMANDS.map((c) => c.name);
    for (const n of [
      'org create',
      'org set-status',
      'sector create',
      'sector set-status',
      'app create',
      'app set-status',
      'app add-rule',
      'app add-return-rule',
      'app set-claims',
      'app add-client-key',
      'account create',
      'account set-status',
      'account grant',
      'account accept-terms',
      'agent create',
      'agent revoke',
      'agent regenerate',
      'automation create',
      'automation revoke',
      'automation regenerate',
      'access-key create',
      'access-key revoke',
      'public-key register',
      'public-key revoke',
      'terms publish',
      'keys rotate',
      'keys revoke',
      'sessions list',
    ]) {
      expect(names).toContain(n);
    }
  });

  it('gives help for --help, a resource, or a command', () => {
    const all = parse('--help');
    expect(all.kind).toBe('help');
    expect(all.kind === 'help' && all.lines.length).toBe(COMMANDS.length + 1);
    const app = parse('app --help');
    expect(app.kind === 'help' && app.lines.slice(1).every((l) => l.startsWith('pnpm -s admin app '))).toBe(
      true,
    );
    const one = parse('keys rotate --help');
    expect(one.kind === 'help' && one.lines.length).toBe(2);
    expect(one.kind === 'help' && one.lines[1]).toContain('keys rotate --app A');
  });

  it('parses repeated flags into lists: names by locale, callback domains, platform app ids', () => {
    expect(
      input(
        `app create --sector ${SECTOR} --anchor my-game --name en-US=My Game --name zh-CN=游戏 --callback-domain a.example.com --callback-domain b.example.com --default-locale zh-CN`.replace(
          'My Game',
          'MyGame',
        ),
      ),
    ).toEqual({
      sectorId: SECTOR,
      anchor: 'my-game',
      names: { 'en-US': 'MyGame', 'zh-CN': '游戏' },
      defaultLocale: 'zh-CN',
      callbackDomains: ['a.example.com', 'b.example.com'],
    });
    // A name with spaces arrives as one argv element, and --flag=value works too.
    const p = parseCommandLine(COMMANDS, [
      'app',
      'create',
      `--sector=${SECTOR}`,
      '--anchor',
      'my-game',
      '--name',
      'en-US=My Game = Fun',
    ]);
    // biome-ignore lint/suspicious/noExplicitAny: CLI output is untyped JSON, checked by the assertions
    expect(p.kind === 'command' && (p.input as any).names).toEqual({ 'en-US': 'My Game = Fun' });

    const rule = input(
      'app add-rule --app my-game --method PLATFORM_TICKET --platform-app-id 480 --platform-app-id 9223372036854775807 --access-ttl 60 --refresh-ttl 31536000',
    );
    expect(rule).toEqual({
      app: 'my-game',
      method: 'PLATFORM_TICKET',
      platformAppIds: [480n, 9_223_372_036_854_775_807n],
      accessTtl: 60,
      refreshTtl: 31_536_000,
    });
  });

  it('refuses malformed command lines with a message naming the problem', () => {
    expect(usageError([])).toBe('no command given');
    expect(usageError('frobnicate')).toBe('unknown command frobnicate');
    expect(usageError('app')).toMatch(/^app needs a verb: create, set-status, /);
    expect(usageError('app destroy --app x')).toMatch(/^unknown command app destroy; app takes create/);
    expect(usageError('org create')).toBe('missing --name');
    expect(usageError('org create --name')).toMatch(/^--name needs a value/);
    expect(usageError('org create --name A --color red')).toBe('unknown flag --color for org create');
    expect(usageError('org create --name A stray')).toMatch(/^unexpected argument stray for org create/);
    expect(usageError('org create --name A --name B')).toBe('--name may be given only once');
    expect(usageError(['org', 'create', '--name', '  '])).toBe('--name must not be empty');
    expect(usageError(['org', 'create', '--name', 'a\u0007b'])).toBe(
      '--name must not contain control characters',
    );
    expect(usageError(['org', 'create', '--name', 'x'.repeat(201)])).toBe(
      '--name must be at most 200 characters',
    );
  });

  it('validates enums, ids, anchors, integers and int64 ids', () => {
    expect(usageError('org set-status --org nope --status ACTIVE')).toBe('--org must be an id (a UUID)');
    expect(usageError(`org set-status --org ${SECTOR} --status SUSPENDED`)).toBe(
      '--status must be one of ACTIVE, DISABLED',
    );
    expect(usageError('app set-status --app my-game --status active')).toBe(
      '--status must be one of ACTIVE, SUSPENDED, DISABLED',
    );
    for (const bad of ['My-Game', 'ab', 'a--b', '-ab', 'ab-', '1abc', `a${'b'.repeat(64)}`]) {
      expect(usageError(`app create --sector ${SECTOR} --anchor=${bad} --name en-US=X`)).toMatch(
        /^--anchor must be an application anchor/,
      );
    }
    expect(usageError('app add-rule --app my-game --method PASSWORD')).toMatch(
      /^--method must be one of PASSKEY_/,
    );
    expect(usageError('app add-return-rule --app my-game --method EMAIL')).toBe(
      '--method must be one of DEVICE_CODE, CALLBACK, STATUS_POLL, REVEAL',
    );
    expect(usageError('app add-rule --app my-game --method OIDC --access-ttl 59')).toBe(
      '--access-ttl must be an integer from 60 to 604800',
    );
    expect(usageError('app add-rule --app my-game --method OIDC --refresh-ttl 1e6')).toBe(
      '--refresh-ttl must be an integer from 86400 to 31536000',
    );
    expect(usageError('app add-rule --app my-game --method PLATFORM_TICKET')).toBe(
      '--method PLATFORM_TICKET needs at least one --platform-app-id',
    );
    expect(usageError('app add-rule --app my-game --method OIDC --platform-app-id 480')).toBe(
      '--platform-app-id applies to --method PLATFORM_TICKET only',
    );
    for (const bad of ['0', '-1', '9223372036854775808', '4.5', '0x10']) {
      expect(
        usageError([
          'app',
          'add-rule',
          '--app',
          'my-game',
          '--method',
          'PLATFORM_TICKET',
          `--platform-app-id=${bad}`,
        ]),
      ).toMatch(/^--platform-app-id must be an integer from 1 to 9223372036854775807/);
    }
    expect(
      usageError(
        'app add-rule --app my-game --method PLATFORM_TICKET --platform-app-id 480 --platform-app-id 480',
      ),
    ).toBe('--platform-app-id 480 is given twice');
    expect(usageError('app set-claims --app my-game --email MAYBE')).toMatch(
      /^--email must be one of SYNTHETIC_ONLY/,
    );
    expect(
      input('app set-claims --app my-game --email REQUIRED --animatedAvatar SYNTHETIC_FALLBACK'),
    ).toEqual({
      app: 'my-game',
      changes: { email: 'REQUIRED', animatedAvatar: 'SYNTHETIC_FALLBACK' },
    });
  });

  it('validates app names, accounts, grants and credentials flags', () => {
    expect(usageError(`app create --sector ${SECTOR} --anchor my-game --name zh-CN=游戏`)).toBe(
      'missing --name en-US=TEXT (the en-US name is required)',
    );
    expect(usageError(`app create --sector ${SECTOR} --anchor my-game --name MyGame`)).toMatch(
      /^--name must look like LOCALE=TEXT/,
    );
    expect(usageError(`app create --sector ${SECTOR} --anchor my-game --name en-US=A --name en-US=B`)).toBe(
      '--name en-US=... is given twice',
    );
    expect(
      usageError(`app create --sector ${SECTOR} --anchor my-game --name en-US=A --default-locale ja-JP`),
    ).toBe('--default-locale ja-JP needs a --name ja-JP=TEXT');
    expect(usageError('account create --email not-an-email')).toBe('--email must be an email address');
    expect(usageError('account create --email a@b.example --picture http://x.example/a.png')).toBe(
      '--picture must be an HTTPS URL',
    );
    expect(
      usageError(`account grant --account ${ACCOUNT} --app my-game --claim phone --state GRANTED`),
    ).toMatch(/^--claim must be one of email, firstName, lastName, staticAvatar, animatedAvatar/);
    expect(
      usageError(
        `access-key create --app my-game --account ${ACCOUNT} --agent ${SECTOR} --automation ${SECTOR}`,
      ),
    ).toBe('give --agent or --automation, not both');
    expect(usageError('access-key revoke --id acs_k_123')).toBe(
      '--id must be an access-key identifier (acs_k_<uuid v4>)',
    );
    expect(usageError('keys revoke --app my-game --kid a/b')).toMatch(/^--kid must be a key id/);
    expect(input(`access-key create --app my-game --account ${ACCOUNT.toUpperCase()}`)).toEqual({
      anchor: 'my-game',
      accountId: ACCOUNT,
      agentId: undefined,
      automationId: undefined,
    });
  });

  it('refuses text PostgreSQL cannot store: NUL and lone surrogates in flags and JSON files', () => {
    expect(usageError(['account', 'create', '--email', 'a@b.example', '--given-name', 'A\u0000B'])).toBe(
      '--given-name must not contain control characters',
    );
    expect(usageError(['account', 'create', '--email', 'a@b.example', '--given-name', 'A\ud800'])).toBe(
      '--given-name must not contain control characters',
    );
    const nul = jsonFile('{"kty":"OKP","crv":"Ed25519","x":"A\\u0000"}', 'nul.json');
    expect(usageError(`app add-client-key --app my-game --jwk-file ${nul}`)).toMatch(
      /NUL character or a lone surrogate/,
    );
    const surrogate = jsonFile('{"schemaVersion":1,"title":"\\ud800"}', 'surrogate.json');
    expect(usageError(`terms publish --file ${surrogate}`)).toMatch(/NUL character or a lone surrogate/);
  });

  it('reads JSON files and names the file problem', () => {
    expect(usageError('app add-client-key --app my-game --jwk-file /nonexistent/key.json')).toBe(
      '--jwk-file /nonexistent/key.json: no such file',
    );
    expect(usageError('terms publish --file /tmp')).toBe('--file /tmp is not a regular file');
    const broken = jsonFile('{"kty":', 'broken.json');
    expect(usageError(`app add-client-key --app my-game --jwk-file ${broken}`)).toBe(
      `--jwk-file ${broken} does not hold valid JSON`,
    );
    const good = jsonFile({ kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) });
    expect(input(`app add-client-key --app my-game --jwk-file ${good}`).jwk).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: 'A'.repeat(43),
    });
  });

  it('maps failures to exit codes without leaking internals', () => {
    expect(describeFailure(new UsageError('missing --app'))).toEqual({
      code: EXIT.usage,
      message: 'missing --app',
    });
    expect(describeFailure(new ProvisioningError('application not found'))).toEqual({
      code: EXIT.refused,
      message: 'application not found',
    });
    const unreachable = Object.assign(new Error('driver failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    });
    expect(describeFailure(unreachable).code).toBe(EXIT.unavailable);
    expect(describeFailure(unreachable).message).toMatch(/^cannot reach the database/);
    const odd = describeFailure(Object.assign(new Error('SELECT secret FROM x'), { code: 'P2003' }));
    expect(odd).toEqual({
      code: EXIT.unavailable,
      message: 'unexpected failure (P2003); rerun with ADMIN_DEBUG=1 for details on stderr',
    });
  });

  it('runs usage errors and help without opening any connection', async () => {
    const never = () => {
      throw new Error('no context expected');
    };
    const none = await runCli([], {}, never);
    expect(none.code).toBe(EXIT.usage);
    expect(JSON.parse(none.stdout)).toEqual({ error: 'no command given' });
    expect(none.stderr).toMatch(/^usage: pnpm -s admin <resource> <verb> \[--flags\]\n/);
    // Explicit help: readable text on stdout, exit 0, every command once, grouped by resource.
    const help = await runCli(['--help'], {}, never);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: pnpm -s admin/);
    expect(help.stdout).not.toMatch(/^\{/);
    for (const c of COMMANDS) expect(help.stdout).toContain(`  pnpm -s admin ${c.name}`);
    expect(help.stdout).toContain('\n\n  pnpm -s admin sector create');
    const resource = await runCli(['oidc-client', '--help'], {}, never);
    expect(resource.code).toBe(0);
    expect(resource.stdout.split('\n').filter((l) => l.startsWith('  pnpm')).length).toBe(
      COMMANDS.filter((c) => c.name.startsWith('oidc-client ')).length,
    );
    const one = await runCli(['app', 'list', '--help'], {}, never);
    expect([one.code, one.stdout]).toEqual([
      0,
      `usage:\n  pnpm -s admin app list ${COMMANDS.find((c) => c.name === 'app list')!.synopsis}\n`,
    ]);
    const bad = await runCli(['keys', 'rotate'], {}, never);
    expect([bad.code, JSON.parse(bad.stdout), bad.stderr]).toEqual([
      EXIT.usage,
      { error: 'missing --app' },
      expect.stringContaining('keys rotate --app A'),
    ]);
  });

  it('prints bigint values as exact decimal strings', () => {
    expect(toJson({ ids: [9_007_199_254_740_993n] })).toBe('{"ids":["9007199254740993"]}');
  });
});
