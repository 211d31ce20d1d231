-- The figures left by the shard flow runs of one hand-out of a run.
select shard, part, stats from ops.run_shards
where run_id = %(run_id)s and batch = %(batch)s
order by shard, part
