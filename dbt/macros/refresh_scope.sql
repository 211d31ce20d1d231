{#-
  Which users a build covers. With var run_id (and no --full-refresh): the users in ops.touched_users for
  that run; otherwise every user. Models use `touched_users_only`, which also requires an incremental
  run (a first build or a full refresh always covers everyone).

  run_id 'session' compiles the scope against the setting agent_signals.refresh_users (an array of user
  ids) instead of a literal id: the compiled SQL of that mode is what a pipeline run executes to refresh its
  touched users, and a user path to refresh one user (agent_signals.views.refresh_touched, refresh_users),
  without starting dbt.
-#}

{% macro run_id() -%}
    {%- set value = var('run_id', none) -%}
    {%- if value is none or (value | string | trim) in ('', 'None', 'none', 'null') or flags.FULL_REFRESH -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set value = value | string | trim | lower -%}
    {%- if value == 'session' -%}
        {{ return(value) }}
    {%- endif -%}
    {%- if modules.re.fullmatch('[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', value) is none -%}
        {{ exceptions.raise_compiler_error("var run_id must be a UUID or 'session', got " ~ value) }}
    {%- endif -%}
    {{ return(value) }}
{%- endmacro %}

{#- A SQL condition true for the users this build covers (tests and hooks: no incremental check). -#}
{% macro refresh_scope(column='user_id') -%}
    {%- set run = run_id() -%}
    {%- if run is none -%}
        true
    {#- `= any(array(subquery))`: the touched users are read once, then every table is probed by its index
        on user_id (an `in (subquery)` is planned as a join that scans the whole table). -#}
    {%- elif run == 'session' -%}
        {{ column }} = any(current_setting('agent_signals.refresh_users')::text[])
    {%- else -%}
        {{ column }} = any(array(select t.user_id from {{ source('ops', 'touched_users') }} t
                                 where t.run_id = '{{ run }}'::uuid))
    {%- endif -%}
{%- endmacro %}

{#- In a model: only the touched users on an incremental run, everyone on a first or full build. -#}
{% macro touched_users_only(column='user_id') -%}
    {%- if is_incremental() -%}
        {{ refresh_scope(column) }}
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}

{#-
  Pre-hook of the per-user incremental models: remove the covered users' rows first, so that a user who no
  longer has any row (all signals deleted) disappears; delete+insert alone only replaces users that still
  have rows. Runs in the model's transaction: readers see the old rows until the new ones commit.
-#}
{% macro delete_covered_users() -%}
    {%- if is_incremental() -%}
        delete from {{ this }} where {{ refresh_scope('user_id') }}
    {%- endif -%}
{%- endmacro %}

{#-
  Generic tests configured with `where: refresh_scope` check only the users this build covers, so that an
  incremental refresh costs what the touched users cost. Any other `where` works as in dbt.
-#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- if where == 'refresh_scope' -%}
        {%- set where = refresh_scope('user_id') -%}
    {%- endif -%}
    {%- if where and where != 'true' -%}
        {%- set filtered -%}
            (select * from {{ relation }} where {{ where }}) dbt_subquery
        {%- endset -%}
        {{ return(filtered) }}
    {%- else -%}
        {{ return(relation) }}
    {%- endif -%}
{%- endmacro %}

{#-
  First pre-hook of the per-user incremental models: one refresh at a time per model (a pipeline run and a
  `views refresh` by hand would otherwise both delete and re-insert the same users' rows). Held until the
  model's transaction ends.
-#}
{% macro lock_model() -%}
    select pg_advisory_xact_lock(hashtextextended('agent_signals.views:' || '{{ this }}', 0))
{%- endmacro %}
