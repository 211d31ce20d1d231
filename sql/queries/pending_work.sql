-- What a run would have to do, one row per kind of work (true: some is due). A run with none of it is
-- recorded as succeeded without starting Prefect or loading the model (agent-signals run costs a scan).
-- Each row mirrors the stage that does that work; a stage that gains a new condition adds it here.
select 'pending_messages' as work, exists (  -- the scan (scan_pending_users.sql: its twin filter, no window)
    select 1
    from source.conversations c
    left join signals.watermarks w on w.conversation_id = c.conversation_id
    left join (select user_id, max(at) as at from ops.forgotten group by user_id) f on f.user_id = c.user_id
    where c.flagged
      and exists (
          select 1
          from source.messages m
          where m.conversation_id = c.conversation_id
            and (m.created_at, m.message_id)
                > (coalesce(w.last_message_at, '-infinity'), coalesce(w.last_message_id, ''))
            and m.created_at > coalesce(f.at, '-infinity')
            and m.created_at <= %(at)s
            and m.role = 'user'
      )
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
    select 1 from signals.signals s
    where s.origin = 'inferred' and s.status = 'active' and s.tier = 'contextual'
      and signals.retention(s.last_seen_at, s.mention_count, %(at)s, %(base_days)s, %(boost)s) < %(threshold)s
)
union all  -- summarize and refresh_views (take_dirty_users.sql): users whose signals changed since the views
select 'dirty_users', exists (select 1 from signals.dirty_users)
union all  -- summarize (summary_candidates.sql): a summary that no longer matches its user's signals
select 'stale_summaries', %(summaries)s and exists (select 1 from signals.stale_summaries)
