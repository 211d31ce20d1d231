-- A user's signal named by its id or a prefix of it (as `signals list` prints). An exact prefix match, never
-- a pattern: user_paths.resolve_signal has already refused anything but hex digits and the UUID's dashes.
select signal_id from signals.signals
where user_id = %(user_id)s and starts_with(signal_id::text, %(prefix)s)
limit 2
