-- Decay whose cost follows the signals due, not the table (issue 19, point 5): signals.due_for_archive
-- (sql/functions/30_decay.sql) reads one range of this index per mention count in use.

create index signals_contextual_due_idx on signals.signals (mention_count, last_seen_at)
    where origin = 'inferred' and status = 'active' and tier = 'contextual';
