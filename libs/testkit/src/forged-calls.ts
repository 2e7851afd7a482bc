// The order of every page post (docs/ARCHITECTURE.md "Pages"), held over HTTP for a page's passkey calls: a forged
// call (no CSRF token, a wrong one, or the right one from a foreign Origin) is 403 even when its body is malformed,
// and the same malformed body from the page itself is 400.
import type { Agent } from './page-agent';

export type PasskeyCall =
  | 'authentication-options'
  | 'authentication'
  | 'registration-options'
  | 'registration';

/**
 * A body each call's schema refuses (the options calls take `{}`, a ceremony a whole WebAuthn credential). Each is
 * a JSON object: a body the reader cannot read as one (`[]`, `{`) is refused as it is read, before any check.
 */
const MALFORMED: Record<PasskeyCall, string> = {
  'authentication-options': '{"x":1}',
  authentication: '{"id":"abc"}',
  'registration-options': '{"challenge":"abc"}',
  registration: '{"id":"abc","rawId":"abc","type":"public-key","response":{},"clientExtensionResults":{}}',
};

/**
 * Posts each of `calls` under `base` (`${base}/passkey/<call>`) forged three ways, then genuinely, every time with a
 * malformed body; `a` has opened the page (its flow cookie and CSRF token).
 */
export async function expectForgedCallsRefusedFirst(
  a: Agent,
  base: string,
  calls: PasskeyCall[],
): Promise<void> {
  expect(a.csrf).not.toBe('');
  const wrong = `${a.csrf.startsWith('A') ? 'B' : 'A'}${a.csrf.slice(1)}`;
  const forgeries: [string, Record<string, string>][] = [
    ['no token', {}],
    ['a wrong token', { 'x-csrf-token': wrong }],
    ['a foreign Origin', { 'x-csrf-token': a.csrf, origin: 'https://evil.example.test' }],
  ];
  const seen: [string, string, number, string][] = [];
  const expected: typeof seen = [];
  for (const call of calls) {
    const path = `${base}/passkey/${call}`;
    const body = MALFORMED[call];
    for (const [forgery, headers] of forgeries) {
      const { res, text } = await a.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      seen.push([call, forgery, res.status, text]);
      expected.push([call, forgery, 403, '{"reason":"sessionExpired"}']);
    }
    const genuine = await a.json(path, body);
    seen.push([call, 'genuine', genuine.res.status, genuine.text]);
    expected.push([call, 'genuine', 400, '{"reason":"InvalidBody"}']);
  }
  expect(seen).toEqual(expected);
}
