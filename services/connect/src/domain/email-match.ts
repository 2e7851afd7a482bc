// Realize constraints of type EMAIL: allowedEmails holds addresses or glob patterns (* and ?), case-insensitive.

function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (const ch of pattern.toLowerCase()) {
    if (ch === '*') source += '[^@]*';
    else if (ch === '?') source += '[^@]';
    else source += ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export function emailMatches(email: string, allowedEmails: string[]): boolean {
  const value = email.trim().toLowerCase();
  return allowedEmails.some((p) => globToRegExp(p).test(value));
}

export interface RealizeConstraint {
  constraintType: 'EMAIL';
  payload: { allowedEmails: string[] };
}

/** The realized identity must match every EMAIL constraint of the inquiry (each one narrows). */
export function satisfiesRealizeConstraints(
  email: string | null,
  constraints: RealizeConstraint[] | undefined,
): boolean {
  if (!constraints?.length) return true;
  if (!email) return false;
  return constraints.every((c) => emailMatches(email, c.payload.allowedEmails));
}
