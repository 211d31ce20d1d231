insert into ops.quarantine (run_id, user_id, content, kind, tier, evidence, reason)
values (%(run_id)s, %(user_id)s, %(content)s, %(kind)s, %(tier)s, %(evidence)s, %(reason)s)
