select signals.add_signal(%(user_id)s, %(content)s, %(kind)s)
