-- A batch about to be sent, recorded before anything is uploaded (status `preparing`): a run that dies after
-- the provider created it leaves this row, and the next run finds the provider's batch by batch_key.
insert into ops.batches (batch_key, run_id, purpose, model, prompt_version, answer_mode, requests)
values (%(batch_key)s, %(run_id)s, %(purpose)s, %(model)s, %(prompt_version)s, %(answer_mode)s, %(requests)s)
