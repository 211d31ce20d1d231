-- One request of a batch being prepared (a user already waiting in another batch violates
-- batch_requests_one_open_idx: never sent twice).
insert into ops.batch_requests (batch_key, custom_id, user_id, purpose, fingerprint, call_index, calls, messages,
                                signals, max_tokens)
values (%(batch_key)s, %(custom_id)s, %(user_id)s, %(purpose)s, %(fingerprint)s, %(call_index)s, %(calls)s,
        %(messages)s, %(signals)s, %(max_tokens)s)
