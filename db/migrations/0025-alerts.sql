-- Alerts (issue 23; core/alert-model.ts, core/alert-state.ts). One row per episode of a rule about a subject: opened
-- pending at the first evaluation that sees the breach, firing once it has held for the rule's hold time, resolved at
-- the first evaluation it no longer holds. A pending episode whose breach clears before then is deleted (nothing was
-- said). At most one open (pending or firing) episode per rule and subject. Times epoch ms UTC.
CREATE TABLE alerts (
  id             INTEGER PRIMARY KEY,
  rule           TEXT NOT NULL,
  subject        TEXT NOT NULL,
  phase          TEXT NOT NULL CHECK (phase IN ('pending', 'firing', 'resolved')),
  pending_since  INTEGER NOT NULL,
  firing_since   INTEGER,
  resolved_at    INTEGER,
  -- the figures (JSON object, names carry units) and the sentence of the observation that fired it
  figures_json   TEXT NOT NULL,
  sentence       TEXT NOT NULL,
  link_href      TEXT NOT NULL,
  link_label     TEXT NOT NULL
);
CREATE UNIQUE INDEX alerts_open ON alerts(rule, subject) WHERE phase <> 'resolved';
CREATE INDEX alerts_firing_since ON alerts(firing_since);

-- The outbox: one row per transition (firing, resolved) per delivery target, written in the same transaction as the
-- state change, so a transition is never lost across a restart and never queued twice. Sent off the snapshot path.
-- status: pending (to try at next_attempt_at), delivered, failed (gave up after its bound of attempts).
CREATE TABLE alert_deliveries (
  id               INTEGER PRIMARY KEY,
  alert_id         INTEGER NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  transition       TEXT NOT NULL CHECK (transition IN ('firing', 'resolved')),
  at               INTEGER NOT NULL,
  target_url       TEXT NOT NULL,
  format           TEXT NOT NULL CHECK (format IN ('json', 'slack')),
  payload_json     TEXT NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  INTEGER NOT NULL,
  UNIQUE (alert_id, transition, target_url)
);
CREATE INDEX alert_deliveries_due ON alert_deliveries(status, next_attempt_at);

-- Every attempt: when, how long, the HTTP status (NULL when none came: refused, timed out) and the error.
CREATE TABLE alert_delivery_attempts (
  id           INTEGER PRIMARY KEY,
  delivery_id  INTEGER NOT NULL REFERENCES alert_deliveries(id) ON DELETE CASCADE,
  at           INTEGER NOT NULL,
  duration_ms  INTEGER NOT NULL,
  http_status  INTEGER,
  error        TEXT
);
CREATE INDEX alert_delivery_attempts_delivery ON alert_delivery_attempts(delivery_id);
