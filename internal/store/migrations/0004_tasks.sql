-- The task list the model keeps for a session (task_create, task_update), which the person sees
-- as a checklist. Numbered from 1 within the session, in the order they were created.
CREATE TABLE tasks (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    id         INTEGER NOT NULL,
    title      TEXT    NOT NULL,
    status     TEXT    NOT NULL CHECK (status IN ('pending', 'in_progress', 'done')),
    notes      TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL, -- unix milliseconds
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, id)
);
