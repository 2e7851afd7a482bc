// The one refusal of the audit trail: the row could not be written, so the change it belongs to did not happen.

/**
 * The change was refused because its audit row could not be written (the transaction rolled back). Hosts answer
 * 503 (platform's isDependencyFailure knows the name); the admin CLI exits 3.
 */
export class AuditUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the audit trail could not be written, so the change was refused and nothing changed', { cause });
    this.name = 'AuditUnavailableError';
  }
}

/** A bad filter or cursor given to a read of the trail (the CLI's usage error, the API's 400). */
export class AuditQueryError extends Error {
  constructor(
    message: string,
    /** The input it concerns (`since`, `cursor`, ...). */
    readonly field: string,
  ) {
    super(message);
    this.name = 'AuditQueryError';
  }
}
