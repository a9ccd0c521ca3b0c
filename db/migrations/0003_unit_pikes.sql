-- Powderhorn database, schema version 3: the pikes flag of a unit (PIKE-01/02 ruling: no list row
-- carries pikes, so a scenario marks the units that do). Existing units carry none.
ALTER TABLE units
    ADD COLUMN pikes INTEGER NOT NULL DEFAULT 0 CHECK (pikes IN (0, 1));
