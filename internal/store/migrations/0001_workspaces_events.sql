-- Recent projects: one row per folder the user has opened.
CREATE TABLE workspaces (
    id         INTEGER PRIMARY KEY,
    path       TEXT    NOT NULL UNIQUE,
    name       TEXT    NOT NULL,
    created_at INTEGER NOT NULL, -- unix milliseconds
    opened_at  INTEGER NOT NULL  -- unix milliseconds
);
CREATE INDEX workspaces_opened ON workspaces (opened_at DESC);

-- The UI event log: every event the emitter posts, in the order it posted them, so a session can
-- be replayed exactly. seq is global; session_id/run_id are empty for app-wide events.
CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT    NOT NULL UNIQUE,
    session_id TEXT    NOT NULL DEFAULT '',
    run_id     TEXT    NOT NULL DEFAULT '',
    type       TEXT    NOT NULL,
    payload    TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX events_session ON events (session_id, seq);
