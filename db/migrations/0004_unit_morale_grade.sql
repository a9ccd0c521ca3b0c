-- Powderhorn database, schema version 4: the optional morale grade of a unit (OPT-MORALE-01):
-- 'unmotivated', 'regular', 'motivated', or NULL for none declared (counts as Regular).
ALTER TABLE units
    ADD COLUMN morale_grade TEXT
        CHECK (morale_grade IS NULL OR morale_grade IN ('unmotivated', 'regular', 'motivated'));
