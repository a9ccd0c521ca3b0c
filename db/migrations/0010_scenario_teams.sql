-- Powderhorn database, schema version 10: a scenario's teams (OPT-MULTI-01), the players of
-- each side and the HQs they command, as JSON ('[]': one player a side, every scenario saved
-- before this version).
ALTER TABLE scenarios
    ADD COLUMN teams_json TEXT NOT NULL DEFAULT '[]';
