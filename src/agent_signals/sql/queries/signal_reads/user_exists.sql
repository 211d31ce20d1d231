select exists (select 1 from source.conversations where user_id = %(user_id)s)
    or exists (select 1 from signals.signals where user_id = %(user_id)s)
