select user_id, summary, fingerprint, signal_count, model, prompt_version, run_id, updated_at
from {{ source('signals', 'summaries') }}
