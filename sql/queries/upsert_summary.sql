insert into signals.summaries (user_id, summary, fingerprint, signal_count, model, prompt_version, run_id, updated_at)
values (%(user_id)s, %(summary)s, %(fingerprint)s, %(signal_count)s, %(model)s, %(prompt_version)s, %(run_id)s, now())
on conflict (user_id) do update
set summary = excluded.summary, fingerprint = excluded.fingerprint, signal_count = excluded.signal_count,
    model = excluded.model, prompt_version = excluded.prompt_version, run_id = excluded.run_id,
    updated_at = excluded.updated_at
