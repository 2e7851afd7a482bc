// The audit trail's stores, for wiring only (`@svc/audit/stores`): the append inside a caller's transaction, the
// audited-change runner, and the trail's read store. Domain code takes the ports (`@svc/audit`) instead.
export {
  AUDITED_TX,
  type AuditedRunOptions,
  type AuditScope,
  appendAuditEvents,
  type ChainWaitBounds,
  createAuditedChanges,
  joinTransaction,
  runAudited,
  type Tx,
} from './append';
export { DEFAULT_CHAIN_WAIT } from './chain-wait';
export { createAuditTrailStore, eventOf } from './trail';
