-- Review (issue 31, point 4): what no deterministic check can decide is held for a person to review.
--
-- A held candidate (core/screen.py: outcome `hold`) is written by the write path like any other (its
-- deterministic id, embedding, evidence with quotes redacted, a `create` event), with status `pending` and
-- the reason it was held (review_reason). A pending signal is in no view, summary, fingerprint, cap count,
-- decay, prompt, as-of rebuild or export: every reader of signals.signals reads `active` (or names the
-- statuses it reads), so neither `pending` nor `rejected` reaches what agents read. A later candidate that
-- restates a pending signal adds its evidence and leaves it pending; one that restates a rejected signal is
-- not written (a rejected text is a tombstone, as a deleted one is).
--
-- An application's own UI (or `agent-signals review approve|reject`) decides through two functions
-- (sql/functions/90_review.sql): signals.review_approve makes a pending signal active, signals.review_reject
-- makes it rejected, each with one signals.events row (action review_approve / review_reject, actor: who decided, before and after:
-- the row). Approving a new version of a fact (a held update: `supersedes` names the version it replaces)
-- also ends that version, as the update would have, with a `review_end` event.

alter table signals.signals drop constraint signals_status_check;
alter table signals.signals add constraint signals_status_check
    check (status in ('active', 'archived', 'ended', 'merged', 'deleted', 'retracted', 'pending', 'rejected'));

alter table signals.signals add column review_reason text;
comment on column signals.signals.review_reason is
    'why the candidate was held for review (screen.py), redacted; null: it never was';

-- only the pipeline's candidates are held: the user's own signals are theirs
alter table signals.signals add constraint signals_review_origin_check
    check (status not in ('pending', 'rejected') or origin = 'inferred');

-- the review queue, oldest first (agent-signals review list, an application's review page)
create index signals_pending_idx on signals.signals (created_at, signal_id) where status = 'pending';

-- the write path stages a held candidate with its reason (apply_create.sql writes it `pending`)
alter table staging.apply_new_signals add column review_reason text;

-- A review's events name who decided (p_actor: a reviewer's name or id, 'reviewer' by default); every other
-- event keeps the closed set of actors.
alter table signals.events drop constraint events_actor_check;
alter table signals.events add constraint events_actor_check
    check (actor in ('pipeline', 'reconciler', 'user')
           or (action in ('review_approve', 'review_reject', 'review_end') and run_id is null
               and btrim(actor) <> ''));
