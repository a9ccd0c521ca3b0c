-- Powderhorn database, schema version 11: what a built-up terrain feature is built of, for the
-- OPTIONAL constructions rule (OPT-CONSTR-01): 'wooden', 'brick', 'stone', 'stone_fortification',
-- or NULL for none given (a built-up area then counts as brick). Features stored before this
-- version have none.
ALTER TABLE terrain_features
    ADD COLUMN construction TEXT
        CHECK (construction IS NULL
               OR construction IN ('wooden', 'brick', 'stone', 'stone_fortification'));
