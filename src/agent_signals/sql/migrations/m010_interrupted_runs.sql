-- A run stopped by SIGINT or SIGTERM is `interrupted` (its figures are what it committed; the next run
-- finishes the rest), apart from `failed` (something broke) and `abandoned` (its process died).

alter table ops.runs drop constraint runs_status_check;
alter table ops.runs add constraint runs_status_check
    check (status in ('running', 'succeeded', 'partial', 'failed', 'abandoned', 'budget_exhausted',
                      'interrupted'));
