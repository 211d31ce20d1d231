-- After a successful refresh: the users it refreshed are clean unless they changed again meanwhile.
delete from signals.dirty_users d
using ops.touched_users t
where t.run_id = %(run_id)s and t.user_id = d.user_id and d.since <= %(refresh_started)s
