insert into ops.runs (run_id, kind, flow_run_id, window_start, window_end, model, prompt_version, answer_mode,
                      parameters)
values (%(run_id)s, %(kind)s, %(flow_run_id)s, %(window_start)s, %(window_end)s, %(model)s, %(prompt_version)s,
        %(answer_mode)s, %(parameters)s)
