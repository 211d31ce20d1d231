-- The figures of one shard processed as its own flow run (a retried shard replaces its row).
insert into ops.run_shards (run_id, batch, shard, part, flow_run_id, stats)
values (%(run_id)s, %(batch)s, %(shard)s, %(part)s, %(flow_run_id)s, %(stats)s)
on conflict (run_id, batch, shard, part) do update
    set flow_run_id = excluded.flow_run_id, stats = excluded.stats, finished_at = now()
