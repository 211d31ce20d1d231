select slice_start from ops.backfill_slices where backfill_key = %(backfill_key)s
