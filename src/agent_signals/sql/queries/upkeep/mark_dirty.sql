insert into signals.dirty_users (user_id) select unnest(%(user_ids)s::text[]) on conflict do nothing
