select signals.delete_signal(%(user_id)s, %(signal_id)s)
