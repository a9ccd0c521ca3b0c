-- Powderhorn database, schema version 5: the miniature scale of a scenario (BAS-01), the
-- factor on every distance: 0.5 (2 mm figures), 1 (6, 10 and 15 mm: as printed) or 2 (20 mm,
-- and 28 mm played as 20 mm). Scenarios saved before it play as printed.
ALTER TABLE scenarios
    ADD COLUMN measure_scale REAL NOT NULL DEFAULT 1.0
        CHECK (measure_scale IN (0.5, 1.0, 2.0));
