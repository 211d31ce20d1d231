-- What a run would have to do, one row per kind of work (true: some is due). A run with none of it is
-- recorded as succeeded without starting Prefect or loading the model (agent-signals run costs a scan).
-- Each row mirrors the stage that does that work; a stage that gains a new condition adds it here.
select 'pending_messages' as work, exists (  -- the scan (scan_pending_users.sql: the same function)
    select 1 from signals.messages_to_read(%(at)s, null::timestamptz, null::text[], false) where not waiting
) as due
union all  -- embed_missing (missing_embeddings.sql)
select 'missing_embeddings', exists (select 1 from signals.signals where embedding is null and status <> 'merged')
union all  -- retract_orphans (delete_orphan_evidence.sql): evidence of conversations deleted from the source
select 'orphan_evidence', exists (
    select 1 from signals.evidence e
    where not exists (select 1 from source.conversations c where c.conversation_id = e.conversation_id)
)
union all  -- decay (archive_decayed.sql): a contextual signal whose retention fell under the threshold
select 'decayed_signals', exists (
    select 1 from signals.due_for_archive(%(at)s, %(decay)s::jsonb)
)
union all  -- summarize and refresh_views (take_dirty_users.sql): users whose signals changed since the views
select 'dirty_users', exists (select 1 from signals.dirty_users)
union all  -- summarize (summary_candidates.sql): a summary that no longer matches its user's signals
select 'stale_summaries', %(summaries)s and exists (select 1 from signals.stale_summaries)
union all  -- collect (open_batches.sql): a provider batch not collected yet (batch mode)
select 'open_batches', exists (select 1 from ops.batches where status in ('preparing', 'submitted', 'ended'))
