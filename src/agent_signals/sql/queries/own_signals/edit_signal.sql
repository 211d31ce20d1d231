select signals.edit_signal(%(user_id)s, %(signal_id)s, %(content)s, %(kind)s)
