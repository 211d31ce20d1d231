-- Inferred signals without any evidence row (must be none).
select signal_id
from {batch}
where origin = 'inferred' and status not in ('merged', 'retracted')
  and signal_id not in (select signal_id from signals.evidence)
