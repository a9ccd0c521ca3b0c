-- Powderhorn database, schema version 6: an HQ may be a Field Artillery Officer (ART-10).
-- 0 for an ordinary HQ (every HQ saved before this version), 1 for an FAO.
ALTER TABLE hqs
    ADD COLUMN fao INTEGER NOT NULL DEFAULT 0 CHECK (fao IN (0, 1));
