-- A pending signal rejected by a reviewer (m023): a tombstone for its text.
select signals.review_reject(%(signal_id)s, %(actor)s)
