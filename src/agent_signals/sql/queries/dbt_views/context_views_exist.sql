-- Whether the incremental context models have been built at least once.
select to_regclass('context.user_signals') is not null and to_regclass('context.user_context') is not null
   and to_regclass('context.agent_context') is not null
