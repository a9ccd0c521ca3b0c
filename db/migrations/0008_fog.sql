-- Powderhorn database, schema version 8: fog of war (issue #17 item 10).
--
-- A battle may be played with fog of war: each player sees only the enemy units their own
-- units can see, and the others where they were last seen. Offered for solo and hot-seat
-- battles; a referee and the computer playing both sides see everything. Battles stored before
-- this version were played without it.
ALTER TABLE battles ADD COLUMN fog INTEGER NOT NULL DEFAULT 0 CHECK (fog IN (0, 1));
