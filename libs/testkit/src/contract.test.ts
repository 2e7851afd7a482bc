// The contract checker judges the JSON answers of page endpoints: a page script call's declared wire shape, the
// pages' JSON error body, and no JSON at all from a page that declares none.
import { ErrandStatus, openApiDocument, pageEndpoint } from '@svc/platform';
import { compileDocument, judgeAgainst } from './contract';

/** A GET page that renders nothing (only its document is used). */
const plainPage = (path: string) =>
  pageEndpoint({ method: 'GET', path, body: { kind: 'none' }, noStore: false, page: () => undefined });

const endpoints = [
  { ...plainPage('/poll/:key'), doc: { answers: [{ schema: ErrandStatus }] } },
  plainPage('/page'),
];
const doc = compileDocument(JSON.stringify(openApiDocument({ name: 'contract-test', endpoints })));

const json = (method: string, path: string, status: number, body: unknown) =>
  judgeAgainst(doc, {
    method,
    path,
    status,
    contentType: 'application/json; charset=utf-8',
    body: Buffer.from(JSON.stringify(body)),
  });

test("a page script call's answer is judged by its wire shape", () => {
  const poll = '/poll/ernd_x';
  expect(json('GET', poll, 200, { state: 'pending', expiresAt: '2026-11-22T20:00:00.000Z' })).toEqual([]);
  expect(json('GET', poll, 200, { state: 'waiting', expiresAt: '2026-11-22T20:00:00.000Z' })).toHaveLength(1);
  expect(json('GET', poll, 200, {})).toHaveLength(1);
});

test("the pages' JSON errors are {reason}", () => {
  expect(json('GET', '/poll/ernd_x', 404, { reason: 'NotFound' })).toEqual([]);
  expect(json('GET', '/poll/ernd_x', 404, { error: 'not_found' })).toHaveLength(1);
});

test('a page that declares no JSON answer sends none', () => {
  expect(json('GET', '/page', 200, { any: 'thing' })).toEqual([
    expect.stringContaining('media type application/json'),
  ]);
});
