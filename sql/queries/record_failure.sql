insert into ops.failures (run_id, user_id, stage, error_kind, message, raw_answer)
values (%(run_id)s, %(user_id)s, %(stage)s, %(error_kind)s, %(message)s, %(raw_answer)s)
