select signals.add_signal(%(user_id)s, %(content)s, %(kind)s, %(agent_id)s)
