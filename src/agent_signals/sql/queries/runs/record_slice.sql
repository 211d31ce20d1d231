insert into ops.backfill_slices (backfill_key, slice_start, slice_end, run_id, users, messages)
values (%(backfill_key)s, %(slice_start)s, %(slice_end)s, %(run_id)s, %(users)s, %(messages)s)
on conflict (backfill_key, slice_start) do nothing
