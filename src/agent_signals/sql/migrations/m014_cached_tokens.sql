-- Prompt tokens the provider read from its prompt cache (issue 16, point 7): part of prompt_tokens, counted
-- when the provider reports them (OpenAI's usage.prompt_tokens_details.cached_tokens, Anthropic's
-- cache_read_input_tokens), 0 otherwise.
alter table ops.runs add column cached_prompt_tokens bigint not null default 0;
