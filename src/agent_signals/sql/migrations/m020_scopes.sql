-- Scopes (issue 20): a conversation may be with one agent of the product (app.conversations.agent_id, in
-- the source contract as source.conversations.agent_id; null: the product has one agent). A signal is either
-- about the user, for any agent (its profile: agent_id null), or about the user's relationship with one
-- agent (agent_id set). Texts are unique per user, origin and scope; a lookup for a candidate of an agent
-- reads that agent's signals and the profile's (a profile fact already covers every agent, and a profile
-- tombstone, a text the user deleted, is never learned again for any agent).

alter table app.conversations add column agent_id text;

create or replace view source.conversations as
select conversation_id, user_id, channel, extract as flagged, flagged_at, agent_id
from app.conversations;

-- an inferred signal of an agent is contextual: core is the user's identity, the same for every agent
alter table signals.signals add column agent_id text
    constraint signals_agent_scope_check check (agent_id is null or origin = 'manual' or tier = 'contextual');
comment on column signals.signals.agent_id is
    'null: a profile signal (about the user, for every agent); else the agent whose relationship it is about';

drop index signals.signals_user_text_uidx;
create unique index signals_user_text_uidx on signals.signals (user_id, origin, coalesce(agent_id, ''), normalized)
    where status <> 'merged';

alter table staging.apply_candidates add column agent_id text;
alter table staging.apply_new_signals add column agent_id text;

-- The user's own signals are scoped: add_signal takes the agent (sql/functions/50_user_paths.sql), and its
-- version without one goes.
drop function if exists signals.add_signal(text, text, text);

-- Views built before scopes: context.user_signals gains its scope in place (the per-user refresh inserts
-- it), its key (user, bucket, rank) becomes (user, scope, bucket, rank). context.agent_context is built by
-- the next refresh (the views are rebuilt whole when one of them is missing).
do $$
declare
    idx record;
begin
    if to_regclass('context.user_signals') is not null then
        alter table context.user_signals add column if not exists agent_id text;
        for idx in
            select i.indexrelid::regclass as name from pg_index i
            where i.indrelid = 'context.user_signals'::regclass and i.indisunique
        loop
            execute format('drop index %s', idx.name);
        end loop;
        create index if not exists user_signals_scope_idx on context.user_signals (user_id, agent_id, bucket, rank);
    end if;
end;
$$;
