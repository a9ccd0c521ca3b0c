-- Powderhorn database, schema version 7: typed, resumable battle sessions.
--
-- 1. A battle row says how the battle is played, not only what it replays: the army lists as
--    they were when it began (so editing a list later never changes a battle), where its dice
--    come from (a seed, or physical dice typed in at a real table), how orders work, who moved
--    first, who plays (solo against the computer, hot-seat, a referee at a real table, or the
--    computer on both sides),
--    whether it is still going, and its result once it ended. Game turn, phase and active side
--    are kept with every entry so the Battles list needs no replay.
--    Battles stored before this version were made by tests only: they keep seeded dice, free
--    orders (as their logs were written), hot-seat, and the lists they find at resume.
ALTER TABLE battles ADD COLUMN lists_json TEXT CHECK (lists_json IS NULL OR json_valid(lists_json));
ALTER TABLE battles ADD COLUMN dice_kind TEXT NOT NULL DEFAULT 'seeded'
    CHECK (dice_kind IN ('seeded', 'physical', 'script'));
ALTER TABLE battles ADD COLUMN dice_script TEXT CHECK (dice_script IS NULL OR json_valid(dice_script));
ALTER TABLE battles ADD COLUMN orders TEXT NOT NULL DEFAULT 'free' CHECK (orders IN ('full', 'free'));
ALTER TABLE battles ADD COLUMN first_player INTEGER NOT NULL DEFAULT 0 CHECK (first_player IN (0, 1));
ALTER TABLE battles ADD COLUMN mode TEXT NOT NULL DEFAULT 'hotseat'
    CHECK (mode IN ('solo', 'hotseat', 'referee', 'computer'));
ALTER TABLE battles ADD COLUMN computer_side INTEGER CHECK (computer_side IS NULL OR computer_side IN (0, 1));
ALTER TABLE battles ADD COLUMN status TEXT NOT NULL DEFAULT 'in_progress'
    CHECK (status IN ('in_progress', 'ended'));
ALTER TABLE battles ADD COLUMN result_json TEXT CHECK (result_json IS NULL OR json_valid(result_json));
ALTER TABLE battles ADD COLUMN game_turn INTEGER NOT NULL DEFAULT 0 CHECK (game_turn >= 0);
ALTER TABLE battles ADD COLUMN phase TEXT NOT NULL DEFAULT 'deployment';
ALTER TABLE battles ADD COLUMN active_side INTEGER NOT NULL DEFAULT 0 CHECK (active_side IN (0, 1));
ALTER TABLE battles ADD COLUMN updated_at TEXT;

-- 2. The log records what happened at the table, undo and redo included: an entry is an
--    action with its events, or an undo or a redo of the entry before. Nothing is ever deleted
--    (the triggers of version 2 still hold), so the log is the whole audit trail, and the
--    battle as it stands, with its redo stack, is a fold over it.
--    dice_used: dice the action drew (the stream's position after an undo); hand_dice: the
--    dice a person typed in for it; actor: who decided it ('player', 'computer', 'referee').
ALTER TABLE battle_events ADD COLUMN kind TEXT NOT NULL DEFAULT 'action'
    CHECK (kind IN ('action', 'undo', 'redo'));
ALTER TABLE battle_events ADD COLUMN dice_used INTEGER NOT NULL DEFAULT 0 CHECK (dice_used >= 0);
ALTER TABLE battle_events ADD COLUMN hand_dice TEXT CHECK (hand_dice IS NULL OR json_valid(hand_dice));
ALTER TABLE battle_events ADD COLUMN actor TEXT;

-- Entries written before this version did not say how many dice they drew: every die is in a
-- dice_rolled event, so count them there. (The triggers refuse UPDATE of an entry, so they
-- are set aside for this one statement.)
DROP TRIGGER battle_events_no_update;
UPDATE battle_events SET dice_used = (
    SELECT COALESCE(SUM(json_array_length(json_extract(e.value, '$.dice'))), 0)
    FROM json_each(battle_events.events_json) AS e
    WHERE json_extract(e.value, '$.event') = 'dice_rolled'
);
CREATE TRIGGER battle_events_no_update
BEFORE UPDATE ON battle_events
BEGIN
    SELECT RAISE(ABORT, 'battle_events is append-only: a recorded battle entry cannot be changed');
END;
