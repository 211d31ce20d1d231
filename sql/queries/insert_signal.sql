insert into signals.signals as s (
    signal_id, user_id, content, normalized, kind, tier, origin, status,
    mention_count, first_seen_at, last_seen_at, embedding
)
values (
    %(signal_id)s, %(user_id)s, %(content)s, %(normalized)s, %(kind)s, %(tier)s, 'inferred', 'active',
    %(mentions)s, %(first_seen_at)s, %(last_seen_at)s, %(embedding)s::vector
)
on conflict (signal_id) do nothing
returning signal_id, to_jsonb(s) - 'embedding' as snapshot
