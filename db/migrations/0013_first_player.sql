-- Powderhorn database, schema version 13: who moves first (SEQ-01). A scenario names the side
-- whose player turn comes first, or NULL when the sides roll off for it (every scenario saved
-- before this version). A battle keeps the roll-off's dice, a pair a round, as JSON ('[]': no
-- roll-off, every battle saved before this version); they are the first dice of its stream.
ALTER TABLE scenarios ADD COLUMN first_player INTEGER CHECK (first_player IN (0, 1));
ALTER TABLE battles ADD COLUMN roll_off_json TEXT NOT NULL DEFAULT '[]';
