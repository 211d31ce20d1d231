insert into signals.events (signal_id, user_id, run_id, action, actor, prompt_version, model, before, after)
values (%(signal_id)s, %(user_id)s, %(run_id)s, %(action)s, %(actor)s, %(prompt_version)s, %(model)s,
        %(before)s, %(after)s)
