update signals.signals s
set content = %(content)s, normalized = %(normalized)s, kind = %(kind)s, tier = %(tier)s,
    embedding = coalesce(%(embedding)s::vector, embedding), updated_at = now()
where signal_id = %(signal_id)s and origin = 'inferred'
