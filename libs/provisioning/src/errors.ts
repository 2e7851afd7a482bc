// Provisioning errors: a clear message for the operator, never a stack trace; `field` names the input a refusal is
// about (the registration endpoint tells a bad redirect URI from other bad metadata by it, RFC 7591 3.2.2).
export class ProvisioningError extends Error {
  readonly field?: string;
  constructor(message: string, opts: { field?: string } = {}) {
    super(message);
    this.name = 'ProvisioningError';
    this.field = opts.field;
  }
}
