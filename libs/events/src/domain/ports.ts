// What the events rules need from storage and the network (bound by the callers' wiring, never imported by rules).
import type { EventName } from './event-types';

export interface Subscription {
  applicationId: string;
  url: string;
  /** Empty: every event. */
  events: EventName[];
  createdAt: Date;
  updatedAt: Date;
}

export interface SubscriptionsStore {
  put(applicationId: string, url: string, events: EventName[], at: Date): Promise<Subscription>;
  find(applicationId: string): Promise<Subscription | undefined>;
  remove(applicationId: string): Promise<boolean>;
}

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED';

export interface OutboxRow {
  id: string;
  applicationId: string | null;
  kind: string;
  targetUrl: string;
  contentType: string;
  payload: unknown;
  txn: string | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  firstAttemptAt: Date | null;
  deliveredAt: Date | null;
  lastError: string | null;
  lastStatus: number | null;
  createdAt: Date;
}

/** A row claimed for delivery, with the anchor of its application (a SET's aud). */
export interface ClaimedRow extends OutboxRow {
  applicationAnchor: string | null;
}

/** The outcome of one attempt, recorded on its row. */
export type AttemptRecord =
  | { id: string; at: Date; outcome: 'delivered'; status: number }
  | { id: string; at: Date; outcome: 'retry'; next: Date; error: string; status: number | null }
  | { id: string; at: Date; outcome: 'failed'; error: string; status: number | null };

export interface OutboxStore {
  /**
   * Claims up to `limit` due pending rows (FOR UPDATE SKIP LOCKED, so two workers never claim one row): each is
   * leased by moving its next attempt `leaseMs` ahead, so a worker that dies mid-delivery leaves it due again.
   */
  claim(limit: number, leaseMs: number): Promise<ClaimedRow[]>;
  record(attempts: AttemptRecord[]): Promise<void>;
  list(applicationId: string, status: DeliveryStatus | undefined, limit: number): Promise<OutboxRow[]>;
  /** Makes a row pending and due now (attempts kept); undefined when there is no such row. */
  redeliver(id: string, at: Date): Promise<OutboxRow | undefined>;
  /** Pending rows and when the oldest was written. */
  pending(): Promise<{ count: number; oldest: Date | undefined }>;
}

/** The addresses a host name resolves to (an IP literal resolves to itself). */
export type ResolveHost = (host: string) => Promise<string[]>;

export type FailureReason =
  | 'http_status'
  | 'redirect'
  | 'timeout'
  | 'connection'
  | 'dns'
  | 'private_target'
  | 'invalid_target'
  | 'signing';

export type PushOutcome =
  | { delivered: true; status: number }
  | { delivered: false; reason: FailureReason; status?: number; detail?: string };

export interface PushTarget {
  url: string;
  contentType: string;
  body: string;
}

/** Sends one body (the push adapter: SSRF-checked, no redirects, bounded answer, timeout). */
export type Push = (target: PushTarget) => Promise<PushOutcome>;

/** Builds a claimed row's body by its kind (a signed SET, later a logout token); throws when it cannot. */
export type BodyBuilder = (row: ClaimedRow) => Promise<string>;
