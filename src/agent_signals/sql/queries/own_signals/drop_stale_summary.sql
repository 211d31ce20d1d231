-- A user's summary once a change by hand left it describing another set of signals (a deleted or edited
-- text must not stay in it): gone in the change's transaction; the next run writes a new one.
delete from signals.summaries
where user_id = %(user_id)s and fingerprint is distinct from signals.fingerprint(%(user_id)s)
