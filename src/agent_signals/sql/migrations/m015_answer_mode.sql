-- How each run asked the model for its answers (issue 16, point 2; AGENT_SIGNALS_STRUCTURED_ANSWERS):
-- json_schema (the prompt family's answer schema as response_format), json_object_schema (JSON mode carrying
-- that schema: llama-cpp-python's server), json_object (JSON mode) or none (the prompt alone). Null for runs
-- recorded before this migration.
alter table ops.runs
    add column answer_mode text
        check (answer_mode in ('json_schema', 'json_object_schema', 'json_object', 'none'));
