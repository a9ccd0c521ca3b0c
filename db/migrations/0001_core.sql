-- Powderhorn database, schema version 1: army lists, orders of battle, terrain, field defences,
-- scenarios and campaigns.
--
-- Applied by src/store/schema.rs (rusqlite_migration) inside one transaction that also sets
-- PRAGMA user_version = 1. A migration that has shipped is never edited: changes go into a new
-- numbered file, so every database can be brought forward from the version it is at.
--
-- Conventions: one row per list row, HQ, commander, unit, feature and defence, with real columns
-- for scalar fields; `pos` keeps the order the model's Vec holds; enums are stored as their
-- snake_case serde names; nested values (Move/Attack, caps, corrections, rule effects, geometry
-- points, objectives) are JSON text checked with json_valid. Flags are 0/1 integers.

-- 'PwDh': marks the file as a Powderhorn database, so the store never migrates someone else's.
PRAGMA application_id = 1349993576;

-- Small facts about the database itself (e.g. whether the sample scenarios were seeded).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- Army lists. origin = 'shipped': written only by the store from the lists compiled into the
-- build (re-synced on every open); origin = 'user': made in the app.
CREATE TABLE army_lists (
    id                 TEXT PRIMARY KEY CHECK (id <> ''),
    origin             TEXT NOT NULL CHECK (origin IN ('shipped', 'user')),
    pos                INTEGER NOT NULL,            -- book order of shipped lists
    name               TEXT NOT NULL,
    period             TEXT NOT NULL,
    complete           INTEGER NOT NULL CHECK (complete IN (0, 1)),
    incomplete_reason  TEXT,
    source_seed        TEXT NOT NULL DEFAULT '',
    source_lines       TEXT NOT NULL DEFAULT '',
    organisation       TEXT NOT NULL DEFAULT '',
    first_fire_bonus   INTEGER NOT NULL CHECK (first_fire_bonus IN (0, 1)),
    ranges_scale       INTEGER NOT NULL CHECK (ranges_scale IN (0, 1)),
    caps_json          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(caps_json)),
    missing_rules_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(missing_rules_json))
) STRICT;

-- A nation's HQ range text (ARMY-06 b).
CREATE TABLE hq_ranges (
    list_id TEXT NOT NULL REFERENCES army_lists (id) ON DELETE CASCADE ON UPDATE CASCADE,
    pos     INTEGER NOT NULL,
    level   TEXT NOT NULL,
    min_inf INTEGER NOT NULL,
    max_inf INTEGER NOT NULL,
    PRIMARY KEY (list_id, pos)
) STRICT;

-- Troop-chart rows (COL-01..13).
CREATE TABLE troop_types (
    list_id          TEXT NOT NULL REFERENCES army_lists (id) ON DELETE CASCADE ON UPDATE CASCADE,
    id               TEXT NOT NULL CHECK (id <> ''),
    pos              INTEGER NOT NULL,
    name             TEXT NOT NULL,
    arm              TEXT NOT NULL,
    move_json        TEXT NOT NULL CHECK (json_valid(move_json)),
    attack_json      TEXT CHECK (attack_json IS NULL OR json_valid(attack_json)), -- NULL: no attack
    hits             INTEGER NOT NULL,
    save             INTEGER CHECK (save IS NULL OR save BETWEEN 2 AND 6),       -- NULL: no save
    points           INTEGER,                                                     -- NULL: blank / "-"
    has_limit        INTEGER NOT NULL CHECK (has_limit IN (0, 1)),                -- 0: blank Limit cell
    limit_min        INTEGER,
    limit_max        INTEGER,
    notes_json       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(notes_json)),
    role             TEXT NOT NULL,
    grade            TEXT NOT NULL,
    grade_optional   INTEGER NOT NULL CHECK (grade_optional IN (0, 1)),
    year_from        INTEGER,                                                     -- NULL: all years
    year_to          INTEGER CHECK (year_to IS NULL OR year_from IS NOT NULL),    -- NULL: open-ended
    corrections_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(corrections_json)),
    PRIMARY KEY (list_id, id),
    CHECK (has_limit = 1 OR (limit_min IS NULL AND limit_max IS NULL))
) STRICT;

-- Command-chart rows (COL-10).
CREATE TABLE command_types (
    list_id          TEXT NOT NULL REFERENCES army_lists (id) ON DELETE CASCADE ON UPDATE CASCADE,
    pos              INTEGER NOT NULL,
    level            TEXT NOT NULL,
    quality          TEXT NOT NULL,
    command_value    INTEGER NOT NULL,
    move_json        TEXT NOT NULL CHECK (json_valid(move_json)),
    presence_dice    INTEGER NOT NULL,
    hits             INTEGER NOT NULL,
    save             INTEGER CHECK (save IS NULL OR save BETWEEN 2 AND 6),
    points           INTEGER NOT NULL,
    limit_json       TEXT NOT NULL CHECK (json_valid(limit_json)),
    notes_json       TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(notes_json)),
    corrections_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(corrections_json)),
    PRIMARY KEY (list_id, pos)
) STRICT;

-- Numbered special rules of a list.
CREATE TABLE special_rules (
    list_id      TEXT NOT NULL REFERENCES army_lists (id) ON DELETE CASCADE ON UPDATE CASCADE,
    pos          INTEGER NOT NULL,
    no           INTEGER NOT NULL,
    title        TEXT NOT NULL,
    gist         TEXT NOT NULL,
    effects_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(effects_json)),
    PRIMARY KEY (list_id, pos)
) STRICT;

CREATE TABLE scenarios (
    id                  TEXT PRIMARY KEY CHECK (id <> ''),
    format              INTEGER NOT NULL,
    name                TEXT NOT NULL,
    date                TEXT NOT NULL DEFAULT '',
    year                INTEGER,
    description         TEXT NOT NULL DEFAULT '',
    table_width_cm      REAL NOT NULL,
    table_depth_cm      REAL NOT NULL,
    scale               TEXT NOT NULL,
    points              INTEGER NOT NULL,
    turn_limit          INTEGER NOT NULL,
    weather             TEXT NOT NULL,
    defense             TEXT NOT NULL,
    defender            INTEGER,                    -- index into the scenario's sides
    optional_rules_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(optional_rules_json))
) STRICT;

-- Orders of battle: one row per side. army_list has no foreign key on purpose: a scenario may
-- name a list this database lacks, and validation says so rather than the save failing.
CREATE TABLE sides (
    scenario_id          TEXT NOT NULL REFERENCES scenarios (id) ON DELETE CASCADE,
    side                 INTEGER NOT NULL,          -- index into Scenario::sides
    name                 TEXT NOT NULL,
    army_list            TEXT NOT NULL,
    colour_r             INTEGER NOT NULL CHECK (colour_r BETWEEN 0 AND 255),
    colour_g             INTEGER NOT NULL CHECK (colour_g BETWEEN 0 AND 255),
    colour_b             INTEGER NOT NULL CHECK (colour_b BETWEEN 0 AND 255),
    deployment_zone_json TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(deployment_zone_json)),
    objectives_json      TEXT NOT NULL CHECK (json_valid(objectives_json)),
    PRIMARY KEY (scenario_id, side)
) STRICT;
CREATE INDEX sides_army_list ON sides (army_list);

-- Command units. `id`/`parent` are the model's HqIds; the tree is not a foreign key because a
-- half-built order of battle is saved as it stands and validation reports where it breaks.
CREATE TABLE hqs (
    scenario_id TEXT NOT NULL,
    side        INTEGER NOT NULL,
    pos         INTEGER NOT NULL,
    id          INTEGER NOT NULL,
    name        TEXT NOT NULL,
    parent      INTEGER,                            -- NULL: the commanding officer
    mounted     INTEGER NOT NULL CHECK (mounted IN (0, 1)),
    x           REAL,                               -- x, y, facing_deg: all NULL when not placed
    y           REAL,
    facing_deg  REAL,
    PRIMARY KEY (scenario_id, side, pos),
    FOREIGN KEY (scenario_id, side) REFERENCES sides (scenario_id, side) ON DELETE CASCADE,
    CHECK ((x IS NULL) = (y IS NULL) AND (x IS NULL) = (facing_deg IS NULL))
) STRICT;

-- The person commanding each HQ (one per HQ).
CREATE TABLE commanders (
    scenario_id   TEXT NOT NULL,
    side          INTEGER NOT NULL,
    hq_pos        INTEGER NOT NULL,
    id            INTEGER NOT NULL,
    name          TEXT NOT NULL,
    note          TEXT NOT NULL DEFAULT '',
    level         TEXT NOT NULL,
    quality       TEXT NOT NULL,
    command_value INTEGER NOT NULL,
    replaced_once INTEGER NOT NULL CHECK (replaced_once IN (0, 1)),
    PRIMARY KEY (scenario_id, side, hq_pos),
    FOREIGN KEY (scenario_id, side, hq_pos) REFERENCES hqs (scenario_id, side, pos) ON DELETE CASCADE
) STRICT;

CREATE TABLE units (
    scenario_id         TEXT NOT NULL,
    side                INTEGER NOT NULL,
    pos                 INTEGER NOT NULL,
    id                  INTEGER NOT NULL,
    name                TEXT NOT NULL,
    troop_type          TEXT NOT NULL,              -- a troop_types.id of the side's list
    stands              INTEGER NOT NULL,
    hq                  INTEGER NOT NULL,           -- the parent HQ's id
    grade               TEXT NOT NULL,
    engineer_attached   INTEGER NOT NULL CHECK (engineer_attached IN (0, 1)),
    brigade_skirmishers INTEGER NOT NULL CHECK (brigade_skirmishers IN (0, 1)),
    regimental_guns     INTEGER NOT NULL CHECK (regimental_guns IN (0, 1)),
    lancers             INTEGER NOT NULL CHECK (lancers IN (0, 1)),
    horse_artillery     INTEGER NOT NULL CHECK (horse_artillery IN (0, 1)),
    x                   REAL,
    y                   REAL,
    facing_deg          REAL,
    PRIMARY KEY (scenario_id, side, pos),
    FOREIGN KEY (scenario_id, side) REFERENCES sides (scenario_id, side) ON DELETE CASCADE,
    CHECK ((x IS NULL) = (y IS NULL) AND (x IS NULL) = (facing_deg IS NULL))
) STRICT;

CREATE TABLE field_defenses (
    scenario_id TEXT NOT NULL,
    side        INTEGER NOT NULL,
    pos         INTEGER NOT NULL,
    id          INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    sections    INTEGER NOT NULL,
    at_json     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(at_json)),
    occupant    INTEGER,                            -- the sheltered unit's id
    PRIMARY KEY (scenario_id, side, pos),
    FOREIGN KEY (scenario_id, side) REFERENCES sides (scenario_id, side) ON DELETE CASCADE
) STRICT;

CREATE TABLE terrain_features (
    scenario_id TEXT NOT NULL REFERENCES scenarios (id) ON DELETE CASCADE,
    pos         INTEGER NOT NULL,
    id          INTEGER NOT NULL,
    name        TEXT NOT NULL,
    kind        TEXT NOT NULL,
    hill_level  INTEGER,                            -- the contour level; set for hills only
    shape       TEXT NOT NULL CHECK (shape IN ('polygon', 'polyline')),
    width_cm    REAL,                               -- polylines only
    points_json TEXT NOT NULL CHECK (json_valid(points_json)),
    dense       INTEGER NOT NULL CHECK (dense IN (0, 1)),
    frozen      INTEGER NOT NULL CHECK (frozen IN (0, 1)),
    PRIMARY KEY (scenario_id, pos),
    CHECK ((shape = 'polyline') = (width_cm IS NOT NULL))
) STRICT;

CREATE TABLE campaigns (
    id                         TEXT PRIMARY KEY CHECK (id <> ''),
    name                       TEXT NOT NULL,
    description                TEXT NOT NULL DEFAULT '',
    carry_losses               INTEGER NOT NULL CHECK (carry_losses IN (0, 1)),
    carry_commander_casualties INTEGER NOT NULL CHECK (carry_commander_casualties IN (0, 1)),
    carry_victory_points       INTEGER NOT NULL CHECK (carry_victory_points IN (0, 1)),
    carry_weather              INTEGER NOT NULL CHECK (carry_weather IN (0, 1))
) STRICT;

-- A campaign's battles in order. scenario_id has no foreign key: a campaign may be written
-- before its scenarios, and deleting a scenario must not silently drop a campaign step.
CREATE TABLE campaign_battles (
    campaign_id TEXT NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    pos         INTEGER NOT NULL,
    scenario_id TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    weather     TEXT,                               -- NULL: no override
    PRIMARY KEY (campaign_id, pos)
) STRICT;
CREATE INDEX campaign_battles_scenario ON campaign_battles (scenario_id);
