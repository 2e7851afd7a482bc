// Provisioning errors: a clear message for the operator, never a stack trace; `field` names the input a refusal is
// about (the registration endpoint tells a bad redirect URI from other bad metadata by it, RFC 7591 3.2.2); `kind`
// says what sort of refusal it is (the management API answers 404, 409 or 422 by it; the CLI exits 1 for each).

/** `not_found`: a named resource does not exist; `conflict`: it exists already or is past the change; `refused`: the rules refuse the input. */
export type ProvisioningErrorKind = 'not_found' | 'conflict' | 'refused';

/** The kind a message states, for the many throw sites that name it in words ("application not found"). */
function kindOf(message: string): ProvisioningErrorKind {
  if (/\bnot found\b|^no \w+ has this\b|\bhas no (?:return )?rule\b/.test(message)) return 'not_found';
  if (/\balready exists\b/.test(message)) return 'conflict';
  return 'refused';
}

export class ProvisioningError extends Error {
  readonly field?: string;
  readonly kind: ProvisioningErrorKind;

  constructor(message: string, opts: { field?: string; kind?: ProvisioningErrorKind } = {}) {
    super(message);
    this.name = 'ProvisioningError';
    this.field = opts.field;
    this.kind = opts.kind ?? kindOf(message);
  }
}
