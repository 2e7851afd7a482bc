// The push adapter's safety rules against real loopback sockets: in production a target resolving to a private
// address is refused before any connection (also when the name resolved publicly at subscription: it is resolved
// again at delivery), http:// is refused, a redirect is not followed, at most 1 KB of the answer is read, and the
// attempt is bounded.
import { createServer, type Server } from 'node:net';
import { startEventReceiver } from '@svc/testkit';
import { createPush } from './push';

const target = (url: string) => ({ url, contentType: 'application/secevent+jwt', body: 'x.y.z' });

/** A TCP server counting connections: proof that nothing connected. */
async function countingServer(): Promise<{
  port: number;
  connections: () => number;
  close(): Promise<void>;
}> {
  let n = 0;
  const server: Server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return { port, connections: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

describe('in production', () => {
  it('refuses a host resolving to loopback, private, link-local or unique-local addresses, without connecting', async () => {
    const srv = await countingServer();
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.0.5',
      '169.254.169.254',
      'fd00::1',
      '::ffff:127.0.0.1',
    ]) {
      const { push, close } = createPush({
        production: true,
        allowPrivate: false,
        resolveHost: async () => [address],
      });
      expect(await push(target(`https://receiver.example.com:${srv.port}/events`))).toMatchObject({
        delivered: false,
        reason: 'private_target',
      });
      close();
    }
    expect(srv.connections()).toBe(0);
    await srv.close();
  });

  it('resolves at delivery: a name that now answers a private address is refused (DNS rebinding)', async () => {
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const resolveHost = async () => answers.shift() ?? [];
    // The subscription check saw a public address...
    expect(await resolveHost()).toEqual(['93.184.216.34']);
    const { push, close } = createPush({ production: true, allowPrivate: false, resolveHost });
    // ...the delivery resolves again and refuses.
    expect(await push(target('https://rebind.example.com/events'))).toMatchObject({
      reason: 'private_target',
    });
    close();
  });

  it('refuses http:// even on loopback, and connects to a private target only when allowed', async () => {
    const r = await startEventReceiver();
    const strict = createPush({
      production: true,
      allowPrivate: false,
      resolveHost: async () => ['127.0.0.1'],
    });
    expect(await strict.push(target(r.url))).toMatchObject({ delivered: false, reason: 'invalid_target' });
    strict.close();
    expect(r.received).toHaveLength(0);
    await r.close();
  });
});

describe('outside production', () => {
  const push = () =>
    createPush({ production: false, allowPrivate: false, resolveHost: async () => ['127.0.0.1'] });

  it('connects to the checked address whatever the name, and reads at most 1 KB of the answer', async () => {
    const r = await startEventReceiver();
    r.answer(() => ({ status: 400, body: `{"err":"invalid_request","description":"${'y'.repeat(5000)}"}` }));
    const p = push();
    const out = await p.push(target(`http://localhost:${r.port}/events`));
    expect(out).toMatchObject({ delivered: false, reason: 'http_status', status: 400 });
    expect(out.delivered === false && out.detail!.length).toBeLessThanOrEqual(220);
    expect(r.received[0]!.headers['content-type']).toBe('application/secevent+jwt');
    p.close();
    await r.close();
  });

  it('a redirect is a failed attempt, its Location never asked', async () => {
    const elsewhere = await startEventReceiver();
    const r = await startEventReceiver();
    r.answer(() => ({ status: 307, headers: { location: elsewhere.url } }));
    const p = push();
    expect(await p.push(target(r.url))).toMatchObject({ delivered: false, reason: 'redirect', status: 307 });
    expect(elsewhere.received).toHaveLength(0);
    p.close();
    await Promise.all([r.close(), elsewhere.close()]);
  });

  it('an answer that does not come is a timeout', async () => {
    const r = await startEventReceiver();
    r.answer(() => 'hold');
    const p = createPush({
      production: false,
      allowPrivate: false,
      resolveHost: async () => ['127.0.0.1'],
      timeoutMs: 300,
    });
    const started = Date.now();
    expect(await p.push(target(r.url))).toMatchObject({ delivered: false, reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
    p.close();
    await r.close();
  });
});
