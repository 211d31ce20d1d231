-- One failure of a user (message and raw answer already redacted), the messages the failing call read, and
-- when the user may be tried again (null: at the next run).
insert into ops.failures (run_id, user_id, stage, error_kind, message, raw_answer, counted, messages, retry_after)
values (%(run_id)s, %(user_id)s, %(stage)s, %(error_kind)s, %(message)s, %(raw_answer)s, %(counted)s, %(messages)s,
        now() + make_interval(secs => %(retry_after_s)s))
