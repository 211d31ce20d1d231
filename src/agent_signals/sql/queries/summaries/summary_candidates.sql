-- The users whose summary the summarize stage rebuilds (signals.stale_summaries, m011), the dirty users among
-- them, whoever consumed the dirty marks.
select user_id, fingerprint from signals.stale_summaries
