-- A subagent's run keeps its own history (its messages) and checkpoint in a session of its own,
-- under the session whose run started it; its events go into the parent's log. Such sessions are
-- not listed, and go when their parent goes.
ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions (id) ON DELETE CASCADE;
CREATE INDEX sessions_parent ON sessions (parent_id);
