// The audit trail's stores, for wiring only (`@svc/audit/stores`): the append inside a caller's transaction, the
// audited-change runner, and the trail's read store. Domain code takes the ports (`@svc/audit`) instead.
export {
  AUDITED_TX,
  type AuditScope,
  appendAuditEvents,
  createAuditedChanges,
  joinTransaction,
  runAudited,
  type Tx,
} from './append';
export { createAuditTrailStore, eventOf } from './trail';
