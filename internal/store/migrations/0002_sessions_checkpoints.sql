-- Conversations with the agent, each in one workspace.
CREATE TABLE sessions (
    id             TEXT    PRIMARY KEY,
    workspace_path TEXT    NOT NULL,
    title          TEXT    NOT NULL DEFAULT '',
    mode           TEXT    NOT NULL,
    model          TEXT    NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL, -- unix milliseconds
    updated_at     INTEGER NOT NULL  -- unix milliseconds, last activity
);
CREATE INDEX sessions_workspace ON sessions (workspace_path, updated_at DESC);

-- The model's history of a session, in order, with everything needed to send it back exactly.
CREATE TABLE messages (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL, -- 1, 2, … within the session
    run_id     TEXT    NOT NULL DEFAULT '',
    role       TEXT    NOT NULL,
    content    TEXT    NOT NULL DEFAULT '',
    thinking   TEXT    NOT NULL DEFAULT '',
    tool_calls TEXT,             -- JSON array as the model sent it; NULL when there were none
    tool_name  TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
);

-- One checkpoint per run: open while the run can still change files.
CREATE TABLE checkpoints (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    run_id     TEXT    NOT NULL UNIQUE,
    status     TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_at INTEGER NOT NULL
);
CREATE INDEX checkpoints_session ON checkpoints (session_id, status);

-- File contents, stored once however many snapshots share them. A rowid table, not WITHOUT
-- ROWID: rows are large, and SQLite keeps large rows out of the key's b-tree only then.
CREATE TABLE blobs (
    hash     TEXT    PRIMARY KEY, -- sha256 of the raw bytes, hex
    size     INTEGER NOT NULL,    -- raw bytes
    encoding INTEGER NOT NULL,    -- 0 raw, 1 deflate
    data     BLOB    NOT NULL
);

-- Each file a run changed: how it was before the first change, and what the agent left.
CREATE TABLE file_snapshots (
    id            INTEGER PRIMARY KEY,
    checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
    path          TEXT    NOT NULL, -- absolute
    prior_hash    TEXT    REFERENCES blobs (hash), -- NULL: the file did not exist
    prior_mode    INTEGER NOT NULL DEFAULT 0,     -- Go fs.FileMode permission bits
    created_dirs  TEXT    NOT NULL DEFAULT '[]',  -- JSON: folders that did not exist yet, deepest first
    recorded      INTEGER NOT NULL DEFAULT 0,     -- 1 once the agent's result is recorded
    result_hash   TEXT,                           -- sha256 of the agent's file; NULL until recorded, or deleted
    status        TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'kept', 'undone')),
    created_at    INTEGER NOT NULL,
    UNIQUE (checkpoint_id, path)
);
-- Finding whether any snapshot still needs a blob, for the clean-up after deleting a session.
CREATE INDEX file_snapshots_prior ON file_snapshots (prior_hash);
