delete from signals.summaries where user_id = %(user_id)s
