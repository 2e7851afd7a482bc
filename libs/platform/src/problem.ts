// RFC 9457 problem details (`application/problem+json`): the management API's one error shape. A ProblemError names
// its kind; the kind fixes the status, `type` and `title` (one table, never chosen at the throw site); `detail` says
// what went wrong in words an operator acts on, and `errors` points at each bad input member (JSON Pointer).
export const PROBLEM_TYPE = 'application/problem+json';

/** Every kind of problem the management API answers, with its status and title. */
export const PROBLEMS = {
  'invalid-input': { status: 400, title: 'The request is malformed' },
  unauthenticated: { status: 401, title: 'No valid operator key' },
  forbidden: { status: 403, title: "The operator key's role does not allow this" },
  'not-found': { status: 404, title: 'No such resource' },
  'method-not-allowed': { status: 405, title: 'The resource does not take this method' },
  conflict: { status: 409, title: 'The change conflicts with the current state' },
  'idempotency-in-progress': { status: 409, title: 'A request with this Idempotency-Key is still running' },
  'precondition-failed': { status: 412, title: 'If-Match no longer matches the resource' },
  'too-large': { status: 413, title: 'The request body is too large' },
  'unsupported-media-type': { status: 415, title: 'The request body must be application/json' },
  refused: { status: 422, title: 'The rules refuse this input' },
  'idempotency-key-reused': { status: 422, title: 'This Idempotency-Key was used with another request' },
  'rate-limited': { status: 429, title: 'Too many requests for this operator key' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Temporarily unavailable' },
} as const;

export type ProblemKind = keyof typeof PROBLEMS;

/** One bad input member: where (a JSON Pointer into the request's input) and what is wrong with it. */
export interface InputError {
  pointer: string;
  detail: string;
}

/** The base of every problem `type` URI, a URN naming the kind (each kind is documented in docs/management.md). */
export const PROBLEM_TYPE_BASE = 'urn:signin-service:problem:';

export class ProblemError extends Error {
  readonly kind: ProblemKind;
  readonly status: number;
  readonly detail?: string;
  readonly errors?: InputError[];
  readonly headers: Record<string, string>;

  constructor(
    kind: ProblemKind,
    opts: { detail?: string; errors?: InputError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(opts.detail ?? kind, { cause: opts.cause });
    this.name = 'ProblemError';
    this.kind = kind;
    this.status = PROBLEMS[kind].status;
    this.detail = opts.detail;
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
  }

  body(): Record<string, unknown> {
    return {
      type: `${PROBLEM_TYPE_BASE}${this.kind}`,
      title: PROBLEMS[this.kind].title,
      status: this.status,
      detail: this.detail ?? PROBLEMS[this.kind].title,
      ...(this.errors?.length ? { errors: this.errors } : {}),
    };
  }
}
