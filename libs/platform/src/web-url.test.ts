// The shared URL rules of browser-facing settings and inputs (web-url.ts): an absolute URL without control
// characters or credentials, and HTTPS unless the host is loopback.
import { absoluteUrlOf, isHttpsOrLoopback } from './web-url';

test.each([
  ['https://a.example/cb', 'https://a.example/cb'],
  ['https://a.example/ cb', 'control'],
  ['https://a.example/\u0085', 'control'],
  ['https://a.example/\u007f', 'control'],
  ['/relative', 'not_absolute'],
  ['https://u:p@a.example/', 'credentials'],
])('absoluteUrlOf(%j) is %s', (raw, expected) => {
  const url = absoluteUrlOf(raw);
  expect(typeof url === 'string' ? url : url.href).toBe(expected);
});

test.each([
  ['https://a.example/', true],
  ['http://localhost:3000/', true],
  ['http://127.0.0.1/', true],
  ['http://[::1]/', true],
  ['http://a.example/', false],
  ['ftp://a.example/', false],
])('isHttpsOrLoopback(%s) is %s', (raw, expected) => {
  expect(isHttpsOrLoopback(new URL(raw))).toBe(expected);
});
