-- The first row of a flat file whose conversation columns (user_id, channel, agent_id, extract) differ from those of
-- its conversation's first row: which column, and that first row.
with first_rows as (
    select distinct on (conversation_id) conversation_id, user_id, channel, agent_id, extract, row_number
    from load_rows
    order by conversation_id, row_number
)
select r.row_number,
       r.conversation_id,
       case when r.user_id <> f.user_id then 'user_id'
            when r.channel is distinct from f.channel then 'channel'
            when r.agent_id is distinct from f.agent_id then 'agent_id'
            else 'extract' end as column_name,
       f.row_number as first
from load_rows r
join first_rows f using (conversation_id)
where (r.user_id, r.channel, r.agent_id, r.extract) is distinct from (f.user_id, f.channel, f.agent_id, f.extract)
order by r.row_number
limit 1
