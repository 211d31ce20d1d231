-- The text every reader of a message sees, and the key of a signal's text.

-- Invisible characters removed, then Unicode NFKC: the twin of agent_signals.text.clean (its
-- HIDDEN_CHARACTERS is this very character class, in the syntax both regex engines read; tests/test_text.py
-- checks the literal and that both functions agree on hostile text). The pipeline reads source.messages
-- through clean(), so an evidence quote is a substring of signals.clean_text(message content): checks of
-- invariant 6 in SQL compare against it.
create or replace function signals.clean_text(content text) returns text
language sql immutable strict parallel safe as $$
    select normalize(
        regexp_replace(content, '[\u00AD\u034F\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u115F-\u1160\u17B4-\u17B5\u180B-\u180F\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0000-\U000E0FFF]', '', 'g'),
        NFKC)
$$;

-- The key of a signal's text as the user paths compute it: the twin of agent_signals.text.normalize_content
-- (tests keep them equal); the same words with a hidden character inside are the same signal.
create or replace function signals.normalize_text(content text) returns text
language sql immutable parallel safe as $$
    select btrim(
        lower(regexp_replace(
            regexp_replace(
                translate(signals.clean_text(content), E'\u2018\u2019\u201c\u201d\u00a0', E'''''"" '),
                E'[\\x01-\\x1f\\x7f]', ' ', 'g'),
            E'\\s+', ' ', 'g')),
        E' .,;:!?''"()[]')
$$;

grant execute on function signals.clean_text(text), signals.normalize_text(text) to agent_signals_user_paths;
