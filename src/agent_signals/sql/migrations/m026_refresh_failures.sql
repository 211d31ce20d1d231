-- A user whose rows of the context views fail to refresh (a model or a data test refusing them) is a failure
-- of stage `refresh` (issue 33): recorded, never counted against the user, the user left dirty for the next
-- run, while the other users' rows are refreshed.
alter table ops.failures drop constraint failures_stage_check;
alter table ops.failures add constraint failures_stage_check
    check (stage in ('extract', 'validate', 'embed', 'apply', 'refresh'));
