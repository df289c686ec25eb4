-- Pending webhook deliveries by endpoint: the per-organization
-- cap on queued deliveries counts them in the write that queues more, and
-- this index keeps that count to the pending rows (finished ones stay for
-- the retention period and would otherwise be walked too).
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'pending';
