-- A second fold level (issue 24): hourly snapshots past the hourly retention (default 90 days) are folded into one per
-- UTC day, time-weighted as the hourly fold is (db/repositories/retention-fold-repository.ts). fold_span_ms says what
-- a folded snapshot stands for: 3,600,000 (an hour) or 86,400,000 (a day); NULL for a snapshot as taken. Readers weigh
-- a snapshot by its fold_ms, as before; only the fold reads the span.
ALTER TABLE snapshots ADD COLUMN fold_span_ms INTEGER;
UPDATE snapshots SET fold_span_ms = 3600000 WHERE fold_ms IS NOT NULL;
