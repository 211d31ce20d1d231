-- A pending signal made active by a reviewer (m023): its status and tier after, and why its tier changed.
select status, tier, note from signals.review_approve(%(signal_id)s, %(actor)s)
