// A load's answers are counted by status and reason (or OAuth error), also for a load given as one URL, and the
// answers a scenario does not expect are the ones that refuse its figure.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { type Answers, answerKey, answersLine, counting, unexpectedAnswers } from './answers';

let server: http.Server;
let url: string;

beforeAll(async () => {
  // Answers by path, as the hosts do: a success, a pending poll, a reused token, a bare 503.
  server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/ok') return json(200, { ok: true });
    if (req.url === '/pending') return json(400, { error: 'authorization_pending' });
    if (req.url === '/reused') return json(401, { reason: 'RefreshTokenReused' });
    res.writeHead(503);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('answer keys: a 2xx by status, others with their reason or OAuth error when the body names one', () => {
  expect(answerKey(200, '{"accessToken":"x","reason":"no"}')).toBe('200');
  expect(answerKey(400, '{"error":"slow_down","interval":10}')).toBe('400 slow_down');
  expect(answerKey(401, '{"reason":"RefreshTokenReused"}')).toBe('401 RefreshTokenReused');
  expect(answerKey(503, '')).toBe('503');
  expect(answerKey(500, '<html>oops</html>')).toBe('500');
});

test('every answer of a load of several requests is counted, and the requests keep their own onResponse', async () => {
  const answers: Answers = {};
  let own = 0;
  await autocannon(
    counting(
      {
        url,
        connections: 1,
        amount: 40,
        requests: [
          { method: 'GET', path: '/ok', onResponse: () => void own++ },
          { method: 'GET', path: '/pending' },
          { method: 'GET', path: '/reused' },
          { method: 'GET', path: '/down' },
        ],
      },
      answers,
    ),
  );
  expect(answers).toEqual({
    '200': 10,
    '400 authorization_pending': 10,
    '401 RefreshTokenReused': 10,
    '503': 10,
  });
  expect(own).toBe(10);
  expect(unexpectedAnswers(answers, ['400 authorization_pending'])).toBe(20);
  expect(unexpectedAnswers({ '200': 5, '400 authorization_pending': 3 }, ['400 authorization_pending'])).toBe(
    0,
  );
  expect(unexpectedAnswers({ '200': 5, errors: 2, timeouts: 1 })).toBe(3);
  expect(answersLine(answers)).toMatch(/^(\d{3}[ \w]* x 10(, |$)){4}/);
});

test('a load given as one URL (no requests list) is counted too', async () => {
  const answers: Answers = {};
  await autocannon(counting({ url: `${url}/reused`, method: 'POST', connections: 1, amount: 5 }, answers));
  expect(answers).toEqual({ '401 RefreshTokenReused': 5 });
});
