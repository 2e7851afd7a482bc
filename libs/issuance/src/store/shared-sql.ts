// THE one module other hosts' stores share with the issuance stores (`@svc/issuance/shared-sql`): SQL fragments a
// host embeds in its own one read per request, with the row mappers of their columns, and the Redis channel of
// session changes. Nothing else under store/ is for other packages (the factories of @svc/issuance/stores are for
// the wiring in @svc/host and @svc/testkit); a host's rules go through IssuancePorts.
//   - snapshotColumnsSql / toSnapshot: the OIDC host's userinfo read (services/oidc/src/store/oidc-sessions.ts);
//   - issueReadColumnsSql / toIssueRead: native's credential read (services/native/src/store/credentials.ts);
//   - SESSION_WORKLOAD_AUTHORITY_SQL: native's session read (services/native/src/store/sessions.ts);
//   - SESSION_CHANGE_CHANNEL: the session host's cache subscriber and the admin tool's publisher.
export {
  type IssueReadColumns,
  issueReadColumnsSql,
  SESSION_WORKLOAD_AUTHORITY_SQL,
  type SnapshotColumns,
  snapshotColumnsSql,
  toIssueRead,
  toSnapshot,
} from './issuance-reads';
export { SESSION_CHANGE_CHANNEL } from './session-events';
