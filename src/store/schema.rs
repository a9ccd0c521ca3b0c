//! The schema: the ordered migrations in `db/migrations/`, embedded at compile time and applied
//! with `rusqlite_migration`, which keeps the version in `PRAGMA user_version` and runs all
//! pending migrations in one transaction.

use rusqlite_migration::{Migrations, M};

/// Version 1: army lists, orders of battle, terrain, field defences, scenarios, campaigns.
pub const MIGRATION_1_SQL: &str = include_str!("../../db/migrations/0001_core.sql");
/// Version 2: per-row user troop types; battles and their append-only log.
pub const MIGRATION_2_SQL: &str =
    include_str!("../../db/migrations/0002_user_rows_and_battles.sql");
/// Version 3: the pikes flag of a unit (PIKE-01/02).
pub const MIGRATION_3_SQL: &str = include_str!("../../db/migrations/0003_unit_pikes.sql");
/// Version 4: the optional morale grade of a unit (OPT-MORALE-01).
pub const MIGRATION_4_SQL: &str = include_str!("../../db/migrations/0004_unit_morale_grade.sql");
/// Version 5: the miniature scale of a scenario (BAS-01).
pub const MIGRATION_5_SQL: &str =
    include_str!("../../db/migrations/0005_scenario_measure_scale.sql");
/// Version 6: the FAO flag of an HQ (ART-10).
pub const MIGRATION_6_SQL: &str = include_str!("../../db/migrations/0006_hq_fao.sql");
/// Version 7: typed battle sessions (mode, dice, orders, status, result) and a log with undo
/// and redo entries.
pub const MIGRATION_7_SQL: &str = include_str!("../../db/migrations/0007_battle_sessions.sql");
/// Version 8: fog of war on a battle.
pub const MIGRATION_8_SQL: &str = include_str!("../../db/migrations/0008_fog.sql");
/// Version 9: linked campaigns (sides, links, carry rules, victory) and campaign runs.
pub const MIGRATION_9_SQL: &str = include_str!("../../db/migrations/0009_campaign_runs.sql");
/// Version 10: a scenario's teams (OPT-MULTI-01).
pub const MIGRATION_10_SQL: &str = include_str!("../../db/migrations/0010_scenario_teams.sql");
/// Version 11: the material of a built-up terrain feature (OPT-CONSTR-01).
pub const MIGRATION_11_SQL: &str =
    include_str!("../../db/migrations/0011_terrain_construction.sql");
/// Version 12: an HQ's and a unit's nation, an HQ heading an allied army (OPT-NATION-01..03).
pub const MIGRATION_12_SQL: &str = include_str!("../../db/migrations/0012_nations.sql");
/// Version 13: who moves first, a scenario's side or a roll-off, and a battle's roll-off dice
/// (SEQ-01).
pub const MIGRATION_13_SQL: &str = include_str!("../../db/migrations/0013_first_player.sql");

/// Every migration as (file name, SQL), oldest first; version N is the state after the Nth.
pub const MIGRATIONS_SQL: [(&str, &str); 13] = [
    ("0001_core.sql", MIGRATION_1_SQL),
    ("0002_user_rows_and_battles.sql", MIGRATION_2_SQL),
    ("0003_unit_pikes.sql", MIGRATION_3_SQL),
    ("0004_unit_morale_grade.sql", MIGRATION_4_SQL),
    ("0005_scenario_measure_scale.sql", MIGRATION_5_SQL),
    ("0006_hq_fao.sql", MIGRATION_6_SQL),
    ("0007_battle_sessions.sql", MIGRATION_7_SQL),
    ("0008_fog.sql", MIGRATION_8_SQL),
    ("0009_campaign_runs.sql", MIGRATION_9_SQL),
    ("0010_scenario_teams.sql", MIGRATION_10_SQL),
    ("0011_terrain_construction.sql", MIGRATION_11_SQL),
    ("0012_nations.sql", MIGRATION_12_SQL),
    ("0013_first_player.sql", MIGRATION_13_SQL),
];

/// The schema version this build writes (and the newest it can open).
pub const LATEST_SCHEMA: u32 = MIGRATIONS_SQL.len() as u32;

/// `PRAGMA application_id` of a Powderhorn database ('PwDh'), set by the first migration.
pub const APPLICATION_ID: i32 = 0x5077_4468;

const STEPS: &[M<'static>] = &[
    M::up(MIGRATION_1_SQL),
    M::up(MIGRATION_2_SQL).foreign_key_check(),
    M::up(MIGRATION_3_SQL),
    M::up(MIGRATION_4_SQL),
    M::up(MIGRATION_5_SQL),
    M::up(MIGRATION_6_SQL),
    M::up(MIGRATION_7_SQL),
    M::up(MIGRATION_8_SQL),
    M::up(MIGRATION_9_SQL).foreign_key_check(),
    M::up(MIGRATION_10_SQL),
    M::up(MIGRATION_11_SQL),
    M::up(MIGRATION_12_SQL),
    M::up(MIGRATION_13_SQL),
];

pub(crate) const MIGRATIONS: Migrations<'static> = Migrations::from_slice(STEPS);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid_and_numbered_like_their_files() {
        assert!(MIGRATIONS.validate().is_ok());
        assert_eq!(STEPS.len(), MIGRATIONS_SQL.len());
        for (i, (file, _)) in MIGRATIONS_SQL.iter().enumerate() {
            assert!(file.starts_with(&format!("{:04}_", i + 1)), "{file}");
        }
        assert!(MIGRATION_1_SQL.contains(&APPLICATION_ID.to_string()));
    }
}
