-- Blobs may now be S2-compressed (encoding 2). A Gantry from before could not read them, so the
-- schema version moves on and such a Gantry refuses this database instead of failing each undo.
-- The trigger keeps the encodings to those this version reads.
CREATE TRIGGER blobs_known_encoding BEFORE INSERT ON blobs
WHEN NEW.encoding NOT IN (0, 1, 2)
BEGIN
  SELECT RAISE(ABORT, 'unknown blob encoding');
END;
