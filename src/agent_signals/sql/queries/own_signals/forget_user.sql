select signals.forget_user(%(user_id)s)
