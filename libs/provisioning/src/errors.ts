// Provisioning errors: a clear message for the operator, never a stack trace.
export class ProvisioningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProvisioningError';
  }
}
