-- Powderhorn database, schema version 12: the OPTIONAL multi-national rules (OPT-NATION-01..03).
-- An HQ's and a unit's nation (NULL: the side's own) and whether an HQ heads an allied army
-- (0 for every HQ saved before this version).
ALTER TABLE hqs ADD COLUMN nation TEXT;
ALTER TABLE hqs ADD COLUMN ally INTEGER NOT NULL DEFAULT 0 CHECK (ally IN (0, 1));
ALTER TABLE units ADD COLUMN nation TEXT;
