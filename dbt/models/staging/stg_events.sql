select event_id, signal_id, user_id, run_id, action, actor, prompt_version, model, at
from {{ source('signals', 'events') }}
