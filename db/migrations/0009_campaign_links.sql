-- Powderhorn database, schema version 9: linked campaigns (issue #19).
--
-- A campaign now declares its own sides, how each battle follows the one before (days between,
-- weather, same ground), each battle's mapping of its scenario's sides to the campaign's, the
-- carry rules and the victory condition. They are kept as one JSON document beside the
-- columns the campaign already had (which stay what they were); NULL for a campaign stored
-- before this version, which reads with the defaults (docs/campaign.md).
ALTER TABLE campaigns ADD COLUMN links TEXT;
