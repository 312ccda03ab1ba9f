-- What a message's tool results say in structured form (files read and changed, files an undo
-- restored, commands and their exit codes, the files a stale-file note named), as JSON; NULL for
-- messages written before this migration, whose results the agent still reads from their text.
ALTER TABLE messages ADD COLUMN meta TEXT;
