-- The first row of a flat file repeating a (conversation_id, message_id) of an earlier row, and that row.
select row_number, conversation_id, message_id, first
from (
    select row_number, conversation_id, message_id,
           min(row_number) over (partition by conversation_id, message_id) as first
    from load_rows
) numbered
where row_number > first
order by row_number
limit 1
