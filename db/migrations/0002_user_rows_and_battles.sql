-- Powderhorn database, schema version 2: user troop types on any list, and battles with their
-- append-only log.
--
-- 1. Version 1 knew only whole lists as shipped or user. Players also add their own rows to a
--    shipped list (a regiment the book lacks), so each troop row now carries its own origin.
--    Rows of user lists become 'user', rows of shipped lists 'shipped'. The default is 'user'
--    so that a row written without an origin can never pass for shipped data.
ALTER TABLE troop_types
    ADD COLUMN origin TEXT NOT NULL DEFAULT 'user' CHECK (origin IN ('shipped', 'user'));

UPDATE troop_types
SET origin = COALESCE((SELECT origin FROM army_lists WHERE army_lists.id = troop_types.list_id), 'user');

CREATE INDEX troop_types_origin ON troop_types (list_id, origin, pos);

-- 2. Battles. The scenario is stored as it was when the battle began (JSON), so editing or
--    deleting the scenario later never changes how the battle replays. The u64 dice seed is kept
--    as the signed 64-bit integer with the same bits.
CREATE TABLE battles (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    scenario_id   TEXT NOT NULL,
    scenario_json TEXT NOT NULL CHECK (json_valid(scenario_json)),
    seed          INTEGER NOT NULL,
    rules_version TEXT NOT NULL,
    created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;

-- One row per battle-log entry: the action a player asked for and the events it produced.
-- seq is the entry's index in the log (0 = first).
CREATE TABLE battle_events (
    battle_id   INTEGER NOT NULL REFERENCES battles (id),
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    action_json TEXT NOT NULL CHECK (json_valid(action_json)),
    events_json TEXT NOT NULL CHECK (json_valid(events_json)),
    recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (battle_id, seq)
) STRICT;

-- Append-only, enforced by the database itself and not only by the store's API: an entry is
-- added at the end of its battle's log, and is never changed or deleted afterwards. (Undo is a
-- cursor over the log, not a deletion.)
CREATE TRIGGER battle_events_append_at_end
BEFORE INSERT ON battle_events
WHEN NEW.seq <> (SELECT COALESCE(MAX(seq) + 1, 0) FROM battle_events WHERE battle_id = NEW.battle_id)
BEGIN
    SELECT RAISE(ABORT, 'battle_events is append-only: a new entry must come right after the last one');
END;

CREATE TRIGGER battle_events_no_update
BEFORE UPDATE ON battle_events
BEGIN
    SELECT RAISE(ABORT, 'battle_events is append-only: a recorded battle entry cannot be changed');
END;

CREATE TRIGGER battle_events_no_delete
BEFORE DELETE ON battle_events
BEGIN
    SELECT RAISE(ABORT, 'battle_events is append-only: a recorded battle entry cannot be deleted');
END;
