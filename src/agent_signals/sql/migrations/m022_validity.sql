-- Validity (issue 20, point 3): the time a fact held, apart from when it was recorded.
--
-- valid_from / valid_to: when the fact began and stopped holding, from the date of the message that stated
-- it and what the user said there ("until March", "since last year", "no longer"): core/validity.py resolves
-- the phrase the model quotes. Null valid_from: not known (a signal from before validity, or a past fact whose
-- start was not said); null valid_to: it still holds. The user's own signals carry none: they hold until the
-- user removes them.
--
-- A fact whose validity ended is `ended`: out of the context views, the cap and the prompts like an archived
-- one, kept with its history. An update that changes a fact ends the old version (valid_to) and creates the
-- new one (valid_from, supersedes: the version it replaced); the old row is never overwritten. The decay stage
-- ends the signals whose valid_to has come (an `end` event each), so a fact leaves the views at the first run
-- at or after its end, and the as-of reads leave it out from its end exactly.

alter table signals.signals
    add column valid_from timestamptz,
    add column valid_to timestamptz,
    add column supersedes uuid references signals.signals (signal_id),
    add constraint signals_validity_check check (valid_from is null or valid_to is null or valid_from <= valid_to),
    add constraint signals_manual_validity_check check (origin = 'inferred' or (valid_from is null and valid_to is null));
comment on column signals.signals.valid_from is 'when the fact began to hold (null: not known)';
comment on column signals.signals.valid_to is 'when the fact stopped holding (null: it still holds)';
comment on column signals.signals.supersedes is 'the version of the fact this one replaced (an update ended it)';

alter table signals.signals drop constraint signals_status_check;
alter table signals.signals add constraint signals_status_check
    check (status in ('active', 'archived', 'ended', 'merged', 'deleted', 'retracted'));

-- the signals whose validity is due to end: a range of this index, not a scan of every signal
create index signals_valid_to_idx on signals.signals (valid_to)
    where valid_to is not null and status in ('active', 'archived');

alter table staging.apply_new_signals
    add column valid_from timestamptz,
    add column valid_to timestamptz,
    add column supersedes uuid;

-- A signal's text is never rewritten any more (an update writes a new version): the rewrites' staging table
-- (m019) goes.
drop table staging.apply_rewrites;
