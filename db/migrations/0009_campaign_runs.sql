-- Powderhorn database, schema version 9: linked campaigns and their runs.
--
-- 1. A campaign keeps what links its battles (issue #19): its own sides, in its own order; for
--    each battle, which campaign side each scenario side is and how the battle follows the one
--    before (days between, where the weather comes from, same ground or not); the carry rules
--    and the campaign's victory condition. Each is JSON in the model's own shape, validated by
--    the model when read.
ALTER TABLE campaigns ADD COLUMN sides_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(sides_json));
ALTER TABLE campaigns ADD COLUMN rules_json TEXT CHECK (rules_json IS NULL OR json_valid(rules_json));
ALTER TABLE campaigns ADD COLUMN victory_json TEXT CHECK (victory_json IS NULL OR json_valid(victory_json));
ALTER TABLE campaign_battles ADD COLUMN sides_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(sides_json));
ALTER TABLE campaign_battles ADD COLUMN link_json TEXT CHECK (link_json IS NULL OR json_valid(link_json));

-- 2. A campaign run is one play-through of a campaign; several can run side by side. It keeps a
--    copy of the campaign and of its scenarios as they were when it began, so editing either
--    later never changes a run under way, and the forces as they stand after its last step.
--    `played` counts the battles finished and carried; `status` is 'ended' after the last.
CREATE TABLE campaign_runs (
    id INTEGER PRIMARY KEY,
    campaign_id TEXT NOT NULL,
    name TEXT NOT NULL,
    seed INTEGER NOT NULL,
    campaign_json TEXT NOT NULL CHECK (json_valid(campaign_json)),
    scenarios_json TEXT NOT NULL CHECK (json_valid(scenarios_json)),
    forces_json TEXT NOT NULL CHECK (json_valid(forces_json)),
    played INTEGER NOT NULL DEFAULT 0 CHECK (played >= 0),
    status TEXT NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'ended')),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    updated_at TEXT
);
CREATE INDEX campaign_runs_campaign ON campaign_runs (campaign_id);

-- 3. Each battle of a run: the scenario as the carry made it (the campaign's forces in it), the
--    forces at its start and the report of the carry into it; once a battle session plays it,
--    that battle's id (a result entered by hand has none, and keeps what was entered); once it
--    is over, the forces at its end, the report of what it did and its result. The end of one
--    battle and the carry into the next are written in one transaction.
CREATE TABLE campaign_run_battles (
    run_id INTEGER NOT NULL REFERENCES campaign_runs (id) ON DELETE CASCADE,
    pos INTEGER NOT NULL CHECK (pos >= 0),
    scenario_id TEXT NOT NULL,
    scenario_json TEXT NOT NULL CHECK (json_valid(scenario_json)),
    start_json TEXT NOT NULL CHECK (json_valid(start_json)),
    carry_in_json TEXT NOT NULL CHECK (json_valid(carry_in_json)),
    battle_id INTEGER REFERENCES battles (id),
    hand_json TEXT CHECK (hand_json IS NULL OR json_valid(hand_json)),
    end_json TEXT CHECK (end_json IS NULL OR json_valid(end_json)),
    after_json TEXT CHECK (after_json IS NULL OR json_valid(after_json)),
    result_json TEXT CHECK (result_json IS NULL OR json_valid(result_json)),
    PRIMARY KEY (run_id, pos)
);
CREATE INDEX campaign_run_battles_battle ON campaign_run_battles (battle_id);
