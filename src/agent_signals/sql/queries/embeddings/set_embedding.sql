select signals.set_embedding(%(signal_id)s, %(embedding)s::vector)
