-- Users whose signals changed since the views last refreshed them (the run refreshes these).
select user_id from signals.dirty_users order by user_id
