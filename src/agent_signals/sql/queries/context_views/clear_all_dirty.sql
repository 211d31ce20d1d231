-- After a full rebuild: every user changed before it started is clean.
delete from signals.dirty_users where since <= %(refresh_started)s
