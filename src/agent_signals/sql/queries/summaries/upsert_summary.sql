-- A user's summary with the fingerprint of the signal set it describes (computed now when not given:
-- a summary written by the extraction call describes the set its own transaction just wrote). Nothing is
-- written for a user with no active signal (everything learned was archived at once): no set, no summary;
-- nor when the set changed since the given fingerprint was taken (a user's edit meanwhile: rebuilt later).
insert into signals.summaries (user_id, summary, fingerprint, signal_count, model, prompt_version, run_id, updated_at)
select
    %(user_id)s, %(summary)s,
    coalesce(%(fingerprint)s, signals.fingerprint(%(user_id)s)),
    coalesce(%(signal_count)s, (select count(*) from signals.signals
                                where user_id = %(user_id)s and status = 'active')),
    %(model)s, %(prompt_version)s, %(run_id)s, now()
where exists (select from signals.signals where user_id = %(user_id)s and status = 'active')
  and coalesce(%(fingerprint)s, signals.fingerprint(%(user_id)s)) = signals.fingerprint(%(user_id)s)
on conflict (user_id) do update
set summary = excluded.summary, fingerprint = excluded.fingerprint, signal_count = excluded.signal_count,
    model = excluded.model, prompt_version = excluded.prompt_version, run_id = excluded.run_id,
    updated_at = excluded.updated_at
