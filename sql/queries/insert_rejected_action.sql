insert into ops.rejected_actions (run_id, user_id, stage, action, messages, reason, prompt_version, model)
values (%(run_id)s, %(user_id)s, %(stage)s, %(action)s, %(messages)s, %(reason)s, %(prompt_version)s, %(model)s)
