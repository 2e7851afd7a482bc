// The events the example received, as /events shows them: the last 50 in memory, newest first.

/** One event as /events shows it. */
export interface ReceivedEvent {
  /** session-revoked, account-disabled, ... (the SDK's names), or backchannel-logout. */
  name: string;
  receivedAt: Date;
  subject?: string;
  sid?: string;
  reason?: string;
  /** How many of this site's sessions it signed out. */
  signedOut: number;
}

/** The last `max` events, newest first (memory only, like the sessions). */
export class EventLog {
  private readonly entries: ReceivedEvent[] = [];

  constructor(private readonly max = 50) {}

  add(event: ReceivedEvent): void {
    this.entries.unshift(event);
    if (this.entries.length > this.max) this.entries.length = this.max;
  }

  list(): readonly ReceivedEvent[] {
    return this.entries;
  }
}
