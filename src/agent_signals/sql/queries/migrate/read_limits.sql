-- The shared limits as the database holds them (name, value).
select name, value from signals.limits
