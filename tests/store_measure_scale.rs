//! BAS-01 in the store: a scenario's miniature scale (`measure_scale`) round-trips through the
//! database, and a database from before the column (schema 4) migrates with every scenario at
//! the printed measurements (×1).

use powderhorn::model::samples;
use powderhorn::model::MeasureScale;
use powderhorn::model::ScenarioId;
use powderhorn::store::{Store, LATEST_SCHEMA, MIGRATIONS_SQL};

#[test]
fn bas_01_measure_scale_round_trips_through_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("powderhorn.sqlite");
    let base = samples::scenarios()
        .expect("the shipped samples parse")
        .into_iter()
        .next()
        .expect("a sample scenario");
    for m in MeasureScale::ALL {
        let mut s = base.clone();
        s.id = ScenarioId::new(format!("bas-01-{}", m.factor()));
        s.measure_scale = m;
        {
            let mut store = Store::open(&db).expect("opens");
            store.save_scenario(&s).expect("saves");
        }
        let store = Store::open(&db).expect("reopens");
        let back = store.load_scenario(&s.id).expect("loads");
        assert_eq!(back.measure_scale, m);
        assert_eq!(back, s);
    }
}

#[test]
fn bas_01_a_schema_4_database_migrates_with_its_scenarios_at_scale_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("powderhorn.sqlite");
    {
        // A database as a schema-4 build left it, with one scenario.
        let mut conn = rusqlite::Connection::open(&db).expect("raw create");
        let tx = conn.transaction().expect("tx");
        for (file, sql) in MIGRATIONS_SQL.iter().take(4) {
            tx.execute_batch(sql)
                .unwrap_or_else(|e| panic!("migration {file}: {e}"));
        }
        tx.pragma_update(None, "user_version", 4).expect("version");
        tx.execute_batch(
            r#"
            INSERT INTO scenarios (id, format, name, date, year, description, table_width_cm,
                table_depth_cm, scale, points, turn_limit, weather, defense, defender,
                optional_rules_json)
            VALUES ('v4-skirmish', 1, 'A v4 skirmish', '', 1809, '', 180.0, 120.0,
                'battalion', 1500, 8, 'normal', 'none', NULL, '[]');
            "#,
        )
        .expect("v4 data");
        tx.commit().expect("commit");
    }
    let mut store = Store::open(&db).expect("open migrates");
    assert_eq!(store.schema_version().expect("version"), LATEST_SCHEMA);
    let id = ScenarioId::new("v4-skirmish");
    let mut s = store.load_scenario(&id).expect("the scenario survives");
    assert_eq!(s.measure_scale, MeasureScale::Printed);
    // The migrated file takes the new column.
    s.measure_scale = MeasureScale::Half;
    store.save_scenario(&s).expect("saves on the migrated file");
    assert_eq!(
        store.load_scenario(&id).expect("loads").measure_scale,
        MeasureScale::Half
    );
}

#[test]
fn bas_01_the_column_refuses_a_factor_that_is_no_scale() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("powderhorn.sqlite");
    drop(Store::open(&db).expect("creates"));
    let conn = rusqlite::Connection::open(&db).expect("raw open");
    let bad = conn.execute_batch(
        r#"
        INSERT INTO scenarios (id, format, name, table_width_cm, table_depth_cm, scale, points,
            turn_limit, weather, defense, measure_scale)
        VALUES ('bad', 1, 'Bad', 180.0, 120.0, 'battalion', 1500, 8, 'normal', 'none', 1.5);
        "#,
    );
    assert!(bad.is_err(), "a measure scale of 1.5 was stored");
}
