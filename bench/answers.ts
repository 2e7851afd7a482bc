// Counting a load's answers: every answer of an autocannon load tallied by status, and by reason or OAuth error for
// the non-2xx ones, so a figure taken under load says what the host answered, and a scenario can refuse a figure
// from a host that was answering errors instead of doing its work.
import type autocannon from 'autocannon';

/** Counts per answer: `200`, `400 authorization_pending`, `401 RefreshTokenReused`, `errors`, `timeouts`. */
export type Answers = Record<string, number>;

/** The answer's tally key: a 2xx by status; otherwise the status with the body's reason or OAuth error, if any. */
export function answerKey(status: number, body: string): string {
  if (status >= 200 && status < 300) return String(status);
  const named = /"(?:reason|error)"\s*:\s*"([A-Za-z_]+)"/.exec(body)?.[1];
  return named ? `${status} ${named}` : String(status);
}

/** The load's requests (one built from the top-level options when it has none), each counting its answer. */
export function counting(opts: autocannon.Options, answers: Answers): autocannon.Options {
  const requests: autocannon.Request[] = opts.requests ?? [{}];
  return {
    ...opts,
    requests: requests.map((req) => {
      const own = typeof req.onResponse === 'function' ? req.onResponse : undefined;
      return {
        ...req,
        onResponse: (
          status: number,
          body: string,
          context: object,
          headers: autocannon.Request['headers'],
        ) => {
          const key = answerKey(status, body);
          answers[key] = (answers[key] ?? 0) + 1;
          own?.(status, body, context, headers);
        },
      };
    }),
  };
}

/** How many answers are neither 2xx nor in `expected` (tally keys). */
export function unexpectedAnswers(answers: Answers, expected: readonly string[] = []): number {
  let n = 0;
  for (const [key, count] of Object.entries(answers))
    if (!/^2\d\d$/.test(key) && !expected.includes(key)) n += count;
  return n;
}

/** The tally as one line, largest first: `400 authorization_pending x 15360, 200 x 5120`. */
export const answersLine = (answers: Answers): string =>
  Object.entries(answers)
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key} x ${count}`)
    .join(', ');
