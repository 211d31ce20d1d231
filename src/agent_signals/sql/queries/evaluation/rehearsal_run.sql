-- A replay's run row, inside the user's rehearsal transaction (always rolled back): what apply records for
-- the candidate's proposals (quarantine, rejected actions, touched users) refers to a run (ops.runs), and a
-- replay leaves no ledger row behind.
insert into ops.runs (run_id, kind, status, model, prompt_version)
values (%(run_id)s, 'manual', 'running', %(model)s, %(prompt_version)s)
on conflict (run_id) do nothing
