-- Who is collecting into this file: one row per lock name ('collector'), taken in a BEGIN IMMEDIATE transaction so two
-- processes cannot both win. A row left by a process that died is stale when its pid is gone (same host) or its
-- heartbeat is older than the stale limit (another host sharing the volume, or a pid reused); the next one takes over.
CREATE TABLE locks (
  name          TEXT PRIMARY KEY,
  owner         TEXT NOT NULL,      -- random token of the holder (a process may hold locks on several files)
  pid           INTEGER NOT NULL,
  hostname      TEXT NOT NULL,
  command       TEXT NOT NULL,      -- what holds it: 'demo', 'collect', 'collect --watch'
  acquired_at   INTEGER NOT NULL,   -- epoch ms
  heartbeat_at  INTEGER NOT NULL    -- epoch ms, refreshed while held
);
