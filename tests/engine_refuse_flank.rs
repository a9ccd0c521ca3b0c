//! MOVE-30 Refuse the flank: the `refuse_flank` action (a Deploy action), the swung-back stands'
//! geometry, their own fire cones, the unit's facing for flank tests from its unrefused stands,
//! straightening on a move or formation change, and replay/undo.
//!
//! Geometry reminders: a 4-stand infantry line at (100, 50) facing 0 covers x 95..105,
//! y 48.5..50; its left stand turns back about (97.5, 50), its right stand about (102.5, 50).

use powderhorn::geom::{Aspect, Point};
use powderhorn::rules::command::{OrderedUnit, OrdersMode, UnitActionKind};
use powderhorn::rules::firing::{check_fire, eligible_stands};
use powderhorn::rules::flank::FlankState;
use powderhorn::rules::geometry::{aspect, footprint_of};
use powderhorn::rules::{Action, ActionError, Battle, Event, Formation, Manoeuvre, PieceId};
use serde_json::{json, Value};

const LINE_INF: &str = "line-infantry-08-12";
const HEAVY_CAV: &str = "heavy-cavalry-07-12";
const DISMOUNTED: &str = "dismounted-cavalry-all";
use builder::FIELD_ART;
const AUS_INF: &str = "line-infantry-07-15";

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{hq_value, pose, pt, u, Sc};

/// French side 0 (its brigadier at (100, 40)), Austrian side 1, 1810; command value 8.
fn new_sc() -> Sc {
    let brigadier = json!({"at": pt(100.0, 40.0), "facing_deg": 0.0});
    Sc::bare("nap-french", "nap-austrian")
        .named("refuse-test", "Refuse the flank")
        .year(1810)
        .side_names("French", "Austrians")
        .hq_json(0, hq_value(1, "Brigade A", 8, brigadier))
        .hq_json(1, hq_value(2, "Brigade B", 8, Value::Null))
}

impl Sc {
    fn deploying(&self, mode: OrdersMode, dice: Vec<u8>) -> Battle {
        self.at_deployment(dice, mode)
    }

    /// Free orders, side 0's Command phase.
    fn command(&self) -> Battle {
        self.at_command(vec![], OrdersMode::Free, &[])
    }
}

fn refuse(
    b: &mut Battle,
    piece: PieceId,
    left: f64,
    right: f64,
) -> Result<Vec<Event>, ActionError> {
    b.perform(Action::RefuseFlank {
        piece,
        left_deg: left,
        right_deg: right,
    })
    .map(<[Event]>::to_vec)
}

/// Asserts a refusal by `expected` that leaves the battle exactly as it was.
fn refused(b: &mut Battle, piece: PieceId, left: f64, right: f64, expected: &str) {
    let action = Action::RefuseFlank {
        piece,
        left_deg: left,
        right_deg: right,
    };
    refuse::refused(b, action, expected);
}

fn facings(b: &Battle, piece: PieceId) -> Vec<f64> {
    let p = b.state().piece(piece).expect("the piece");
    footprint_of(&b.ctx(), p)
        .expect("on the table")
        .stands
        .iter()
        .map(|s| (s.facing_deg * 1e6).round() / 1e6)
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn move_30_golden_refuse_one_flank_then_both() {
    let mut b = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0).command();
    let ev = refuse(&mut b, u(0, 1), 30.0, 0.0).expect("legal");
    assert_eq!(
        ev,
        vec![Event::FlankRefused {
            piece: u(0, 1),
            left_deg: 30.0,
            right_deg: 0.0,
        }]
    );
    let p = b.state().piece(u(0, 1)).expect("the unit");
    assert_eq!(
        p.flank,
        FlankState {
            left_deg: 30.0,
            right_deg: 0.0,
            at: Some(pose(100.0, 50.0, 0.0)),
        }
    );
    // The pose is the line's; the left stand faces 30° anticlockwise of it, pivoting on its
    // inner front corner (97.5, 50).
    assert_eq!(p.pose, Some(pose(100.0, 50.0, 0.0)));
    assert_eq!(facings(&b, u(0, 1)), vec![-30.0, 0.0, 0.0, 0.0]);
    let fp = footprint_of(&b.ctx(), p).expect("on the table");
    let [fl, fr, _, _] = fp.stands[0].corners();
    assert!(close(fr.x, 97.5) && close(fr.y, 50.0));
    let (s, c) = 30f64.to_radians().sin_cos();
    assert!(close(fl.x, 97.5 - 2.5 * c) && close(fl.y, 50.0 - 2.5 * s));
    // The unit's front is its unrefused stands' (x 97.5..105); the refused stand adds its own.
    assert_eq!(fp.front_edges().len(), 2);
    assert!(close(fp.front_edges()[0].left.x, 97.5) && close(fp.front_edges()[0].right.x, 105.0));

    // Both flanks: the angles replace the old ones.
    let ev = refuse(&mut b, u(0, 1), 45.0, 20.0).expect("legal");
    assert_eq!(
        ev,
        vec![Event::FlankRefused {
            piece: u(0, 1),
            left_deg: 45.0,
            right_deg: 20.0,
        }]
    );
    assert_eq!(facings(&b, u(0, 1)), vec![-45.0, 0.0, 0.0, 20.0]);
    let p = b.state().piece(u(0, 1)).expect("the unit");
    let fp = footprint_of(&b.ctx(), p).expect("on the table");
    assert_eq!(fp.front_edges().len(), 3);
    assert!(close(fp.front_edges()[0].left.x, 97.5) && close(fp.front_edges()[0].right.x, 102.5));
    // The straight line's outline is still its convex hull (VIS-07): every corner on or in it.
    let outline = fp.outline();
    for c in fp.stands.iter().flat_map(|s| s.corners()) {
        use geo::Intersects;
        assert!(outline.intersects(&geo::Point::new(c.x, c.y)));
    }
}

#[test]
fn move_30_dismounted_cavalry_and_extended_line_may_refuse() {
    let mut b = new_sc()
        .unit(0, 1, DISMOUNTED, 3, 100.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 4, 150.0, 50.0, 0.0)
        .command();
    refuse(&mut b, u(0, 1), 0.0, 45.0).expect("dismounted cavalry refuse a flank");
    assert_eq!(facings(&b, u(0, 1)), vec![0.0, 0.0, 45.0]);
    let mut b = new_sc()
        .unit(0, 2, LINE_INF, 4, 150.0, 50.0, 0.0)
        .deploying(OrdersMode::Free, vec![]);
    b.perform(Action::Deploy {
        piece: u(0, 2),
        formation: Formation::ExtendedLine,
    })
    .expect("extended line in deployment");
    refuse(&mut b, u(0, 2), 10.0, 10.0).expect("an extended line refuses, in deployment too");
    assert_eq!(facings(&b, u(0, 2)), vec![-10.0, 0.0, 0.0, 10.0]);
}

#[test]
fn move_30_refusals_name_the_rule() {
    let mut b = new_sc()
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(0, 2, HEAVY_CAV, 3, 40.0, 50.0, 0.0)
        .unit(0, 3, LINE_INF, 4, 140.0, 50.0, 0.0)
        .unit(0, 4, FIELD_ART, 2, 170.0, 50.0, 0.0)
        .unit(0, 5, LINE_INF, 1, 190.0, 50.0, 0.0)
        .unit(0, 6, LINE_INF, 2, 210.0, 50.0, 0.0)
        .unit(1, 7, AUS_INF, 4, 100.0, 150.0, 180.0)
        .deploying(OrdersMode::Free, vec![]);
    b.perform(Action::Deploy {
        piece: u(0, 3),
        formation: Formation::MarchColumn,
    })
    .expect("a column");
    b.perform(Action::EndPhase).expect("deployment ends");
    // Mounted cavalry, a column, artillery.
    refused(&mut b, u(0, 2), 30.0, 0.0, "MOVE-30");
    refused(&mut b, u(0, 3), 30.0, 0.0, "MOVE-30");
    refused(&mut b, u(0, 4), 30.0, 0.0, "MOVE-30");
    // Up to 45°, swung back only.
    refused(&mut b, u(0, 1), 50.0, 0.0, "MOVE-30");
    refused(&mut b, u(0, 1), 0.0, -10.0, "MOVE-30");
    refused(&mut b, u(0, 1), f64::NAN, 0.0, "MOVE-30");
    // One stand refuses nothing; two stands one flank only.
    refused(&mut b, u(0, 5), 30.0, 0.0, "MOVE-30");
    refused(&mut b, u(0, 6), 30.0, 30.0, "MOVE-30");
    refuse(&mut b, u(0, 6), 30.0, 0.0).expect("two stands refuse one flank");
    // Nothing to change.
    refused(&mut b, u(0, 1), 0.0, 0.0, "MOVE-30");
    // The enemy's unit in our turn (SEQ-02).
    refused(&mut b, u(1, 7), 30.0, 0.0, "SEQ-02");
}

#[test]
fn move_30_the_swung_stand_needs_room() {
    // A friend touching the line's rear edge (its front at y = 48.5): the swung stand dips to
    // y ≈ 47.2 and would stand on it.
    let mut b = new_sc()
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 2, 95.0, 48.5, 0.0)
        .command();
    refused(&mut b, u(0, 1), 45.0, 0.0, "MOVE-30");
    // The right flank has room.
    refuse(&mut b, u(0, 1), 0.0, 45.0).expect("room on the right");
    // Impassable ground behind the line's right.
    let mut b = new_sc()
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .area("impassable", (101.0, 40.0, 110.0, 47.5))
        .command();
    refused(&mut b, u(0, 1), 0.0, 45.0, "TERR-12");
    refuse(&mut b, u(0, 1), 0.0, 5.0).expect("a shallow angle clears it");
    // The table edge.
    let mut b = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 1.6, 0.0).command();
    refused(&mut b, u(0, 1), 45.0, 0.0, "MOVE-02");
}

#[test]
fn move_30_not_while_charging() {
    // Napoleonic infantry charge in attack column (list note 1); dismounted cavalry in line.
    let mut b = new_sc()
        .unit(0, 1, DISMOUNTED, 3, 100.0, 50.0, 0.0)
        .unit(1, 7, AUS_INF, 4, 100.0, 58.0, 180.0)
        .command();
    b.perform(Action::Charge {
        chargers: vec![u(0, 1)],
        target: u(1, 7),
        saber: false,
    })
    .expect("the charge is declared");
    refused(&mut b, u(0, 1), 30.0, 0.0, "MOVE-30");
    // The charged unit is in an unresolved combat: no action at all (INIT-03).
    let ctx = b.ctx();
    let err = powderhorn::rules::flank::check_refuse_flank(&ctx, u(1, 7), 30.0, 0.0)
        .expect_err("not its turn either");
    assert!(["SEQ-02", "INIT-03"].contains(&err.rule), "{err:?}");
}

#[test]
fn move_30_is_a_deploy_action_that_needs_an_order_under_full_orders() {
    let sc = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0);
    let mut b = sc.deploying(OrdersMode::Full, vec![2, 3, 2, 3]);
    b.perform(Action::EndPhase).expect("deployment ends");
    b.perform(Action::EndPhase).expect("to the Command phase");
    // No order: refused by the command rules.
    refused(&mut b, u(0, 1), 30.0, 0.0, "CMD-04");
    // Ordered to move, not to deploy.
    let hq = PieceId::Hq {
        side: 0,
        hq: powderhorn::model::HqId(1),
    };
    let ordered = |action| OrderedUnit {
        piece: u(0, 1),
        action,
        target: None,
        road: false,
        dense: false,
    };
    b.perform(Action::IssueOrder {
        command: hq,
        units: vec![ordered(UnitActionKind::Move)],
    })
    .expect("the move order is rolled");
    refused(&mut b, u(0, 1), 30.0, 0.0, "CMD-15");
    // Ordered to deploy: the refusal is its action.
    b.perform(Action::IssueOrder {
        command: hq,
        units: vec![ordered(UnitActionKind::Deploy)],
    })
    .expect("the deploy order is rolled");
    let ev = refuse(&mut b, u(0, 1), 30.0, 0.0).expect("ordered");
    assert!(
        matches!(ev.first(), Some(Event::UnitActed(a)) if a.piece == u(0, 1) && a.kind == UnitActionKind::Deploy),
        "{ev:?}"
    );
    assert_eq!(
        ev.last(),
        Some(&Event::FlankRefused {
            piece: u(0, 1),
            left_deg: 30.0,
            right_deg: 0.0
        })
    );
}

/// The enemy out to the front-left of a line at (100, 50): outside the line's cone, inside the
/// left stand's own cone once it is swung back 45°, and within 10 cm.
fn front_left_enemy() -> Sc {
    new_sc()
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(1, 7, AUS_INF, 2, 90.0, 54.0, 135.0)
}

#[test]
fn move_30_fire_04_the_refused_stand_fires_through_its_own_cone() {
    let mut b = front_left_enemy().command();
    let err = check_fire(&b.ctx(), &[u(0, 1)], u(1, 7), None).expect_err("outside the cone");
    assert!(
        matches!(&err, ActionError::Rule(e) if e.rule == "FIRE-04"),
        "{err:?}"
    );
    refuse(&mut b, u(0, 1), 45.0, 0.0).expect("legal");
    let plan = check_fire(&b.ctx(), &[u(0, 1)], u(1, 7), None).expect("the refused stand fires");
    assert_eq!(plan.firers.len(), 1);
    assert_eq!(
        plan.firers[0].stands, 1,
        "only the refused stand fires, through its own cone"
    );
    // A target straight ahead: the three unrefused stands fire; the refused one's cone misses.
    let ctx = b.ctx();
    let me = ctx.state.piece(u(0, 1)).expect("the unit");
    let fp = footprint_of(&ctx, me).expect("on the table");
    let ahead = powderhorn::geom::footprint(
        powderhorn::geom::StandKind::Infantry,
        2,
        powderhorn::geom::Arrangement::Line { gap_cm: 0.0 },
        Point::new(102.0, 56.0),
        180.0,
        1.0,
    );
    assert_eq!(eligible_stands(me, &fp, &ahead), 3);
}

#[test]
fn move_30_fire_10_flank_tests_face_the_unrefused_stands() {
    let mut b = front_left_enemy()
        .unit(1, 8, AUS_INF, 2, 101.0, 57.0, 180.0)
        .command();
    refuse(&mut b, u(0, 1), 45.0, 0.0).expect("legal");
    let ctx = b.ctx();
    let me = ctx.state.piece(u(0, 1)).expect("the unit");
    let enemy = ctx.state.piece(u(1, 7)).expect("the enemy");
    let fp = footprint_of(&ctx, me).expect("on the table");
    let efp = footprint_of(&ctx, enemy).expect("on the table");
    // The enemy stands in the refused stand's own cone…
    use geo::Intersects;
    assert!(fp.front_edges()[1]
        .cone_polygon(1000.0)
        .intersects(&efp.polygons()));
    // …but the unit faces the way its unrefused stands do: that is its flank.
    assert_eq!(aspect(&ctx, enemy, me), Some(Aspect::Flank));
    let ahead = ctx.state.piece(u(1, 8)).expect("the enemy ahead");
    assert_eq!(aspect(&ctx, ahead, me), Some(Aspect::Front));
}

#[test]
fn move_30_a_move_or_a_formation_change_straightens_the_flank() {
    let mut b = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0).command();
    refuse(&mut b, u(0, 1), 30.0, 30.0).expect("legal");
    // The move is measured from the straight line and leaves it straight.
    let ev = b
        .perform(Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(100.0, 55.0, 0.0),
            manoeuvre: Manoeuvre::Advance,
        })
        .expect("an advance")
        .to_vec();
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 1),
            from: pose(100.0, 50.0, 0.0),
            to: pose(100.0, 55.0, 0.0),
            path: vec![],
            cost_cm: 5.0,
        }]
    );
    let p = b.state().piece(u(0, 1)).expect("the unit");
    assert_eq!(p.flank, FlankState::default());
    assert_eq!(facings(&b, u(0, 1)), vec![0.0; 4]);
    // A formation change straightens too.
    refuse(&mut b, u(0, 1), 20.0, 0.0).expect("legal");
    b.perform(Action::Deploy {
        piece: u(0, 1),
        formation: Formation::MarchColumn,
    })
    .expect("into column");
    assert_eq!(
        b.state().piece(u(0, 1)).expect("the unit").flank,
        FlankState::default()
    );
    // 0/0 straightens explicitly.
    let mut b = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0).command();
    refuse(&mut b, u(0, 1), 20.0, 0.0).expect("legal");
    let ev = refuse(&mut b, u(0, 1), 0.0, 0.0).expect("straighten");
    assert_eq!(
        ev,
        vec![Event::FlankRefused {
            piece: u(0, 1),
            left_deg: 0.0,
            right_deg: 0.0
        }]
    );
    assert_eq!(
        b.state().piece(u(0, 1)).expect("the unit").flank,
        FlankState::default()
    );
    assert_eq!(facings(&b, u(0, 1)), vec![0.0; 4]);
}

#[test]
fn move_30_replay_undo_and_the_battle_file_reproduce_the_refusal() {
    let mut b = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0).command();
    let before = b.state().clone();
    // A straight unit writes no `flank` field: saved states of old battles read unchanged.
    let json = serde_json::to_value(before.piece(u(0, 1)).expect("the unit")).expect("json");
    assert!(json.get("flank").is_none());
    refuse(&mut b, u(0, 1), 45.0, 15.0).expect("legal");
    let after = b.state().clone();
    assert_eq!(b.replay_events(), after);
    assert!(b.undo());
    assert_eq!(b.state(), &before);
    assert!(b.redo());
    assert_eq!(b.state(), &after);
    // The action as a battle file writes it.
    let entry = b.entries().last().expect("the refusal");
    let a = serde_json::to_value(&entry.action).expect("json");
    assert_eq!(
        a,
        json!({"action": "refuse_flank", "piece": {"side": 0, "unit": 1},
               "left_deg": 45.0, "right_deg": 15.0})
    );
    let back: Action = serde_json::from_value(json!({"action": "refuse_flank",
        "piece": {"side": 0, "unit": 1}, "left_deg": 45.0}))
    .expect("right_deg defaults to 0");
    assert_eq!(
        back,
        Action::RefuseFlank {
            piece: u(0, 1),
            left_deg: 45.0,
            right_deg: 0.0
        }
    );
    let ev = serde_json::to_value(&entry.events).expect("json");
    assert_eq!(
        ev,
        json!([{"event": "flank_refused", "piece": {"side": 0, "unit": 1},
                "left_deg": 45.0, "right_deg": 15.0}])
    );
    // A piece saved with the refusal reads back equal; one saved before MOVE-30 reads straight.
    let p = after.piece(u(0, 1)).expect("the unit");
    let s = serde_json::to_string(p).expect("json");
    let read: powderhorn::rules::PieceState = serde_json::from_str(&s).expect("reads");
    assert_eq!(&read, p);
    let old: powderhorn::rules::PieceState = serde_json::from_value(json).expect("reads");
    assert_eq!(old.flank, FlankState::default());
}
