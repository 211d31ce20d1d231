-- A user's signal named by its id or a unique prefix of it (as `signals list` prints).
select signal_id from signals.signals
where user_id = %(user_id)s and signal_id::text like %(prefix)s || '%%'
limit 2
