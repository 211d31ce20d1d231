-- A tombstone for one of the user's signals, within the agents the caller may change (null: any).
select mcp.forget(%(user_id)s, %(signal_id)s, %(agents)s)
