//! Integration tests of the SQLite store (`src/store`): round-trips of scenarios, lists and
//! campaigns through a real file, user rows beside shipped rows, migration from schema 1, the
//! refusal of files that are not ours (each leaving the bytes untouched), the lock, and the
//! append-only battle log.

use powderhorn::geom::Point;
use powderhorn::model::army::{
    shipped_lists, Arm, ArmyList, Attack, CommandLevel, Limit, Move, Period, Quality, RowGrade,
    RowRole, Save, TroopType, Years,
};
use powderhorn::model::campaign::{Campaign, CampaignBattle, CarryOver};
use powderhorn::model::defense::{DefenseKind, FieldDefense};
use powderhorn::model::ids::{
    CampaignId, CommanderId, DefenseId, FeatureId, HqId, ListId, ScenarioId, TroopTypeId, UnitId,
};
use powderhorn::model::oob::{
    Commander, Grade, Hq, MoraleGrade, Objective, Objectives, Placement, Side, Unit,
};
use powderhorn::model::samples;
use powderhorn::model::scenario::{
    DefensePosture, OptionalRule, Scale, Scenario, Table, Weather, SCENARIO_FORMAT,
};
use powderhorn::model::terrain::{Geometry, TerrainFeature, TerrainKind};
use powderhorn::model::MeasureScale;
use powderhorn::store::{
    lock_path, Store, StoreError, APPLICATION_ID, LATEST_SCHEMA, MIGRATION_1_SQL,
};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

// ----- helpers --------------------------------------------------------------------------------

fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("powderhorn.db")
}

fn side_file(db: &Path, suffix: &str) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Asserts the refused file is byte-for-byte as before and SQLite left no -wal/-shm beside it.
fn assert_untouched(db: &Path, before: &[u8]) {
    let after = std::fs::read(db).expect("read the refused file");
    assert!(
        after == before,
        "{} was changed by a refused open",
        db.display()
    );
    for suffix in ["-wal", "-shm", "-journal"] {
        let f = side_file(db, suffix);
        assert!(
            !f.exists(),
            "{} was created beside a refused file",
            f.display()
        );
    }
}

fn pt(x: f64, y: f64) -> Point {
    Point::new(x, y)
}

fn placed(x: f64, y: f64, facing: f64) -> Option<Placement> {
    Some(Placement {
        at: pt(x, y),
        facing_deg: facing,
    })
}

fn commander(id: u32, name: &str, note: &str, level: CommandLevel, quality: Quality) -> Commander {
    Commander {
        id: CommanderId(id),
        name: name.to_string(),
        note: note.to_string(),
        level,
        quality,
        command_value: 8,
        replaced_once: false,
    }
}

fn unit(id: u32, name: &str, troop: &str, stands: u8, hq: u32) -> Unit {
    Unit {
        id: UnitId(id),
        name: name.to_string(),
        troop_type: TroopTypeId::new(troop),
        stands,
        hq: HqId(hq),
        grade: Grade::Regular,
        engineer_attached: false,
        brigade_skirmishers: false,
        regimental_guns: false,
        lancers: false,
        horse_artillery: false,
        pikes: false,
        position: None,
        morale_grade: None,
        nation: None,
    }
}

/// A scenario using every part of the model: two sides, a three-level HQ tree with commanders
/// and notes, units with every flag, terrain of many kinds (a level-2 hill, polylines), field
/// defences with an occupant, objectives with areas, optional rules, weather and posture.
fn rich_scenario() -> Scenario {
    let mut co = Hq {
        id: HqId(1),
        name: "IV Corps (Masséna)".to_string(),
        parent: None,
        commander: commander(
            1,
            "André Masséna",
            "Marshal; \"l'enfant chéri de la victoire\"",
            CommandLevel::Corps,
            Quality::Exceptional,
        ),
        mounted: true,
        position: placed(120.0, 20.0, 0.0),
        fao: false,
        nation: None,
        ally: false,
    };
    co.commander.command_value = 9;
    let mut div = Hq {
        id: HqId(2),
        name: "2nd Division (Legrand)".to_string(),
        parent: Some(HqId(1)),
        commander: commander(
            7,
            "Claude Legrand",
            "",
            CommandLevel::Division,
            Quality::Good,
        ),
        mounted: true,
        position: None,
        fao: false,
        nation: None,
        ally: false,
    };
    div.commander.replaced_once = true;
    div.commander.command_value = 7;
    let bde = Hq {
        id: HqId(3),
        name: "1st Brigade (Coëhorn)".to_string(),
        parent: Some(HqId(2)),
        commander: commander(
            9,
            "Louis Jacques de Coëhorn",
            "stormed the bridge at the head of the 26e Léger",
            CommandLevel::Brigade,
            Quality::Average,
        ),
        mounted: false,
        position: placed(0.1 + 0.2, 33.333_333_333_333_336, 359.5),
        fao: false,
        nation: None,
        ally: false,
    };

    let mut u1 = unit(1, "26e Léger", "line-infantry", 6, 3);
    u1.grade = Grade::Elite;
    u1.brigade_skirmishers = true;
    u1.position = placed(123.456_789_012_345_67, 40.125, 15.0);
    let mut u2 = unit(2, "18e Ligne", "line-infantry", 4, 3);
    u2.grade = Grade::Poor;
    u2.engineer_attached = true;
    u2.regimental_guns = true;
    // PIKE-01/02: the scenario flag is stored too (schema version 3).
    u2.pikes = true;
    // OPT-MORALE-01: the optional morale grade is stored too (schema version 4); u1 keeps none.
    u2.morale_grade = Some(MoraleGrade::Motivated);
    let mut u3 = unit(3, "Baden Light Dragoons", "light-cavalry", 3, 2);
    u3.lancers = true;
    u3.horse_artillery = true;
    u3.engineer_attached = true;
    u3.brigade_skirmishers = true;
    u3.regimental_guns = true;
    u3.position = placed(-5.5, 1e-9, 270.0);
    u3.morale_grade = Some(MoraleGrade::Unmotivated);

    let french = Side {
        name: "French".to_string(),
        army_list: ListId::new("nap-french"),
        colour: [30, 60, 200],
        hqs: vec![co, div, bde],
        units: vec![u1, u2, u3],
        field_defenses: vec![],
        deployment_zone: vec![pt(0.0, 0.0), pt(240.0, 0.0), pt(240.0, 40.0), pt(0.0, 40.0)],
        objectives: Objectives {
            major: Objective {
                description: "Take the castle of Ebelsberg".to_string(),
                area: vec![pt(150.0, 140.0), pt(170.0, 140.0), pt(160.0, 160.0)],
            },
            minor: Objective {
                description: "Hold the bridge".to_string(),
                area: vec![],
            },
        },
    };

    let austrian = Side {
        name: "Austrian".to_string(),
        army_list: ListId::new("nap-austrian"),
        colour: [250, 250, 250],
        hqs: vec![Hq {
            id: HqId(10),
            name: "Rearguard (Hiller)".to_string(),
            parent: None,
            commander: commander(
                20,
                "Johann von Hiller",
                "FML",
                CommandLevel::Army,
                Quality::Uninspiring,
            ),
            mounted: true,
            position: placed(160.0, 170.0, 180.0),
            fao: false,
            nation: None,
            ally: false,
        }],
        units: vec![unit(11, "Grenz Bn 2", "grenz", 4, 10)],
        field_defenses: vec![
            FieldDefense {
                id: DefenseId(1),
                kind: DefenseKind::Trench,
                sections: 1,
                at: vec![pt(150.0, 150.0), pt(160.0, 150.0)],
                occupant: Some(UnitId(11)),
            },
            FieldDefense {
                id: DefenseId(2),
                kind: DefenseKind::BreastWorks,
                sections: 3,
                at: vec![pt(100.0, 150.0), pt(110.0, 151.5), pt(130.0, 149.75)],
                occupant: None,
            },
        ],
        deployment_zone: vec![pt(0.0, 140.0), pt(240.0, 140.0), pt(240.0, 180.0)],
        objectives: Objectives::default(),
    };

    Scenario {
        format: SCENARIO_FORMAT,
        id: ScenarioId::new("test-ebelsberg-rich"),
        name: "Ebelsberg (rich test)".to_string(),
        date: "3 May 1809".to_string(),
        year: Some(1809),
        description: "Every field of the model.\nSecond line, with ‘quotes’.".to_string(),
        table: Table {
            width_cm: 240.0,
            depth_cm: 182.5,
        },
        scale: Scale::Brigade,
        measure_scale: MeasureScale::Printed,
        points: 3000,
        turn_limit: 12,
        weather: Weather::Poor,
        defense: DefensePosture::Hasty,
        defender: Some(1),
        first_player: None,
        // OPT-MULTI-01: teams are stored (schema 10).
        teams: vec![powderhorn::model::Team {
            side: 0,
            name: "Anna".to_string(),
            hqs: vec![HqId(1)],
        }],
        optional_rules: vec![
            OptionalRule::Weather,
            OptionalRule::Prone,
            OptionalRule::Night,
        ],
        terrain: vec![
            TerrainFeature {
                id: FeatureId(1),
                name: "Schlossberg".to_string(),
                kind: TerrainKind::Hill { level: 2 },
                geometry: Geometry::Polygon(vec![
                    pt(140.0, 130.0),
                    pt(190.0, 130.0),
                    pt(165.0, 175.0),
                ]),
                dense: false,
                frozen: false,
                construction: None,
            },
            TerrainFeature {
                id: FeatureId(2),
                name: "Linz road".to_string(),
                kind: TerrainKind::Road,
                geometry: Geometry::Polyline {
                    points: vec![pt(120.0, 0.0), pt(121.5, 90.0), pt(125.0, 180.0)],
                    width_cm: 0.1 + 0.2,
                },
                dense: false,
                frozen: false,
                construction: None,
            },
            TerrainFeature {
                id: FeatureId(3),
                name: "Traun".to_string(),
                kind: TerrainKind::DeepWet,
                geometry: Geometry::Polygon(vec![
                    pt(0.0, 95.0),
                    pt(240.0, 95.0),
                    pt(240.0, 105.0),
                    pt(0.0, 105.0),
                ]),
                dense: false,
                frozen: true,
                construction: None,
            },
            TerrainFeature {
                id: FeatureId(4),
                name: "Garden walls".to_string(),
                kind: TerrainKind::Linear,
                geometry: Geometry::Polyline {
                    points: vec![pt(150.0, 120.0), pt(170.0, 120.0)],
                    width_cm: 1.0,
                },
                dense: false,
                frozen: false,
                construction: None,
            },
            TerrainFeature {
                id: FeatureId(5),
                name: "Ebelsberg town".to_string(),
                kind: TerrainKind::BuiltUp,
                geometry: Geometry::Polygon(vec![
                    pt(110.0, 110.0),
                    pt(140.0, 110.0),
                    pt(140.0, 130.0),
                    pt(110.0, 130.0),
                ]),
                dense: true,
                frozen: false,
                construction: None,
            },
            TerrainFeature {
                id: FeatureId(6),
                name: "Water meadows".to_string(),
                kind: TerrainKind::PartiallyWet,
                geometry: Geometry::Polygon(vec![pt(10.0, 80.0), pt(60.0, 80.0), pt(35.0, 92.0)]),
                dense: true,
                frozen: true,
                construction: None,
            },
        ],
        sides: vec![french, austrian],
    }
}

fn user_row(id: &str) -> TroopType {
    TroopType {
        id: TroopTypeId::new(id),
        name: "Tyrolean Schützen (09)".to_string(),
        arm: Arm::Infantry,
        movement: Move::Cm(15),
        attack: Some(Attack::Ranged {
            dice: 1,
            range_cm: 20,
        }),
        hits: 3,
        save: Save::new(5).ok(),
        points: Some(40),
        limit: Some(Limit {
            min: None,
            max: Some(2),
        }),
        notes: vec![1, 4],
        role: RowRole::Unit,
        grade: RowGrade::Elite,
        grade_optional: true,
        years: Some(Years {
            from: 1809,
            to: None,
        }),
        corrections: vec![],
    }
}

fn shipped_view(list: &ArmyList, store: &Store) -> ArmyList {
    let mut l = list.clone();
    l.troop_types.retain(|t| {
        !store
            .is_user_troop_type(&list.id, &t.id)
            .expect("row origin")
    });
    l
}

// ----- round-trips ----------------------------------------------------------------------------

#[test]
fn scenario_round_trips_through_the_file_with_every_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let original = rich_scenario();
    {
        let mut store = Store::open(&db).expect("create the database");
        store.save_scenario(&original).expect("save");
    }
    let store = Store::open(&db).expect("reopen");
    let loaded = store.load_scenario(&original.id).expect("load");
    assert_eq!(loaded, original);
    let summary = store
        .scenario_summaries()
        .expect("summaries")
        .into_iter()
        .find(|s| s.id == original.id)
        .expect("listed");
    assert_eq!(summary.name, original.name);
    assert_eq!(summary.date, "3 May 1809");
    assert_eq!(summary.points, 3000);
}

#[test]
fn saving_a_scenario_again_replaces_it_whole() {
    let mut store = Store::open_in_memory().expect("store");
    let mut s = rich_scenario();
    store.save_scenario(&s).expect("save");
    s.sides[0].units.truncate(1);
    s.sides[1].field_defenses.clear();
    s.terrain.remove(0);
    s.optional_rules.clear();
    s.defender = None;
    store.save_scenario(&s).expect("save again");
    assert_eq!(store.load_scenario(&s.id).expect("load"), s);
}

#[test]
fn a_failed_scenario_save_changes_nothing() {
    let mut store = Store::open_in_memory().expect("store");
    let good = rich_scenario();
    store.save_scenario(&good).expect("save");
    let mut bad = good.clone();
    bad.name = "changed".to_string();
    bad.sides[1].units[0].position = placed(f64::NAN, 1.0, 0.0);
    let err = store.save_scenario(&bad).expect_err("NaN refused");
    assert!(matches!(err, StoreError::Invalid(_)), "{err}");
    assert!(err.to_string().contains("Grenz Bn 2"), "{err}");
    assert_eq!(store.load_scenario(&good.id).expect("load"), good);
}

#[test]
fn scenario_delete_and_not_found() {
    let mut store = Store::open_in_memory().expect("store");
    let s = rich_scenario();
    store.save_scenario(&s).expect("save");
    store.delete_scenario(&s.id).expect("delete");
    assert!(matches!(
        store.load_scenario(&s.id),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.delete_scenario(&s.id),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn campaign_round_trips_with_ordered_battles() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let camp = Campaign {
        id: CampaignId::new("test-danube"),
        name: "Danube test".to_string(),
        description: "Three days".to_string(),
        battles: vec![
            CampaignBattle {
                scenario: ScenarioId::new("b-landshut"),
                note: "Day 1: Landshut".to_string(),
                weather: None,
                ..CampaignBattle::new(ScenarioId::new("b-landshut"))
            },
            CampaignBattle {
                scenario: ScenarioId::new("a-eggmuehl"),
                note: "Day 2".to_string(),
                weather: Some(Weather::Extreme),
                ..CampaignBattle::new(ScenarioId::new("a-eggmuehl"))
            },
            CampaignBattle {
                scenario: ScenarioId::new("test-ebelsberg-rich"),
                note: String::new(),
                weather: Some(Weather::Night),
                ..CampaignBattle::new(ScenarioId::new("test-ebelsberg-rich"))
            },
        ],
        carry_over: CarryOver {
            losses: true,
            commander_casualties: false,
            victory_points: true,
            weather: false,
        },
        sides: Vec::new(),
        rules: Default::default(),
        victory: Default::default(),
    };
    {
        let mut store = Store::open(&db).expect("create");
        store.save_campaign(&camp).expect("save");
    }
    let store = Store::open(&db).expect("reopen");
    assert_eq!(store.load_campaign(&camp.id).expect("load"), camp);
    let summary = store
        .campaign_summaries()
        .expect("summaries")
        .into_iter()
        .find(|c| c.id == camp.id)
        .expect("listed");
    assert_eq!(summary.battles, 3);
}

// ----- seeding and army lists -----------------------------------------------------------------

#[test]
fn a_new_database_is_seeded_with_shipped_lists_samples_and_campaigns() {
    let store = Store::open_in_memory().expect("store");
    assert_eq!(store.schema_version().expect("version"), LATEST_SCHEMA);
    let shipped = shipped_lists().expect("shipped lists parse");
    let summaries = store.list_summaries().expect("summaries");
    assert_eq!(summaries.len(), shipped.len());
    for (s, l) in summaries.iter().zip(&shipped) {
        assert_eq!(s.id, l.id);
        assert_eq!(s.name, l.name);
        assert_eq!(s.period, l.period);
        assert_eq!(s.complete, l.complete);
        assert!(!s.user);
        assert_eq!(s.troop_rows, l.troop_types.len());
        assert_eq!(s.command_rows, l.command_types.len());
    }
    let ids: Vec<ScenarioId> = store
        .scenario_summaries()
        .expect("scenarios")
        .into_iter()
        .map(|s| s.id)
        .collect();
    for s in samples::scenarios().expect("samples parse") {
        assert!(ids.contains(&s.id), "sample scenario {} seeded", s.id);
        assert_eq!(store.load_scenario(&s.id).expect("load sample"), s);
    }
    for c in samples::campaigns().expect("samples parse") {
        assert_eq!(store.load_campaign(&c.id).expect("load sample campaign"), c);
    }
}

#[test]
fn army_lists_after_seeding_equal_the_resolved_shipped_lists() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    drop(Store::open(&db).expect("create"));
    let store = Store::open(&db).expect("reopen");
    let shipped = shipped_lists().expect("shipped lists parse");
    let stored = store.army_lists().expect("lists");
    assert_eq!(stored.len(), shipped.len());
    for (got, want) in stored.iter().zip(&shipped) {
        assert_eq!(got, want, "list {}", want.id);
        assert_eq!(&store.army_list(&want.id).expect("one list"), want);
    }
    assert!(matches!(
        store.army_list(&ListId::new("no-such-list")),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn user_troop_types_are_added_and_removed_but_shipped_rows_are_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/armies");
    let asset_bytes = |name: &str| std::fs::read(assets.join(name)).expect("asset");
    let napoleonic_before = asset_bytes("napoleonic.json");

    let austrian = ListId::new("nap-austrian");
    let shipped = shipped_lists()
        .expect("parse")
        .into_iter()
        .find(|l| l.id == austrian)
        .expect("nap-austrian ships");
    let first_shipped = shipped.troop_types[0].id.clone();
    {
        let mut store = Store::open(&db).expect("create");
        store
            .add_user_troop_type(&austrian, &user_row("tyrolean-schuetzen"))
            .expect("add a user row to a shipped list");
        store
            .add_user_troop_type(&austrian, &user_row("landwehr-09"))
            .expect("add a second");
        // Ids are unique within the list, shipped or user.
        let dup = store.add_user_troop_type(&austrian, &user_row("landwehr-09"));
        assert!(matches!(dup, Err(StoreError::Conflict(_))), "{dup:?}");
        let clash = store.add_user_troop_type(&austrian, &user_row(first_shipped.as_str()));
        assert!(matches!(clash, Err(StoreError::Conflict(_))), "{clash:?}");
        let missing = store.add_user_troop_type(&ListId::new("nope"), &user_row("x"));
        assert!(
            matches!(missing, Err(StoreError::NotFound(_))),
            "{missing:?}"
        );
    }
    // The user rows survive a reopen (and its re-sync of the shipped lists).
    let mut store = Store::open(&db).expect("reopen");
    let list = store.army_list(&austrian).expect("list");
    let n = shipped.troop_types.len();
    assert_eq!(list.troop_types.len(), n + 2);
    assert_eq!(list.troop_types[n], user_row("tyrolean-schuetzen"));
    assert_eq!(list.troop_types[n + 1].id.as_str(), "landwehr-09");
    assert!(store
        .is_user_troop_type(&austrian, &TroopTypeId::new("tyrolean-schuetzen"))
        .expect("origin"));
    assert!(!store
        .is_user_troop_type(&austrian, &first_shipped)
        .expect("origin"));
    assert_eq!(
        store.user_troop_types(&austrian).expect("user rows"),
        vec![
            TroopTypeId::new("tyrolean-schuetzen"),
            TroopTypeId::new("landwehr-09")
        ]
    );
    assert_eq!(shipped_view(&list, &store), shipped);
    let summary = store
        .list_summaries()
        .expect("summaries")
        .into_iter()
        .find(|s| s.id == austrian)
        .expect("listed");
    assert_eq!(summary.troop_rows, n + 2);
    assert!(!summary.user);

    // Shipped rows cannot be removed.
    let err = store
        .remove_user_troop_type(&austrian, &first_shipped)
        .expect_err("shipped row refused");
    assert!(matches!(err, StoreError::Shipped(_)), "{err}");
    assert!(err.to_string().contains(first_shipped.as_str()), "{err}");
    assert!(matches!(
        store.remove_user_troop_type(&austrian, &TroopTypeId::new("never-added")),
        Err(StoreError::NotFound(_))
    ));

    store
        .remove_user_troop_type(&austrian, &TroopTypeId::new("tyrolean-schuetzen"))
        .expect("remove a user row");
    store
        .remove_user_troop_type(&austrian, &TroopTypeId::new("landwehr-09"))
        .expect("remove the other");
    assert_eq!(store.army_list(&austrian).expect("list"), shipped);
    // The shipped JSON on disk was never touched.
    assert!(asset_bytes("napoleonic.json") == napoleonic_before);
}

#[test]
fn reopening_restores_tampered_shipped_rows_and_keeps_user_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let french = ListId::new("nap-french");
    {
        let mut store = Store::open(&db).expect("create");
        store
            .add_user_troop_type(&french, &user_row("my-voltigeurs"))
            .expect("add");
    }
    {
        // An older build (or a hand edit) left different numbers in the shipped rows.
        let conn = rusqlite::Connection::open(&db).expect("raw open");
        let changed = conn
            .execute(
                "UPDATE troop_types SET hits = 99 WHERE list_id = 'nap-french' AND origin = 'shipped'",
                [],
            )
            .expect("tamper");
        assert!(changed > 0);
        conn.execute(
            "DELETE FROM special_rules WHERE list_id = 'nap-french' AND pos = 0",
            [],
        )
        .expect("tamper");
    }
    let store = Store::open(&db).expect("reopen");
    let shipped = shipped_lists()
        .expect("parse")
        .into_iter()
        .find(|l| l.id == french)
        .expect("ships");
    let list = store.army_list(&french).expect("list");
    assert_eq!(shipped_view(&list, &store), shipped);
    assert_eq!(list.troop_types.last(), Some(&user_row("my-voltigeurs")));
}

/// What an older database looks like to a build that ships new ids: the user got there first.
#[test]
fn reopening_moves_user_data_out_of_the_way_of_newly_shipped_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let french = ListId::new("nap-french");
    let shipped = shipped_lists().expect("parse");
    let book_french = shipped.iter().find(|l| l.id == french).expect("ships");
    let taken = book_french.troop_types[1].id.clone();
    let russian = ListId::new("nap-russian");
    let book_russian = shipped.iter().find(|l| l.id == russian).expect("ships");

    let mut on_french = rich_scenario();
    on_french.sides[0].units[0].troop_type = taken.clone();
    on_french.sides[1].units[0].troop_type = taken.clone(); // the Austrian side: not renamed
    let mut on_russian = rich_scenario();
    on_russian.id = ScenarioId::new("on-russian");
    on_russian.sides[0].army_list = russian.clone();
    on_russian.sides[1].army_list = ListId::new("old-saxon");
    {
        let mut store = Store::open(&db).expect("create");
        store.save_scenario(&on_french).expect("save");
        store.save_scenario(&on_russian).expect("save");
    }
    {
        // Rewind: the user made a row with the id the book now uses, and a whole list with the
        // id of a list the book now ships; the book used to ship two lists it no longer does.
        let conn = rusqlite::Connection::open(&db).expect("raw");
        conn.execute_batch(&format!(
            "UPDATE troop_types SET origin = 'user', name = 'My row'
                 WHERE list_id = 'nap-french' AND id = '{taken}';
             UPDATE army_lists SET origin = 'user', name = 'My Russians' WHERE id = 'nap-russian';
             UPDATE troop_types SET origin = 'user' WHERE list_id = 'nap-russian';
             INSERT INTO army_lists (id, origin, pos, name, period, complete, first_fire_bonus,
                 ranges_scale) VALUES ('old-bavarian', 'shipped', 90, 'Bavarian', 'napoleonic',
                 0, 1, 1), ('old-saxon', 'shipped', 91, 'Saxon', 'napoleonic', 0, 1, 1);"
        ))
        .expect("rewind");
    }
    let store = Store::open(&db).expect("reopen");

    // The book's row is back under its id; the user's row lives on as '<id>-user', and the
    // French side's unit follows it (the Austrian side, on another list, does not).
    let list = store.army_list(&french).expect("list");
    let moved = TroopTypeId::new(format!("{taken}-user"));
    assert_eq!(shipped_view(&list, &store), *book_french);
    let mine = list.troop_type(&moved).expect("user row kept");
    assert_eq!(mine.name, "My row");
    assert!(store.is_user_troop_type(&french, &moved).expect("origin"));
    let s = store.load_scenario(&on_french.id).expect("load");
    assert_eq!(s.sides[0].units[0].troop_type, moved);
    assert_eq!(s.sides[1].units[0].troop_type, taken);

    // The user's list is now 'user-nap-russian' and the scenario follows it.
    assert_eq!(&store.army_list(&russian).expect("book list"), book_russian);
    let renamed = ListId::new("user-nap-russian");
    let theirs = store.army_list(&renamed).expect("user list kept");
    assert!(theirs.user);
    assert_eq!(theirs.name, "My Russians");
    let s = store.load_scenario(&on_russian.id).expect("load");
    assert_eq!(s.sides[0].army_list, renamed);

    // A list no longer shipped goes, unless a scenario names it: then it stays, as a user list.
    assert!(matches!(
        store.army_list(&ListId::new("old-bavarian")),
        Err(StoreError::NotFound(_))
    ));
    assert!(
        store
            .army_list(&ListId::new("old-saxon"))
            .expect("kept")
            .user
    );
}

#[test]
fn user_lists_round_trip_and_shipped_list_ids_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let mut user = shipped_lists().expect("parse")[0].clone();
    user.id = ListId::new("user-my-army");
    user.name = "My army".to_string();
    user.period = Period::Other;
    user.user = true;
    user.troop_types.push(user_row("extra"));
    {
        let mut store = Store::open(&db).expect("create");
        store.save_user_list(&user).expect("save user list");
        // Save again (edit): replaced whole.
        user.troop_types.remove(0);
        store.save_user_list(&user).expect("save again");

        let mut overwrite = user.clone();
        overwrite.id = ListId::new("nap-french");
        let err = store
            .save_user_list(&overwrite)
            .expect_err("shipped id refused");
        assert!(matches!(err, StoreError::Shipped(_)), "{err}");
        let mut not_user = user.clone();
        not_user.user = false;
        assert!(matches!(
            store.save_user_list(&not_user),
            Err(StoreError::Invalid(_))
        ));
        assert!(matches!(
            store.delete_user_list(&ListId::new("nap-french")),
            Err(StoreError::Shipped(_))
        ));
    }
    let mut store = Store::open(&db).expect("reopen");
    assert_eq!(store.army_list(&user.id).expect("load"), user);
    let all = store.army_lists().expect("all");
    assert_eq!(
        all.last(),
        Some(&user),
        "user lists come after the book lists"
    );
    assert!(store
        .is_user_troop_type(&user.id, &TroopTypeId::new("extra"))
        .expect("origin"));
    let summary = store.list_summaries().expect("summaries");
    assert!(summary.last().is_some_and(|s| s.user && s.id == user.id));
    store.delete_user_list(&user.id).expect("delete");
    assert!(matches!(
        store.army_list(&user.id),
        Err(StoreError::NotFound(_))
    ));
}

// ----- migration --------------------------------------------------------------------------------

#[test]
fn a_version_1_database_with_data_is_migrated_to_the_latest_schema_intact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    {
        // A database as a schema-1 build left it: migration 1 applied, version 1, some data.
        let mut conn = rusqlite::Connection::open(&db).expect("raw create");
        let tx = conn.transaction().expect("tx");
        tx.execute_batch(MIGRATION_1_SQL).expect("migration 1");
        tx.pragma_update(None, "user_version", 1).expect("version");
        tx.execute_batch(
            r#"
            INSERT INTO meta (key, value) VALUES ('samples_seeded', '1');
            INSERT INTO army_lists (id, origin, pos, name, period, complete, first_fire_bonus,
                ranges_scale)
            VALUES ('user-hessians', 'user', 0, 'Hessians', 'other', 1, 0, 1);
            INSERT INTO troop_types (list_id, id, pos, name, arm, move_json, attack_json, hits,
                save, points, has_limit, limit_min, limit_max, notes_json, role, grade,
                grade_optional, year_from, year_to, corrections_json)
            VALUES ('user-hessians', 'jaeger', 0, 'Jäger', 'infantry', '{"cm":15}',
                '{"ranged":{"dice":1,"range_cm":20}}', 3, 5, 45, 1, NULL, 2, '[2]', 'unit',
                'elite', 0, 1776, 1783, '[]');
            INSERT INTO scenarios (id, format, name, date, year, description, table_width_cm,
                table_depth_cm, scale, points, turn_limit, weather, defense, defender,
                optional_rules_json)
            VALUES ('v1-skirmish', 1, 'A v1 skirmish', '1 June 1776', 1776, '', 180.0, 120.0,
                'company', 1500, 8, 'normal', 'none', NULL, '["scouting"]');
            INSERT INTO sides (scenario_id, side, name, army_list, colour_r, colour_g, colour_b,
                deployment_zone_json, objectives_json)
            VALUES ('v1-skirmish', 0, 'Hesse-Kassel', 'user-hessians', 0, 0, 128,
                '[{"x":0.0,"y":0.0},{"x":180.0,"y":0.0}]',
                '{"major":{"description":"Hold","area":[]},"minor":{"description":"","area":[]}}');
            INSERT INTO hqs (scenario_id, side, pos, id, name, parent, mounted, x, y, facing_deg)
            VALUES ('v1-skirmish', 0, 0, 1, 'Jäger Corps', NULL, 1, 90.0, 10.5, 0.0);
            INSERT INTO commanders (scenario_id, side, hq_pos, id, name, note, level, quality,
                command_value, replaced_once)
            VALUES ('v1-skirmish', 0, 0, 1, 'Johann von Ewald', 'captain', 'brigade', 'good',
                8, 0);
            INSERT INTO units (scenario_id, side, pos, id, name, troop_type, stands, hq, grade,
                engineer_attached, brigade_skirmishers, regimental_guns, lancers,
                horse_artillery, x, y, facing_deg)
            VALUES ('v1-skirmish', 0, 0, 1, 'Ewald''s company', 'jaeger', 2, 1, 'elite',
                0, 1, 0, 0, 0, NULL, NULL, NULL);
            INSERT INTO terrain_features (scenario_id, pos, id, name, kind, hill_level, shape,
                width_cm, points_json, dense, frozen)
            VALUES ('v1-skirmish', 0, 1, 'Ridge', 'hill', 1, 'polygon', NULL,
                '[{"x":10.0,"y":50.0},{"x":60.0,"y":50.0},{"x":35.0,"y":70.0}]', 0, 0);
            INSERT INTO campaigns (id, name, description, carry_losses,
                carry_commander_casualties, carry_victory_points, carry_weather)
            VALUES ('v1-campaign', 'V1 campaign', '', 1, 1, 0, 0);
            INSERT INTO campaign_battles (campaign_id, pos, scenario_id, note, weather)
            VALUES ('v1-campaign', 0, 'v1-skirmish', 'only battle', 'poor');
            "#,
        )
        .expect("v1 data");
        tx.commit().expect("commit");
    }

    let mut store = Store::open(&db).expect("open migrates");
    assert_eq!(store.schema_version().expect("version"), LATEST_SCHEMA);
    assert!(
        side_file(&db, ".v1.bak").exists(),
        "a copy was kept before migrating"
    );

    let hessians = ListId::new("user-hessians");
    let list = store.army_list(&hessians).expect("user list survives");
    assert!(list.user);
    assert_eq!(
        list.troop_types,
        vec![TroopType {
            id: TroopTypeId::new("jaeger"),
            name: "Jäger".to_string(),
            arm: Arm::Infantry,
            movement: Move::Cm(15),
            attack: Some(Attack::Ranged {
                dice: 1,
                range_cm: 20
            }),
            hits: 3,
            save: Save::new(5).ok(),
            points: Some(45),
            limit: Some(Limit {
                min: None,
                max: Some(2)
            }),
            notes: vec![2],
            role: RowRole::Unit,
            grade: RowGrade::Elite,
            grade_optional: false,
            years: Some(Years {
                from: 1776,
                to: Some(1783)
            }),
            corrections: vec![],
        }]
    );
    // Migration 2 gave the user list's rows the user origin.
    assert!(store
        .is_user_troop_type(&hessians, &TroopTypeId::new("jaeger"))
        .expect("origin"));

    let expected = Scenario {
        format: 1,
        id: ScenarioId::new("v1-skirmish"),
        name: "A v1 skirmish".to_string(),
        date: "1 June 1776".to_string(),
        year: Some(1776),
        description: String::new(),
        table: Table {
            width_cm: 180.0,
            depth_cm: 120.0,
        },
        scale: Scale::Company,
        measure_scale: MeasureScale::Printed,
        points: 1500,
        turn_limit: 8,
        weather: Weather::Normal,
        defense: DefensePosture::None,
        defender: None,
        first_player: None,
        teams: Vec::new(),
        optional_rules: vec![OptionalRule::Scouting],
        terrain: vec![TerrainFeature {
            id: FeatureId(1),
            name: "Ridge".to_string(),
            kind: TerrainKind::Hill { level: 1 },
            geometry: Geometry::Polygon(vec![pt(10.0, 50.0), pt(60.0, 50.0), pt(35.0, 70.0)]),
            dense: false,
            frozen: false,
            construction: None,
        }],
        sides: vec![Side {
            name: "Hesse-Kassel".to_string(),
            army_list: hessians.clone(),
            colour: [0, 0, 128],
            hqs: vec![Hq {
                id: HqId(1),
                name: "Jäger Corps".to_string(),
                parent: None,
                commander: Commander {
                    id: CommanderId(1),
                    name: "Johann von Ewald".to_string(),
                    note: "captain".to_string(),
                    level: CommandLevel::Brigade,
                    quality: Quality::Good,
                    command_value: 8,
                    replaced_once: false,
                },
                mounted: true,
                position: placed(90.0, 10.5, 0.0),
                fao: false,
                nation: None,
                ally: false,
            }],
            units: vec![Unit {
                grade: Grade::Elite,
                brigade_skirmishers: true,
                ..unit(1, "Ewald's company", "jaeger", 2, 1)
            }],
            field_defenses: vec![],
            deployment_zone: vec![pt(0.0, 0.0), pt(180.0, 0.0)],
            objectives: Objectives {
                major: Objective {
                    description: "Hold".to_string(),
                    area: vec![],
                },
                minor: Objective::default(),
            },
        }],
    };
    assert_eq!(
        store
            .load_scenario(&expected.id)
            .expect("scenario survives"),
        expected
    );
    let camp = store
        .load_campaign(&CampaignId::new("v1-campaign"))
        .expect("campaign survives");
    assert_eq!(camp.battles[0].weather, Some(Weather::Poor));
    assert!(!camp.carry_over.weather);

    // The shipped lists were written by the re-sync on the way.
    assert_eq!(
        store.list_summaries().expect("summaries").len(),
        shipped_lists().expect("parse").len() + 1
    );
    // And the battle tables work on the migrated file.
    let battle = store
        .create_battle(&powderhorn::store::BattleSetup {
            scenario: expected.clone(),
            lists: Vec::new(),
            dice: powderhorn::rules::DiceSource::Seed(7),
            orders: powderhorn::rules::command::OrdersMode::Full,
            first_player: 0,
            roll_off: Vec::new(),
            mode: powderhorn::store::PlayMode::Hotseat,
            rules_version: "bptc-test".into(),
            fog: false,
        })
        .expect("battle on a migrated db");
    let progress = powderhorn::store::BattleProgress {
        game_turn: 0,
        phase: powderhorn::rules::Phase::Deployment,
        active: 0,
        status: powderhorn::store::BattleStatus::InProgress,
        result: None,
    };
    assert_eq!(
        store
            .append_battle_record(battle, &powderhorn::store::LogRecord::Undo, &progress)
            .expect("append"),
        0
    );
}

// ----- refusing files that are not ours ---------------------------------------------------------

#[test]
fn a_text_file_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("notes.txt");
    let text = b"Dear diary, today the Austrians held the bridge at Ebelsberg.\n".repeat(40);
    std::fs::write(&db, &text).expect("write");
    let err = Store::open(&db).err().expect("refused");
    assert!(matches!(err, StoreError::NotSqlite { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("notes.txt") && msg.contains("not an SQLite file"),
        "{msg}"
    );
    assert_untouched(&db, &text);
    assert!(
        !lock_path(&db).exists(),
        "no lock file beside a file that is not ours"
    );
}

#[test]
fn a_short_file_with_the_sqlite_magic_is_refused_as_corrupt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let bytes = b"SQLite format 3\0and then nothing".to_vec();
    std::fs::write(&db, &bytes).expect("write");
    let err = Store::open(&db).err().expect("refused");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert_untouched(&db, &bytes);
}

/// Creates a seeded database file, closes it and returns its bytes.
fn closed_database(db: &Path) -> Vec<u8> {
    let mut store = Store::open(db).expect("create");
    store.save_scenario(&rich_scenario()).expect("some data");
    drop(store);
    assert!(
        !side_file(db, "-wal").exists(),
        "a clean close leaves no -wal"
    );
    std::fs::read(db).expect("read")
}

#[test]
fn a_database_with_garbage_over_its_middle_pages_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let mut bytes = closed_database(&db);
    let page = 4096;
    let pages = bytes.len() / page;
    assert!(pages >= 6, "the seeded database has {pages} pages");
    for p in pages / 3..(2 * pages / 3).max(pages / 3 + 1) {
        for (i, b) in bytes[p * page..(p + 1) * page].iter_mut().enumerate() {
            *b = (i * 37 % 251) as u8 ^ 0x5a;
        }
    }
    std::fs::write(&db, &bytes).expect("corrupt it");
    let started = Instant::now();
    let err = Store::open(&db).err().expect("refused");
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("powderhorn.db"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_untouched(&db, &bytes);
}

#[test]
fn a_truncated_database_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let full = closed_database(&db);
    // Cut at a page boundary (the header still counts the lost pages) and mid-page.
    for cut in [full.len() / 2 / 4096 * 4096, full.len() / 2 + 100] {
        let bytes = full[..cut].to_vec();
        std::fs::write(&db, &bytes).expect("truncate");
        let err = Store::open(&db).err().expect("refused");
        assert!(
            matches!(err, StoreError::Corrupt { .. }),
            "cut at {cut}: {err}"
        );
        assert!(err.to_string().contains("truncated"), "{err}");
        assert_untouched(&db, &bytes);
    }
}

#[test]
fn a_database_from_a_newer_build_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    closed_database(&db);
    {
        let conn = rusqlite::Connection::open(&db).expect("raw open");
        conn.pragma_update(None, "user_version", LATEST_SCHEMA + 7)
            .expect("a newer build's version");
    }
    assert!(!side_file(&db, "-wal").exists());
    let bytes = std::fs::read(&db).expect("read");
    let err = Store::open(&db).err().expect("refused");
    match &err {
        StoreError::TooNew {
            path,
            found,
            supported,
        } => {
            assert_eq!(path, &db);
            assert_eq!(*found, LATEST_SCHEMA + 7);
            assert_eq!(*supported, LATEST_SCHEMA);
        }
        other => panic!("expected TooNew, got {other}"),
    }
    assert!(err.to_string().contains("newer Powderhorn"), "{err}");
    assert_untouched(&db, &bytes);
}

#[test]
fn another_programs_sqlite_database_is_refused_and_left_unchanged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("places.sqlite");
    {
        let conn = rusqlite::Connection::open(&db).expect("raw create");
        conn.execute_batch(
            "CREATE TABLE bookmarks (url TEXT); INSERT INTO bookmarks VALUES ('x');",
        )
        .expect("foreign data");
    }
    let bytes = std::fs::read(&db).expect("read");
    let err = Store::open(&db).err().expect("refused");
    assert!(matches!(err, StoreError::Foreign { .. }), "{err}");
    assert!(err.to_string().contains("places.sqlite"), "{err}");
    assert_untouched(&db, &bytes);
}

#[test]
fn an_empty_file_or_a_missing_folder_gives_a_new_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").expect("touch");
    let store = Store::open(&empty).expect("an empty file is new");
    assert!(!store.list_summaries().expect("lists").is_empty());
    assert_eq!(store.path(), Some(empty.as_path()));

    let nested = dir.path().join("a/b/c/powderhorn.db");
    let store = Store::open(&nested).expect("folders created");
    assert_eq!(store.schema_version().expect("version"), LATEST_SCHEMA);
    assert!(nested.exists());
}

// ----- the lock ---------------------------------------------------------------------------------

#[test]
fn a_second_store_on_the_same_file_is_locked_out_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let mut first = Store::open(&db).expect("first window");
    let started = Instant::now();
    let err = Store::open(&db).err().expect("second window refused");
    assert!(started.elapsed() < Duration::from_secs(2), "no waiting");
    assert!(matches!(err, StoreError::Locked { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("powderhorn.db") && msg.contains("open in another Powderhorn window/process"),
        "{msg}"
    );
    // The first store is unharmed and keeps working.
    first
        .save_scenario(&rich_scenario())
        .expect("still writable");
    drop(first);
    let second = Store::open(&db).expect("free again after the first closes");
    assert_eq!(
        second
            .load_scenario(&ScenarioId::new("test-ebelsberg-rich"))
            .expect("data intact"),
        rich_scenario()
    );
}

// ----- battles ----------------------------------------------------------------------------------

#[test]
fn battle_events_are_append_only() {
    use powderhorn::ai::{play, Limits, Until};
    use powderhorn::rules::command::OrdersMode;
    use powderhorn::rules::{Battle, DiceSource};
    use powderhorn::store::{
        Actor, BattleProgress, BattleSetup, BattleStatus, LogRecord, PlayMode,
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let mut store = Store::open(&db).expect("create");
    // A real battle: the sample's first player turn, played by the solo opponent.
    let scenario = powderhorn::model::samples::scenarios()
        .expect("samples")
        .into_iter()
        .next()
        .expect("a sample");
    store.save_scenario(&scenario).expect("save");
    let lists = store.army_lists().expect("lists");
    let mut b = Battle::new(
        scenario.clone(),
        lists.clone(),
        DiceSource::Seed(u64::MAX - 3),
        0,
    )
    .expect("sets up");
    play(
        &mut b,
        &Limits::default(),
        [true, true],
        Until::Turn,
        &mut |_| true,
    );
    play(
        &mut b,
        &Limits::default(),
        [true, true],
        Until::Turn,
        &mut |_| true,
    );
    let played: Vec<_> = b.entries().to_vec();
    assert!(played.len() >= 3, "a player turn has several actions");
    assert!(played.iter().any(|e| e.dice_used > 0), "and rolls dice");
    let battle = store
        .create_battle(&BattleSetup {
            scenario: scenario.clone(),
            lists: lists.clone(),
            dice: DiceSource::Seed(u64::MAX - 3),
            orders: OrdersMode::Full,
            first_player: 0,
            roll_off: Vec::new(),
            mode: PlayMode::Solo { computer: 1 },
            rules_version: "bptc-1.0".into(),
            fog: false,
        })
        .expect("create battle");
    let t = b.state().turn;
    let progress = BattleProgress {
        game_turn: t.game_turn,
        phase: t.phase,
        active: t.active,
        status: BattleStatus::InProgress,
        result: None,
    };
    let records: Vec<LogRecord> = played
        .iter()
        .map(|e| LogRecord::Action {
            entry: e.clone(),
            actor: Actor::Computer,
        })
        .chain([LogRecord::Undo, LogRecord::Redo])
        .collect();
    for (i, r) in records.iter().enumerate() {
        let seq = store
            .append_battle_record(battle, r, &progress)
            .expect("append");
        assert_eq!(seq as usize, i);
    }
    assert_eq!(store.battle_records(battle).expect("entries"), records);

    // The battle keeps the scenario and lists as they were.
    let mut edited = scenario.clone();
    edited.name = "edited later".to_string();
    store.save_scenario(&edited).expect("edit the scenario");
    let record = store.battle(battle).expect("battle record");
    assert_eq!(record.scenario, scenario);
    assert_eq!(record.lists.as_deref(), Some(&lists[..]));
    assert_eq!(record.dice, DiceSource::Seed(u64::MAX - 3));
    assert_eq!(record.mode, PlayMode::Solo { computer: 1 });
    assert_eq!(record.rules_version, "bptc-1.0");
    assert_eq!(record.entries, records.len());
    assert_eq!(record.game_turn, t.game_turn);
    assert_eq!(record.phase, t.phase);
    assert_eq!(store.battle_ids().expect("ids"), vec![battle]);

    // No such battle: refused by the API.
    assert!(matches!(
        store.append_battle_record(battle + 100, &LogRecord::Undo, &progress),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.battle_records(battle + 100),
        Err(StoreError::NotFound(_))
    ));

    // UPDATE, DELETE and out-of-order inserts: refused by the database itself.
    let raw = rusqlite::Connection::open(&db).expect("raw connection beside the store");
    let update = raw.execute(
        "UPDATE battle_events SET events_json = '[]' WHERE battle_id = ?1 AND seq = 1",
        [battle],
    );
    let msg = update.expect_err("UPDATE refused").to_string();
    assert!(msg.contains("append-only"), "{msg}");
    let delete = raw.execute("DELETE FROM battle_events WHERE battle_id = ?1", [battle]);
    let msg = delete.expect_err("DELETE refused").to_string();
    assert!(msg.contains("append-only"), "{msg}");
    let replace = raw.execute(
        "INSERT OR REPLACE INTO battle_events (battle_id, seq, action_json, events_json)
         VALUES (?1, 0, '{}', '[]')",
        [battle],
    );
    assert!(replace.is_err(), "rewriting entry 0 by REPLACE refused");
    let gap = raw.execute(
        "INSERT INTO battle_events (battle_id, seq, action_json, events_json) VALUES (?1, 999, '{}', '[]')",
        [battle],
    );
    assert!(gap.is_err(), "a gap in the log refused");
    let kind = raw.execute(
        "INSERT INTO battle_events (battle_id, seq, action_json, events_json, kind)
         VALUES (?1, (SELECT MAX(seq) + 1 FROM battle_events WHERE battle_id = ?1), 'null', '[]', 'rewind')",
        [battle],
    );
    assert!(kind.is_err(), "an entry of no known kind refused");
    drop(raw);
    assert_eq!(store.battle_records(battle).expect("entries"), records);
}

// ----- pragmas and row conversion ---------------------------------------------------------------

#[test]
fn wal_and_foreign_keys_are_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let store = Store::open(&db).expect("create");
    assert_eq!(store.journal_mode().expect("journal mode"), "wal");
    assert!(store.foreign_keys_enabled().expect("foreign keys"));
    drop(store);
    let header = std::fs::read(&db).expect("read");
    assert_eq!(&header[..16], b"SQLite format 3\0");
    assert_eq!((header[18], header[19]), (2, 2), "the file is in WAL mode");
    assert_eq!(
        i32::from_be_bytes([header[68], header[69], header[70], header[71]]),
        APPLICATION_ID
    );
    let in_memory = Store::open_in_memory().expect("memory");
    assert!(in_memory.foreign_keys_enabled().expect("foreign keys"));
    assert_eq!(in_memory.path(), None);
}

#[test]
fn a_row_that_does_not_convert_is_a_data_error_naming_table_row_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = db_in(&dir);
    let s = rich_scenario();
    {
        let mut store = Store::open(&db).expect("create");
        store.save_scenario(&s).expect("save");
    }
    {
        let conn = rusqlite::Connection::open(&db).expect("raw");
        conn.execute(
            "UPDATE units SET grade = 'heroic' WHERE scenario_id = ?1 AND side = 0 AND pos = 1",
            [s.id.as_str()],
        )
        .expect("tamper");
    }
    let store = Store::open(&db).expect("reopen");
    let err = store.load_scenario(&s.id).expect_err("bad row");
    let msg = err.to_string();
    assert!(matches!(err, StoreError::Data(_)), "{msg}");
    for part in ["table units", "pos=1", "column grade", "'heroic'"] {
        assert!(msg.contains(part), "{part:?} missing from: {msg}");
    }
}

/// Issue #18 item 10: a table edit saved over the stored scenario writes only the changed
/// features' rows, and what is stored is exactly the edited scenario — for a corner dragged,
/// its undo, a change elsewhere (the whole scenario is written) and a `before` the store does
/// not hold (the whole scenario too).
#[test]
fn a_table_edit_saved_over_the_stored_scenario_stores_exactly_the_edit() {
    let mut store = Store::open_in_memory().expect("store");
    let before = samples::scenarios()
        .expect("samples")
        .into_iter()
        .find(|s| s.terrain.len() > 3)
        .expect("a sample with terrain");
    store.save_scenario(&before).expect("saved");

    let mut dragged = before.clone();
    let f = dragged.terrain.get_mut(2).expect("a third feature");
    match &mut f.geometry {
        Geometry::Polygon(p) => p[0] = Point::new(p[0].x + 2.0, p[0].y - 1.5),
        Geometry::Polyline { points, .. } => {
            points[0] = Point::new(points[0].x + 2.0, points[0].y - 1.5)
        }
    }
    f.name.push_str(" (moved)");
    store.save_scenario_over(&before, &dragged).expect("saved");
    assert_eq!(store.load_scenario(&before.id).expect("load"), dragged);

    // The undo, saved the same way.
    store.save_scenario_over(&dragged, &before).expect("saved");
    assert_eq!(store.load_scenario(&before.id).expect("load"), before);

    // Anything else changed: the whole scenario is written.
    let mut renamed = dragged.clone();
    renamed.name = "Renamed".into();
    renamed.terrain.pop();
    store.save_scenario_over(&before, &renamed).expect("saved");
    assert_eq!(store.load_scenario(&before.id).expect("load"), renamed);

    // A `before` with a feature the store no longer holds: written whole, nothing lost.
    let mut stale = renamed.clone();
    stale
        .terrain
        .push(before.terrain.last().cloned().expect("a feature"));
    let mut next = stale.clone();
    next.terrain.last_mut().expect("a feature").name = "Moved again".into();
    store.save_scenario_over(&stale, &next).expect("saved");
    assert_eq!(store.load_scenario(&before.id).expect("load"), next);
}

/// OPT-NATION-01..03: an HQ's and a unit's nation and an HQ heading an allied army are kept by
/// the store (schema 12), so a scenario edited in the window keeps them.
#[test]
fn opt_nation_01_opt_nation_03_nations_and_allies_round_trip_through_the_store() {
    let mut store = Store::open_in_memory().expect("store");
    let mut s = samples::scenarios()
        .expect("samples")
        .into_iter()
        .next()
        .expect("a sample");
    let side = &mut s.sides[1];
    side.hqs[1].nation = Some("Hungarian".into());
    side.hqs[1].ally = true;
    side.units[0].nation = Some("Hungarian".into());
    store.save_scenario(&s).expect("saved");
    let back = store.load_scenario(&s.id).expect("loaded");
    assert_eq!(back.sides[1].hqs[1].nation.as_deref(), Some("Hungarian"));
    assert!(back.sides[1].hqs[1].ally);
    assert_eq!(back.sides[1].units[0].nation.as_deref(), Some("Hungarian"));
    assert_eq!(back, s);
}
