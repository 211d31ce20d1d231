-- A summary describes the user's profile (signals.fingerprint reads only profile signals, agent_id null): a
-- user whose only active signals are of one agent has no profile and so no summary to rebuild. Before,
-- such a user was listed here for ever with the fingerprint of an empty profile, and every run, scheduled
-- ones too, started the flow to drop a summary that did not exist (issue 33).
create or replace view signals.stale_summaries as
with users as (
    select user_id from signals.signals where status = 'active' and agent_id is null
    union
    select user_id from signals.summaries
)
select u.user_id, f.fingerprint
from users u
cross join lateral (select signals.fingerprint(u.user_id) as fingerprint) f
left join signals.summaries m on m.user_id = u.user_id
where m.fingerprint is distinct from f.fingerprint;
