// The one decision "is this PostgreSQL or Redis failing": the error shapes pg, pg-pool, ioredis and Prisma produce
// for reset, refused and timed-out connections are dependency failures; a bug or a constraint violation is not.
// And ioredis connection errors go through pino as JSON, never to stderr as plain text; the dependency watch logs
// each state change once and, once closed, probes nothing more.
import { waitUntil } from '@svc/testkit';
import { createDependencyWatch, isDependencyFailure } from './dependencies';
import { createLogger, type Logger } from './logger';
import { createRedis } from './redis';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
/** What ioredis rejects with for an error reply (redis-errors' ReplyError). */
const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });

test.each([
  ['pg: a reset socket', withCode('write ECONNRESET', 'ECONNRESET')],
  ['pg: a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
  ['pg: a server gone mid-query', new Error('Connection terminated unexpectedly')],
  ['pg: client-side query timeout', new Error('Query read timeout')],
  ['pg-pool: no connection in time', new Error('timeout exceeded when trying to connect')],
  ['pg-pool: connect timeout', new Error('Connection terminated due to connection timeout')],
  ['PostgreSQL: statement_timeout', withCode('canceling statement due to statement timeout', '57014')],
  ['PostgreSQL: shutting down', withCode('terminating connection due to administrator command', '57P01')],
  ['Prisma: unreachable', withCode("Can't reach database server at 127.0.0.1:5432", 'P1001')],
  [
    'Prisma: a raw query on a closed connection',
    withCode('Raw query failed. Code: `N/A`. Message: `Server has closed the connection.`', 'P2010'),
  ],
  ['Prisma: a driver-adapter error', Object.assign(new Error('x'), { cause: { kind: 'ConnectionClosed' } })],
  ['ioredis: command timeout', new Error('Command timed out')],
  ['ioredis: closed', new Error('Connection is closed.')],
  [
    'ioredis: retries exhausted',
    Object.assign(new Error('Reached the max retries per request limit (which is 2).'), {
      name: 'MaxRetriesPerRequestError',
    }),
  ],
  [
    'ioredis Cluster: redirected until it gave up',
    new Error('Too many Cluster redirections. Last error: ReplyError: MOVED 12877 127.0.0.1:17103'),
  ],
  ['ioredis Cluster: no node reachable', new Error('None of startup nodes is available')],
  ['Redis Cluster: a slot moved', replyError('MOVED 12877 127.0.0.1:17103')],
  ['Redis Cluster: a slot migrating', replyError('ASK 3999 127.0.0.1:7001')],
  ['Redis Cluster: no master for a slot', replyError('CLUSTERDOWN The cluster is down')],
  [
    'Redis Cluster: keys of a slot being moved',
    replyError('TRYAGAIN Multiple keys request during rehashing of slot'),
  ],
  ['wrapped in a cause', new Error('outer', { cause: withCode('read ECONNRESET', 'ECONNRESET') })],
  [
    'PgBouncer: its PostgreSQL gone',
    withCode('server login has been failing, try again later (server_login_retry)', '08P01'),
  ],
  ['PgBouncer: cannot connect', withCode('pgbouncer cannot connect to server', '08P01')],
  [
    '@svc/db: a client closed by its host',
    Object.assign(new Error('the database client is closed ($disconnect ended its pool)'), {
      name: 'ClosedDbError',
    }),
  ],
  ['pg-pool: a pool ended by its host', new Error('Cannot use a pool after calling end on the pool')],
])('%s is a dependency failure', (_what, err) => {
  expect(isDependencyFailure(err)).toBe(true);
});

test.each([
  ['a bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
  ['a unique violation', withCode('Unique constraint failed on the fields: (`anchor`)', 'P2002')],
  ['PostgreSQL: invalid byte sequence', withCode('invalid byte sequence for encoding "UTF8": 0x00', '22021')],
  ['PostgreSQL: a protocol violation', withCode('invalid frontend message type 0', '08P01')],
  ['a Lua error that mentions a move', replyError('ERR user_script:1: MOVED 1 x')],
  ['a MOVED message that is no Redis reply', new Error('MOVED 12877 127.0.0.1:17103')],
  ['nothing', undefined],
  ['a string', 'ECONNRESET'],
])('%s is not', (_what, err) => {
  expect(isDependencyFailure(err)).toBe(false);
});

test('ioredis connection errors are JSON lines through the logger, nothing on stderr', async () => {
  const lines: { msg?: string; dependency?: string }[] = [];
  const logger = createLogger('redis-test', {
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const printed = jest.spyOn(console, 'error');
  // Port 1 refuses connections.
  const redis = createRedis('redis://127.0.0.1:1', {
    logger,
    bounds: { connectTimeoutMs: 500, commandTimeoutMs: 500 },
  });
  try {
    const err = await redis.ping().catch((e: unknown) => e);
    expect(isDependencyFailure(err)).toBe(true);
    while (!lines.some((l) => l.msg === 'redis connection error'))
      await new Promise((r) => setTimeout(r, 20));
    expect(lines.find((l) => l.msg === 'redis connection error')?.dependency).toBe('redis');
    expect(printed).not.toHaveBeenCalled();
  } finally {
    redis.disconnect();
    printed.mockRestore();
  }
});

/** A logger keeping its lines, and a probe that fails until `answer()` is called. */
function watchParts() {
  const lines: Record<string, unknown>[] = [];
  const logger: Logger = createLogger('t', {
    level: 'debug',
    destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  let answers = false;
  const probe = async () => {
    if (!answers) throw new Error('connect ECONNREFUSED');
  };
  const answer = () => {
    answers = true;
  };
  return { lines, logger, probe, answer };
}

test('a dependency still being connected to at start-up is no outage: no warning, and no "up again" once it answers', async () => {
  const p = watchParts();
  const watch = createDependencyWatch({ logger: p.logger, probes: { postgres: p.probe }, recheckMs: 10 });
  try {
    expect(await watch.check()).toBe(false);
    expect(watch.states()).toEqual({ postgres: 'connecting' });
    p.answer();
    expect(await watch.check()).toBe(true);
    expect(watch.states()).toEqual({ postgres: 'up' });
    expect(p.lines.filter((l) => (l.level as number) >= 30)).toEqual([]);
  } finally {
    watch.close();
  }
});

test('past the start-up grace a dependency that never answered is down, warned once, then up again', async () => {
  const p = watchParts();
  const watch = createDependencyWatch({
    logger: p.logger,
    probes: { postgres: p.probe },
    recheckMs: 10,
    connectGraceMs: 0,
  });
  try {
    expect(await watch.check()).toBe(false);
    expect(await watch.check()).toBe(false);
    p.answer();
    expect(await watch.check()).toBe(true);
    expect(p.lines.filter((l) => (l.level as number) >= 30).map((l) => [l.level, l.msg])).toEqual([
      [40, 'postgres is down'],
      [30, 'postgres is up again'],
    ]);
  } finally {
    watch.close();
  }
});

test('a closed watch probes no more: not on its recheck timer while down, nor when checked or suspected', async () => {
  const p = watchParts();
  const probes = { closed: 0, open: 0 };
  const watchCounting = (which: keyof typeof probes) =>
    createDependencyWatch({
      logger: p.logger,
      probes: {
        postgres: () => {
          probes[which]++;
          return p.probe();
        },
      },
      recheckMs: 10,
      connectGraceMs: 0,
    });
  const closed = watchCounting('closed');
  const open = watchCounting('open');
  try {
    // Both down: each probes again on its recheck timer.
    await Promise.all([closed.check(), open.check()]);
    await waitUntil(async () => probes.closed >= 3);
    closed.close();
    const at = { ...probes };
    // Ten rechecks of its open twin, on the same period: the closed one made none.
    await waitUntil(async () => probes.open >= at.open + 10);
    expect(await closed.check()).toBe(false);
    closed.suspect();
    expect(probes.closed).toBe(at.closed);
  } finally {
    closed.close();
    open.close();
  }
});

test('a probe still running when its watch closes changes no state and logs no outage', async () => {
  const p = watchParts();
  let fail: (err: Error) => void = () => undefined;
  let hold = false;
  const watch = createDependencyWatch({
    logger: p.logger,
    probes: {
      postgres: () => (hold ? new Promise((_, reject) => (fail = reject)) : Promise.resolve()),
    },
  });
  try {
    expect(await watch.check()).toBe(true);
    hold = true;
    const running = watch.check();
    watch.close();
    // The connection under the probe is closed by the host's shutdown: not an outage.
    fail(new Error('Connection is closed.'));
    expect(await running).toBe(false);
    expect(watch.states()).toEqual({ postgres: 'up' });
    expect(p.lines.filter((l) => (l.level as number) >= 30)).toEqual([]);
  } finally {
    watch.close();
  }
});
