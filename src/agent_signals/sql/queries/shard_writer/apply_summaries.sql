-- The extraction answers' summaries of exactly what their users' transactions wrote, in one statement, each
-- with the fingerprint of the signal set it describes (computed now). Nothing is written for a user with no
-- active signal (everything learned was archived at once): no set, no summary. Returns the users written.
insert into signals.summaries as m (user_id, summary, fingerprint, signal_count, model, prompt_version, run_id, updated_at)
select given.user_id, given.summary, signals.fingerprint(given.user_id),
       (select count(*) from signals.signals where user_id = given.user_id and status = 'active'),
       given.model, given.prompt_version, %(run_id)s, now()
from unnest(%(user_ids)s::text[], %(summaries)s::text[], %(models)s::text[], %(prompt_versions)s::text[])
     as given (user_id, summary, model, prompt_version)
where exists (select from signals.signals where user_id = given.user_id and status = 'active')
on conflict (user_id) do update
set summary = excluded.summary, fingerprint = excluded.fingerprint, signal_count = excluded.signal_count,
    model = excluded.model, prompt_version = excluded.prompt_version, run_id = excluded.run_id,
    updated_at = excluded.updated_at
returning m.user_id
