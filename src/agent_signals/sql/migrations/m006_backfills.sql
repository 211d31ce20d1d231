-- Backfills: a window replayed slice by slice. A finished slice is recorded, so a backfill restarted with
-- the same parameters (its key) skips it: resumable after a crash, idempotent by construction.

create table ops.backfill_slices (
    backfill_key  text not null,
    slice_start   timestamptz not null,
    slice_end     timestamptz not null,
    run_id        uuid references ops.runs (run_id),
    users         integer not null default 0,
    messages      integer not null default 0,
    finished_at   timestamptz not null default now(),
    primary key (backfill_key, slice_start)
);

alter table ops.runs add column parameters jsonb;
