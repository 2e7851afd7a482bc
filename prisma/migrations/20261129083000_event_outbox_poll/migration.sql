-- Events to applications (issue 39): the outbox no longer NOTIFYs from the writing transaction. A transaction that
-- has sent a NOTIFY holds PostgreSQL's one notification-queue lock from its pre-commit through its commit record's
-- flush, so every change that wrote an outbox row (a logout of a subscribed application, say) committed one at a
-- time: 16 clients inserting into a table with this trigger made ~200-240 commits/s here against ~1,700-1,950
-- without it (pgbench), and logouts queued behind it until their pool waits timed out (bench/events.ts). The worker
-- finds new rows by polling instead (EVENTS_POLL_MS, docs/worker.md); an operator's redelivery still notifies, from
-- its own statement.
DROP TRIGGER IF EXISTS event_outbox_notify ON "event_outbox";
DROP FUNCTION IF EXISTS event_outbox_notify();
