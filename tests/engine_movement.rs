//! Movement under the rules (catalogue §2.7 MOVE-01..MOVE-30, §2.8 TERR-01..TERR-14, TERR-13,
//! CMD-25's movement side, MOVE-07 forced moves): each test builds a small scenario, performs
//! actions through `Battle::perform` and checks the exact events or the exact refusing rule.
//! Every MOVE and TERR entry has at least one test carrying its ID in the name.
//!
//! Geometry reminders (geom::footprint): a pose is the centre of the formation's front edge;
//! facing 0 looks towards +y. A 4-stand infantry line at (100, 50) facing 0 covers
//! x 95..105, y 48.5..50.

use powderhorn::geom::Point;
use powderhorn::rules::battle::may_form_square;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::geometry::footprint_of;
use powderhorn::rules::movement::{
    check_move, forced_move, legal_destinations, move_allowance, overruns, ForcedKind,
    ForcedOutcome,
};
use powderhorn::rules::{
    Action, ActionError, Battle, BattleState, Ctx, DiceSource, Event, Formation, Manoeuvre, Phase,
    PieceId, Pose,
};
use serde_json::json;

// --- scenario builder ---------------------------------------------------------------------------

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{hq, lists, polyline as line, pose, pt, rect, u, Sc, FIELD_ART};

/// French (side 0) and Austrians (side 1) unless changed, each with one HQ off the table unless
/// placed; features named "feature N".
fn new_sc() -> Sc {
    Sc::new("nap-french", "nap-austrian")
        .named("movement-test", "Movement test")
        .side_names("French", "Austrians")
        .feature_label("feature")
}

impl Sc {
    /// The battle at deployment (both sides may act).
    fn deploying(&self) -> Battle {
        self.at_deployment(vec![], OrdersMode::Free)
    }

    /// The battle in side 0's first Initiative phase.
    fn battle(&self) -> Battle {
        let mut b = self.deploying();
        start(&mut b);
        b
    }
}

fn start(b: &mut Battle) {
    b.perform(Action::EndPhase).expect("deployment ends");
    assert_eq!(b.state().turn.phase, Phase::Initiative);
}

fn mv_via(
    b: &mut Battle,
    piece: PieceId,
    via: &[(f64, f64)],
    to: Pose,
    m: Manoeuvre,
) -> Result<Vec<Event>, ActionError> {
    b.perform(Action::Move {
        piece,
        via: via.iter().map(|(x, y)| Point::new(*x, *y)).collect(),
        to,
        manoeuvre: m,
    })
    .map(<[Event]>::to_vec)
}

fn mv(b: &mut Battle, piece: PieceId, to: Pose, m: Manoeuvre) -> Result<Vec<Event>, ActionError> {
    mv_via(b, piece, &[], to, m)
}

fn deploy(b: &mut Battle, piece: PieceId, f: Formation) {
    b.perform(Action::Deploy {
        piece,
        formation: f,
    })
    .expect("the deploy is legal");
}

/// Asserts a refusal by `expected` that leaves the battle exactly as it was. Only an illegal
/// action passes: a rule this build does not support yet (`ActionError::Unsupported`) is a
/// different answer and fails the test.
fn refused(b: &mut Battle, piece: PieceId, to: Pose, m: Manoeuvre, expected: &str) {
    let action = Action::Move {
        piece,
        via: vec![],
        to,
        manoeuvre: m,
    };
    refuse::refused(b, action, expected);
}

fn cost(r: Result<Vec<Event>, ActionError>) -> f64 {
    match r {
        Ok(ev) => match ev.as_slice() {
            [Event::Moved { cost_cm, .. }] => *cost_cm,
            other => panic!("expected one Moved event, got {other:?}"),
        },
        Err(e) => panic!("expected a legal move, got {e}"),
    }
}

fn at(b: &Battle, piece: PieceId) -> Pose {
    b.state()
        .piece(piece)
        .and_then(|p| p.pose)
        .expect("the piece is on the table")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

const LINE_INF: &str = "line-infantry-08-12";
const LIGHT_INF: &str = "light-infantry-08-12";
const HEAVY_CAV: &str = "heavy-cavalry-07-12";
const HORSE_ART: &str = "horse-artillery";
const AUS_INF: &str = "line-infantry-07-15";

/// One French 4-stand line at (100, 50) facing +y.
fn one_line() -> Sc {
    new_sc().unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
}

// --- MOVE-01 .. MOVE-08 ---------------------------------------------------------------------------

#[test]
fn move_01_units_move_in_the_initiative_and_command_phases_only() {
    let mut b = one_line()
        .unit(1, 7, AUS_INF, 4, 100.0, 150.0, 180.0)
        .battle();
    // Initiative: the active side moves; a unit may move again on another action.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 53.0, 0.0),
            Manoeuvre::Advance
        )),
        3.0
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 56.0, 0.0),
            Manoeuvre::Advance
        )),
        3.0
    );
    refused(
        &mut b,
        u(1, 7),
        pose(100.0, 145.0, 180.0),
        Manoeuvre::Advance,
        "SEQ-02",
    );
    b.perform(Action::EndPhase).expect("to the Command phase");
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 66.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    b.perform(Action::EndPhase).expect("to the Charge phase");
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 70.0, 0.0),
        Manoeuvre::Advance,
        "SEQ-03",
    );
}

#[test]
fn move_02_a_straight_advance_spends_its_length() {
    let mut b = one_line().battle();
    let ev = mv(&mut b, u(0, 1), pose(100.0, 60.0, 0.0), Manoeuvre::Advance).expect("legal");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 1),
            from: pose(100.0, 50.0, 0.0),
            to: pose(100.0, 60.0, 0.0),
            path: vec![],
            cost_cm: 10.0,
        }]
    );
    assert_eq!(at(&b, u(0, 1)), pose(100.0, 60.0, 0.0));
    assert_eq!(b.replay_events(), *b.state());
}

#[test]
fn move_02_beyond_the_allowance_is_refused() {
    let mut b = one_line().battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 60.5, 0.0),
        Manoeuvre::Advance,
        "MOVE-02",
    );
}

#[test]
fn move_02_legs_add_up_and_the_path_is_kept() {
    let mut b = one_line().battle();
    let ev = mv_via(
        &mut b,
        u(0, 1),
        &[(101.0, 53.0)],
        pose(100.0, 56.0, 0.0),
        Manoeuvre::Advance,
    )
    .expect("two oblique legs");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 1),
            from: pose(100.0, 50.0, 0.0),
            to: pose(100.0, 56.0, 0.0),
            path: vec![Point::new(101.0, 53.0)],
            cost_cm: 6.325,
        }]
    );
}

#[test]
fn move_02_the_table_edge_cannot_be_crossed() {
    let mut b = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 175.0, 0.0).battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 181.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-02",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 180.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
}

fn walled() -> Sc {
    one_line().feature_of(
        json!({"kind": "linear"}),
        line(&[(80.0, 55.0), (120.0, 55.0)], 0.0),
        false,
        false,
    )
}

#[test]
fn terr_02_foot_stop_when_they_reach_a_wall() {
    let mut b = walled().battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-02",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 55.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
}

#[test]
fn move_03_the_crossing_is_free_at_the_start_of_the_next_move() {
    let mut b = walled().battle();
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 55.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
    // Placed with the rear edge (1.5 cm behind the front) on the far side, then a full 10 cm.
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 66.6, 0.0),
        Manoeuvre::Advance,
        "MOVE-02",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 66.5, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn move_03_a_crossing_must_be_completed() {
    let mut b = walled().battle();
    mv(&mut b, u(0, 1), pose(100.0, 55.0, 0.0), Manoeuvre::Advance).expect("to the wall");
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 56.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-03",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 56.5, 0.0),
            Manoeuvre::Advance
        )),
        0.0
    );
}

/// MOVE-03, TERR-02: a march column halted with its head just short of a slanting dike (Aspern's
/// old flood dike, 1 cm wide) turns at the start of its next move, and the turn swings its body
/// onto the dike where it stands. That is its contact with the dike: it crosses, free, and
/// moves on (the MOVE-03 ruling). It used to be told that it "reaches the dike where it stands
/// and must stop there" for every move that turned it towards the village — a stop that could
/// never become the contact a crossing starts from — and the opponent's column stood there for
/// the rest of the battle. A move straight on still reaches the dike a little ahead and stops
/// there (TERR-02).
#[test]
fn move_03_a_column_whose_first_turn_swings_onto_a_dike_crosses_it() {
    let sc = Sc::new("nap-austrian", "nap-french")
        .feature_label("feature")
        .feature_of(
            json!({"kind": "linear"}),
            line(&[(70.0, 82.0), (70.0, 110.0), (108.0, 116.0)], 1.0),
            false,
            false,
        )
        .unit(
            0,
            1,
            AUS_INF,
            6,
            77.466_812_888_670_57,
            109.452_801_871_768_97,
            32.790_668_867_457_34,
        );
    let b = sc.at_deployment(vec![], OrdersMode::Free);
    let mut b = Sc::to_initiative(b, &[(u(0, 1), Formation::MarchColumn)]);
    let from = at(&b, u(0, 1));
    // 9.8 cm of its 10 towards the village, north-east of it.
    let (tx, ty) = (105.6, 94.3);
    let d = ((tx - from.at.x).powi(2) + (ty - from.at.y).powi(2)).sqrt();
    let to = Point::new(
        from.at.x + (tx - from.at.x) / d * 9.8,
        from.at.y + (ty - from.at.y) / d * 9.8,
    );
    let facing = powderhorn::geom::footprint::bearing_deg(from.at, to);
    mv(
        &mut b,
        u(0, 1),
        Pose {
            at: to,
            facing_deg: facing,
        },
        Manoeuvre::Advance,
    )
    .expect("the column crosses the dike it swung onto and moves on");
    let now = at(&b, u(0, 1));
    assert!(now.at.distance(to).0 < 1e-9, "{now:?}");
    // Straight on (south) from where it stood, the dike is reached 1 cm ahead: a stop.
    let mut again = Sc::to_initiative(
        sc.at_deployment(vec![], OrdersMode::Free),
        &[(u(0, 1), Formation::MarchColumn)],
    );
    let south = Point::new(from.at.x - 0.4, from.at.y + 9.0);
    let facing = powderhorn::geom::footprint::bearing_deg(from.at, south);
    refused(
        &mut again,
        u(0, 1),
        Pose {
            at: south,
            facing_deg: facing,
        },
        Manoeuvre::Advance,
        "TERR-02",
    );
}

#[test]
fn terr_02_limbered_guns_may_not_cross_walls() {
    let mut b = new_sc()
        .unit(0, 3, FIELD_ART, 1, 100.0, 50.0, 0.0)
        .feature_of(
            json!({"kind": "linear"}),
            line(&[(80.0, 55.0), (120.0, 55.0)], 0.0),
            false,
            false,
        )
        .battle();
    b.perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers");
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "TERR-02",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(100.0, 55.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 56.0, 0.0),
        Manoeuvre::Advance,
        "TERR-02",
    );
}

fn gap(width: f64) -> Sc {
    let half = width / 2.0;
    new_sc()
        .area("impassable", (80.0, 55.0, 100.0 - half, 60.0))
        .area("impassable", (100.0 + half, 55.0, 120.0, 60.0))
}

#[test]
fn move_04_a_gap_narrower_than_the_frontage_cannot_be_passed() {
    let mut b = gap(5.0).unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0).battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-04",
    );
    // In march column (2.5 cm frontage) it goes through.
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn move_05_guns_emplaced_in_fortified_works_never_move() {
    let sc = new_sc()
        .unit(0, 3, FIELD_ART, 1, 100.0, 51.0, 0.0)
        .unit(0, 4, FIELD_ART, 1, 140.0, 51.0, 0.0)
        .defense(0, "fortified_works", &[(90.0, 51.0), (110.0, 51.0)], None);
    let mut b = sc.battle();
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 47.0, 0.0),
        Manoeuvre::Manhandle,
        "MOVE-05",
    );
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 45.0, 0.0),
        Manoeuvre::Prolonge,
        "MOVE-05",
    );
    // The same gun away from the works is manhandled.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 4),
            pose(140.0, 47.0, 0.0),
            Manoeuvre::Manhandle
        )),
        4.0
    );
}

fn with_friend_ahead() -> Sc {
    // A friendly line 0.5 cm ahead: y 50.5..52.
    one_line().unit(0, 2, LINE_INF, 4, 100.0, 52.0, 0.0)
}

#[test]
fn move_06_passage_of_lines_halves_the_move() {
    let mut b = with_friend_ahead().battle();
    // 4.5 cm through the friends costs 9.
    let ev = mv(&mut b, u(0, 1), pose(100.0, 54.5, 0.0), Manoeuvre::Advance).expect("legal");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 1),
            from: pose(100.0, 50.0, 0.0),
            to: pose(100.0, 54.5, 0.0),
            path: vec![],
            cost_cm: 9.0,
        }]
    );
    // The interpenetrated unit is unaffected.
    assert_eq!(at(&b, u(0, 2)), pose(100.0, 52.0, 0.0));
}

#[test]
fn move_06_passage_of_lines_beyond_half_and_ending_overlapped_are_refused() {
    let mut b = with_friend_ahead().battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 55.5, 0.0),
        Manoeuvre::Advance,
        "MOVE-06",
    );
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 53.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-06",
    );
}

fn forced_scene(behind: Sc) -> Battle {
    behind.battle()
}

#[test]
fn move_07_forced_through_the_enemy_is_knocked_out() {
    let b = forced_scene(one_line().unit(1, 7, AUS_INF, 4, 100.0, 41.5, 180.0));
    let ctx = b.ctx();
    let out = forced_move(&ctx, u(0, 1), ForcedKind::FallBack, 180.0, 10.0, 0.0).expect("ok");
    assert!(
        matches!(
            out,
            ForcedOutcome::KnockedOut {
                rule: "MOVE-07",
                ..
            }
        ),
        "{out:?}"
    );
    let out = forced_move(&ctx, u(0, 1), ForcedKind::Retreat, 180.0, 5.0, 0.0).expect("ok");
    assert!(
        matches!(out, ForcedOutcome::Moved { .. }),
        "5 cm stops short: {out:?}"
    );
    let out = forced_move(&ctx, u(0, 1), ForcedKind::Evade, 180.0, 10.0, 0.0).expect("ok");
    assert!(
        matches!(
            out,
            ForcedOutcome::KnockedOut {
                rule: "MOVE-07",
                ..
            }
        ),
        "{out:?}"
    );
}

#[test]
fn move_07_forced_into_impassable_ground_or_off_the_table_is_knocked_out() {
    let b = forced_scene(one_line().area("impassable", (80.0, 30.0, 120.0, 42.0)));
    let ctx = b.ctx();
    let out = forced_move(&ctx, u(0, 1), ForcedKind::FallBack, 180.0, 10.0, 0.0).expect("ok");
    assert!(
        matches!(
            out,
            ForcedOutcome::KnockedOut {
                rule: "FIRE-26",
                ..
            }
        ),
        "{out:?}"
    );
    let out = forced_move(&ctx, u(0, 1), ForcedKind::Retreat, 180.0, 10.0, 0.0).expect("ok");
    assert!(
        matches!(out, ForcedOutcome::KnockedOut { rule: "CHG-25", .. }),
        "{out:?}"
    );
    let edge = new_sc().unit(0, 1, LINE_INF, 4, 100.0, 5.0, 0.0).battle();
    let ctx = edge.ctx();
    let out = forced_move(&ctx, u(0, 1), ForcedKind::FallBack, 180.0, 10.0, 0.0).expect("ok");
    assert!(
        matches!(
            out,
            ForcedOutcome::KnockedOut {
                rule: "FIRE-26",
                ..
            }
        ),
        "{out:?}"
    );
}

#[test]
fn move_07_forced_into_friends_stops_on_contact() {
    let b = forced_scene(one_line().unit(0, 2, LINE_INF, 4, 100.0, 41.5, 0.0));
    let ctx = b.ctx();
    let out = forced_move(&ctx, u(0, 1), ForcedKind::FallBack, 180.0, 10.0, 0.0).expect("ok");
    match out {
        ForcedOutcome::StoppedByFriend {
            friend,
            distance_cm,
            to,
            ..
        } => {
            assert_eq!(friend, u(0, 2));
            assert_eq!(distance_cm, 7.0);
            assert!((to.at.y - 43.0).abs() < 1e-3);
        }
        other => panic!("expected a stop on the friend, got {other:?}"),
    }
    // Clear ground: the whole distance, turning to the facing asked for.
    let clear = one_line().battle();
    let ctx = clear.ctx();
    let out = forced_move(&ctx, u(0, 1), ForcedKind::FallBack, 180.0, 10.0, 180.0).expect("ok");
    match out {
        ForcedOutcome::Moved {
            to,
            distance_cm,
            overruns,
        } => {
            assert!(close(to.at.x, 100.0) && close(to.at.y, 40.0) && to.facing_deg == 180.0);
            assert_eq!(distance_cm, 10.0);
            assert!(overruns.is_empty());
        }
        other => panic!("expected a clear fall-back, got {other:?}"),
    }
}

#[test]
fn move_08_troops_pass_their_own_command_units_freely() {
    let mut b = one_line().hq_mounted(0, 100.0, 55.0, true).battle();
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn move_08_cmd_25_moving_through_an_enemy_command_unit_overruns_it() {
    let mut b = one_line().hq_mounted(1, 100.0, 56.0, true).battle();
    {
        let ctx = b.ctx();
        let o = overruns(
            &ctx,
            u(0, 1),
            &[],
            pose(100.0, 60.0, 0.0),
            Manoeuvre::Advance,
        )
        .expect("the move is otherwise legal");
        assert_eq!(o, vec![hq(1)]);
    }
    // Stopping short does not overrun.
    let mut short = one_line().hq_mounted(1, 100.0, 56.0, true).battle();
    assert_eq!(
        cost(mv(
            &mut short,
            u(0, 1),
            pose(100.0, 52.0, 0.0),
            Manoeuvre::Advance
        )),
        2.0
    );
    // CMD-25: the overrun command unit has no friendly unit within half its Move, so it is
    // knocked out (engine_command.rs covers the escape).
    let ev = mv(&mut b, u(0, 1), pose(100.0, 60.0, 0.0), Manoeuvre::Advance)
        .expect("the overrun move is carried out");
    assert!(ev.contains(&Event::UnitKnockedOut {
        piece: hq(1),
        cause: powderhorn::rules::event::KnockOutCause::Overrun
    }));
}

#[test]
fn cmd_25_command_units_cannot_overrun_enemy_command_units() {
    let mut b = new_sc()
        .hq_mounted(0, 100.0, 40.0, true)
        .hq_mounted(1, 100.0, 56.0, true)
        .battle();
    refused(
        &mut b,
        hq(0),
        pose(100.0, 65.0, 0.0),
        Manoeuvre::Advance,
        "CMD-25",
    );
}

#[test]
fn move_07_init_05_an_evade_stops_short_of_impassable_ground() {
    let b = one_line()
        .area("impassable", (80.0, 30.0, 120.0, 42.0))
        .battle();
    let ctx = b.ctx();
    let out = forced_move(&ctx, u(0, 1), ForcedKind::Evade, 180.0, 10.0, 0.0).expect("ok");
    match out {
        ForcedOutcome::Moved {
            to, distance_cm, ..
        } => {
            assert_eq!(
                distance_cm, 6.5,
                "the rear edge stops on the cliff's edge at y 42"
            );
            assert!((to.at.y - 43.5).abs() < 1e-3);
        }
        other => panic!("an evade under the normal rules stops: {other:?}"),
    }
}

#[test]
fn fire_23_a_suppressed_unit_cannot_move() {
    let sc = one_line().scenario();
    let lists = lists();
    let mut state = BattleState::setup(&sc, &lists, 0).expect("sets up");
    if let Some(p) = state.pieces.get_mut(&u(0, 1)) {
        p.suppressed_at = Some(1);
    }
    let ctx = Ctx {
        scenario: &sc,
        lists: &lists,
        state: &state,
        sight: None,
    };
    let r = check_move(
        &ctx,
        u(0, 1),
        &[],
        pose(100.0, 55.0, 0.0),
        Manoeuvre::Advance,
    );
    assert!(matches!(r, Err(ActionError::Rule(e)) if e.rule == "FIRE-23"));
    assert!(legal_destinations(&ctx, u(0, 1), Manoeuvre::Advance, 1.0).is_empty());
}

// --- MOVE-09 .. MOVE-19: formations ---------------------------------------------------------------

#[test]
fn move_09_a_move_keeps_the_formation_and_guns_have_none() {
    let mut b = one_line()
        .unit(0, 3, FIELD_ART, 1, 140.0, 50.0, 0.0)
        .battle();
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    let ev = mv(&mut b, u(0, 1), pose(100.0, 60.0, 0.0), Manoeuvre::Advance).expect("legal");
    assert_eq!(ev.len(), 1, "a move is only a Moved event: {ev:?}");
    assert_eq!(
        b.state().piece(u(0, 1)).and_then(|p| p.formation),
        Some(Formation::MarchColumn)
    );
    let r = b.perform(Action::Deploy {
        piece: u(0, 3),
        formation: Formation::Line,
    });
    assert!(matches!(r, Err(ActionError::Rule(e)) if e.rule == "MOVE-09"));
}

#[test]
fn move_10_line_to_attack_column_goes_through_march_column() {
    let mut b = one_line().battle();
    let r = b.perform(Action::Deploy {
        piece: u(0, 1),
        formation: Formation::AttackColumn,
    });
    assert!(matches!(r, Err(ActionError::Rule(e)) if e.rule == "MOVE-10"));
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    deploy(&mut b, u(0, 1), Formation::AttackColumn);
    // The attack column follows its head round a corner.
    let c = cost(mv_via(
        &mut b,
        u(0, 1),
        &[(100.0, 55.0)],
        pose(105.0, 55.0, 90.0),
        Manoeuvre::Advance,
    ));
    assert_eq!(c, 10.0);
}

#[test]
fn move_11_a_line_is_as_wide_as_all_its_stands() {
    // A 10.2 cm gap: four stands (10 cm) pass, five (12.5 cm) do not.
    let mut four = gap(10.2).unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0).battle();
    assert_eq!(
        cost(mv(
            &mut four,
            u(0, 1),
            pose(100.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    let mut five = gap(10.2).unit(0, 1, LINE_INF, 5, 100.0, 50.0, 0.0).battle();
    refused(
        &mut five,
        u(0, 1),
        pose(100.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-04",
    );
}

#[test]
fn move_12_col_12_light_infantry_alone_in_extended_line_move_12() {
    let mut b = new_sc()
        .unit(0, 1, LIGHT_INF, 4, 60.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 4, 140.0, 50.0, 0.0)
        .battle();
    // In line the printed 10 cm.
    {
        let ctx = b.ctx();
        let a = move_allowance(&ctx, u(0, 1), Manoeuvre::Advance).expect("moves");
        assert_eq!((a.base_cm, a.source), (10.0, "COL-03"));
    }
    deploy(&mut b, u(0, 1), Formation::ExtendedLine);
    deploy(&mut b, u(0, 2), Formation::ExtendedLine);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(60.0, 62.0, 0.0),
            Manoeuvre::Advance
        )),
        12.0
    );
    refused(
        &mut b,
        u(0, 2),
        pose(140.0, 62.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-02",
    );
    // Extended line wheels within the 45° limit as a line does (MOVE-26 ruling).
    refused(
        &mut b,
        u(0, 2),
        pose(140.0, 50.0, 50.0),
        Manoeuvre::Wheel,
        "MOVE-26",
    );
}

fn road() -> Sc {
    new_sc().feature_of(
        json!({"kind": "road"}),
        line(&[(100.0, 0.0), (100.0, 180.0)], 4.0),
        false,
        false,
    )
}

#[test]
fn move_13_march_column_turns_following_its_head() {
    let mut b = one_line().battle();
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    let ev = mv_via(
        &mut b,
        u(0, 1),
        &[(100.0, 55.0)],
        pose(105.0, 55.0, 90.0),
        Manoeuvre::Advance,
    )
    .expect("a right turn");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 1),
            from: pose(100.0, 50.0, 0.0),
            to: pose(105.0, 55.0, 90.0),
            path: vec![Point::new(100.0, 55.0)],
            cost_cm: 10.0,
        }]
    );
    // It ends facing the way its head last went, and does not reverse on the spot.
    refused(
        &mut b,
        u(0, 1),
        pose(110.0, 55.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-26",
    );
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 55.0, 270.0),
        Manoeuvre::Advance,
        "MOVE-26",
    );
}

#[test]
fn move_14_attack_column_earns_no_road_bonus() {
    let mut b = road().unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0).battle();
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    deploy(&mut b, u(0, 1), Formation::AttackColumn);
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 62.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-02",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn move_15_a_square_cannot_move() {
    let mut b = one_line().battle();
    deploy(&mut b, u(0, 1), Formation::Square);
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 52.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-15",
    );
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 48.0, 0.0),
        Manoeuvre::Retire,
        "MOVE-15",
    );
    let ctx = b.ctx();
    assert!(legal_destinations(&ctx, u(0, 1), Manoeuvre::Advance, 1.0).is_empty());
}

#[test]
fn move_16_cavalry_cannot_form_square() {
    let mut b = new_sc().unit(0, 1, HEAVY_CAV, 3, 100.0, 50.0, 0.0).battle();
    let r = b.perform(Action::Deploy {
        piece: u(0, 1),
        formation: Formation::Square,
    });
    assert!(matches!(r, Err(ActionError::Rule(e)) if e.rule == "MOVE-16"));
}

#[test]
fn move_17_forced_square_only_for_units_allowed_to_form_one() {
    // Before 1760 nobody forms square, so the forced-square check finds none to form.
    let early = one_line().year(1750).battle();
    let ctx = early.ctx();
    let piece = ctx.piece(u(0, 1)).expect("on the table");
    assert_eq!(
        may_form_square(&ctx, piece).map_err(|e| e.rule),
        Err("MOVE-16")
    );
    // In 1809 it may, and once in square it cannot move.
    let mut b = one_line().year(1809).battle();
    {
        let ctx = b.ctx();
        let piece = ctx.piece(u(0, 1)).expect("on the table");
        assert!(may_form_square(&ctx, piece).is_ok());
    }
    deploy(&mut b, u(0, 1), Formation::Square);
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 55.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-15",
    );
}

#[test]
fn move_18_cavalry_cannot_just_ride_into_a_square_that_is_a_charge() {
    let sc = new_sc()
        .unit(0, 1, HEAVY_CAV, 3, 100.0, 40.0, 0.0)
        .unit(1, 7, AUS_INF, 4, 100.0, 55.0, 180.0);
    let mut b = sc.deploying();
    deploy(&mut b, u(1, 7), Formation::Square);
    start(&mut b);
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "CHG-01",
    );
    // Ending in base contact is a charge too.
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 55.0, 0.0),
        Manoeuvre::Advance,
        "CHG-01",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 54.0, 0.0),
            Manoeuvre::Advance
        )),
        14.0
    );
}

#[test]
fn move_19_a_disordered_unit_moves_at_its_normal_move() {
    let sc = one_line().scenario();
    let lists = lists();
    let mut state = BattleState::setup(&sc, &lists, 0).expect("sets up");
    if let Some(p) = state.pieces.get_mut(&u(0, 1)) {
        p.formation = Some(Formation::Disordered);
    }
    let ctx = Ctx {
        scenario: &sc,
        lists: &lists,
        state: &state,
        sight: None,
    };
    let a = move_allowance(&ctx, u(0, 1), Manoeuvre::Advance).expect("moves");
    assert_eq!(a.base_cm, 10.0);
    let plan = check_move(
        &ctx,
        u(0, 1),
        &[],
        pose(105.0, 55.0, 45.0),
        Manoeuvre::Advance,
    )
    .expect("free direction, facing follows");
    assert_eq!(plan.cost_cm, 7.071);
    let far = check_move(
        &ctx,
        u(0, 1),
        &[],
        pose(100.0, 60.5, 0.0),
        Manoeuvre::Advance,
    );
    assert!(matches!(far, Err(ActionError::Rule(e)) if e.rule == "MOVE-02"));
}

// --- MOVE-20 .. MOVE-24: artillery ---------------------------------------------------------------

#[test]
fn move_20_limbered_guns_use_the_limbered_artillery_row() {
    let mut b = new_sc()
        .unit(0, 3, FIELD_ART, 1, 60.0, 50.0, 0.0)
        .unit(0, 4, HORSE_ART, 1, 140.0, 50.0, 0.0)
        .battle();
    b.perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers");
    b.perform(Action::Limber { piece: u(0, 4) })
        .expect("limbers");
    // Foot artillery: the row's 10; horse artillery: its 30.
    refused(
        &mut b,
        u(0, 3),
        pose(60.0, 60.5, 0.0),
        Manoeuvre::Advance,
        "MOVE-02",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(60.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 4),
            pose(140.0, 80.0, 0.0),
            Manoeuvre::Advance
        )),
        30.0
    );
    // A limbered gun drives any way and may end facing any way.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(55.0, 60.0, 180.0),
            Manoeuvre::Advance
        )),
        5.0
    );
}

#[test]
fn move_20_arm_11_acw_horse_artillery_limbers_at_30() {
    let sc = new_sc()
        .list(0, "acw-union")
        .list(1, "acw-confederate")
        .unit(0, 3, "rifled-cannon", 1, 60.0, 50.0, 0.0)
        .unit_json(
            0,
            json!({"id": 4, "name": "Horse battery", "troop_type": "rifled-cannon", "stands": 1,
                   "hq": 1, "horse_artillery": true,
                   "position": {"at": pt(140.0, 50.0), "facing_deg": 0.0}}),
        );
    let mut b = sc.battle();
    b.perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers");
    b.perform(Action::Limber { piece: u(0, 4) })
        .expect("limbers");
    let ctx = b.ctx();
    let foot = move_allowance(&ctx, u(0, 3), Manoeuvre::Advance).expect("moves");
    let horse = move_allowance(&ctx, u(0, 4), Manoeuvre::Advance).expect("moves");
    assert_eq!((foot.base_cm, horse.base_cm), (15.0, 30.0));
}

#[test]
fn move_21_manhandling_uses_the_first_number() {
    let mut b = new_sc()
        .unit(0, 3, FIELD_ART, 1, 100.0, 50.0, 0.0)
        .unit(0, 5, "mortar", 1, 140.0, 50.0, 0.0)
        .battle();
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 55.5, 0.0),
        Manoeuvre::Manhandle,
        "MOVE-02",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(103.0, 54.0, 0.0),
            Manoeuvre::Manhandle
        )),
        5.0
    );
    // Unlimbered guns do not simply advance, and mortars (Move 0) are not manhandled.
    refused(
        &mut b,
        u(0, 3),
        pose(103.0, 56.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-21",
    );
    refused(
        &mut b,
        u(0, 5),
        pose(140.0, 52.0, 0.0),
        Manoeuvre::Manhandle,
        "MOVE-21",
    );
    // A limbered gun is towed, not manhandled.
    b.perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers");
    refused(
        &mut b,
        u(0, 3),
        pose(103.0, 56.0, 0.0),
        Manoeuvre::Manhandle,
        "MOVE-21",
    );
}

#[test]
fn move_22_turning_an_unlimbered_gun_is_a_pivot_not_a_move() {
    let mut b = new_sc().unit(0, 3, FIELD_ART, 1, 100.0, 50.0, 0.0).battle();
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 52.0, 30.0),
        Manoeuvre::Manhandle,
        "MOVE-22",
    );
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 52.0, 30.0),
        Manoeuvre::Wheel,
        "MOVE-22",
    );
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 47.5, 180.0),
        Manoeuvre::AboutFace,
        "MOVE-22",
    );
}

#[test]
fn move_23_limbering_and_unlimbering_are_separate_deploy_actions() {
    let mut b = new_sc().unit(0, 3, FIELD_ART, 1, 100.0, 50.0, 0.0).battle();
    let ev = b
        .perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers")
        .to_vec();
    assert_eq!(ev, vec![Event::Limbered { piece: u(0, 3) }]);
    // Gun and limber move as one unit (the limber leads, MOVE-23).
    {
        let ctx = b.ctx();
        let p = ctx.piece(u(0, 3)).expect("on the table");
        let fp = footprint_of(&ctx, p).expect("a footprint");
        assert_eq!(fp.stands.len(), 2);
    }
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(100.0, 58.0, 0.0),
            Manoeuvre::Advance
        )),
        8.0
    );
    let ev = b
        .perform(Action::Unlimber {
            piece: u(0, 3),
            facing_deg: 0.0,
        })
        .expect("unlimbers")
        .to_vec();
    assert_eq!(
        ev,
        vec![Event::Unlimbered {
            piece: u(0, 3),
            facing_deg: 0.0
        }]
    );
    // Once unlimbered it moves only by manhandling or prolonge.
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-21",
    );
}

#[test]
fn move_24_prolonge_goes_straight_back_the_second_number_and_stays_unlimbered() {
    let mut b = new_sc().unit(0, 3, FIELD_ART, 1, 100.0, 50.0, 0.0).battle();
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 55.0, 0.0),
        Manoeuvre::Prolonge,
        "MOVE-24",
    );
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 39.0, 0.0),
        Manoeuvre::Prolonge,
        "MOVE-02",
    );
    let ev = mv(&mut b, u(0, 3), pose(100.0, 40.0, 0.0), Manoeuvre::Prolonge).expect("legal");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 3),
            from: pose(100.0, 50.0, 0.0),
            to: pose(100.0, 40.0, 0.0),
            path: vec![],
            cost_cm: 10.0,
        }]
    );
    let p = b.state().piece(u(0, 3)).expect("on the table");
    assert!(!p.limbered);
    b.perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers");
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 35.0, 0.0),
        Manoeuvre::Prolonge,
        "MOVE-24",
    );
}

// --- MOVE-25 .. MOVE-30: roads and manoeuvres -----------------------------------------------------

#[test]
fn move_25_road_bonus_for_march_columns_wholly_on_the_road() {
    let mut b = road()
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 4, 100.0, 100.0, 0.0)
        .battle();
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 65.0, 0.0),
            Manoeuvre::Advance
        )),
        15.0
    );
    // Leaving the road loses the bonus.
    refused(
        &mut b,
        u(0, 1),
        pose(104.0, 78.0, 17.1027),
        Manoeuvre::Advance,
        "MOVE-25",
    );
    // A line on the road gets nothing.
    refused(
        &mut b,
        u(0, 2),
        pose(100.0, 112.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-02",
    );
}

#[test]
fn move_25_horse_gets_ten_limbered_horse_artillery_too() {
    let mut b = road()
        .unit(0, 1, HEAVY_CAV, 3, 100.0, 20.0, 0.0)
        .unit(0, 4, HORSE_ART, 1, 100.0, 100.0, 0.0)
        .battle();
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    b.perform(Action::Limber { piece: u(0, 4) })
        .expect("limbers");
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        40.0
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 4),
            pose(100.0, 140.0, 0.0),
            Manoeuvre::Advance
        )),
        40.0
    );
}

#[test]
fn move_26_a_line_wheels_up_to_45_degrees_measured_on_the_outside_stand() {
    let mut b = one_line().battle();
    // Pivot on the right front corner (105, 50): the reference point swings 45°.
    let h = 5.0 * std::f64::consts::FRAC_1_SQRT_2;
    let to = pose(105.0 - h, 50.0 + h, 45.0);
    let ev = mv(&mut b, u(0, 1), to, Manoeuvre::Wheel).expect("a 45° wheel");
    match ev.as_slice() {
        [Event::Moved {
            cost_cm,
            path,
            to: t,
            ..
        }] => {
            assert_eq!(*cost_cm, 7.854, "10 cm frontage × π/4");
            assert_eq!(path.len(), 8, "the arc's intermediate points");
            assert_eq!(*t, to);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn move_26_wheel_then_advance_and_the_limits() {
    let h = 5.0 * std::f64::consts::FRAC_1_SQRT_2;
    let d = std::f64::consts::FRAC_1_SQRT_2;
    let mut b = one_line()
        .unit(0, 2, LINE_INF, 4, 160.0, 50.0, 0.0)
        .battle();
    let to = pose(105.0 - h + 2.0 * d, 50.0 + h + 2.0 * d, 45.0);
    assert_eq!(cost(mv(&mut b, u(0, 1), to, Manoeuvre::Wheel)), 9.854);
    let too_far = pose(165.0 - h + 3.0 * d, 50.0 + h + 3.0 * d, 45.0);
    refused(&mut b, u(0, 2), too_far, Manoeuvre::Wheel, "MOVE-26");
    refused(
        &mut b,
        u(0, 2),
        pose(160.0, 50.0, 50.0),
        Manoeuvre::Wheel,
        "MOVE-26",
    );
    // A line does not turn while advancing; that would be a wheel.
    refused(
        &mut b,
        u(0, 2),
        pose(160.0, 55.0, 20.0),
        Manoeuvre::Advance,
        "MOVE-26",
    );
    // Columns do not wheel; they follow their head.
    deploy(&mut b, u(0, 2), Formation::MarchColumn);
    refused(
        &mut b,
        u(0, 2),
        pose(160.0, 55.0, 20.0),
        Manoeuvre::Wheel,
        "MOVE-26",
    );
}

#[test]
fn move_27_about_face_costs_half_the_allowance() {
    let mut b = one_line()
        .unit(0, 2, LINE_INF, 4, 160.0, 50.0, 0.0)
        .unit(0, 3, LINE_INF, 4, 40.0, 50.0, 0.0)
        .battle();
    // Turning in place puts the front on the old rear edge (y 48.5), facing 180.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 48.5, 180.0),
            Manoeuvre::AboutFace
        )),
        5.0
    );
    // Turn, then 5 cm: the whole 10.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 2),
            pose(160.0, 43.5, 180.0),
            Manoeuvre::AboutFace
        )),
        10.0
    );
    refused(
        &mut b,
        u(0, 3),
        pose(40.0, 43.4, 180.0),
        Manoeuvre::AboutFace,
        "MOVE-27",
    );
    refused(
        &mut b,
        u(0, 3),
        pose(40.0, 43.4, 0.0),
        Manoeuvre::AboutFace,
        "MOVE-27",
    );
}

#[test]
fn move_28_retire_covers_three_quarters_straight_back_and_uses_the_move() {
    let mut b = one_line()
        .unit(0, 2, LINE_INF, 4, 160.0, 50.0, 0.0)
        .unit(0, 3, HEAVY_CAV, 3, 40.0, 50.0, 0.0)
        .battle();
    let ev = mv(&mut b, u(0, 1), pose(100.0, 42.5, 0.0), Manoeuvre::Retire).expect("legal");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 1),
            from: pose(100.0, 50.0, 0.0),
            to: pose(100.0, 42.5, 0.0),
            path: vec![],
            cost_cm: 10.0,
        }]
    );
    refused(
        &mut b,
        u(0, 2),
        pose(160.0, 42.4, 0.0),
        Manoeuvre::Retire,
        "MOVE-28",
    );
    refused(
        &mut b,
        u(0, 2),
        pose(162.0, 45.0, 0.0),
        Manoeuvre::Retire,
        "MOVE-28",
    );
    refused(
        &mut b,
        u(0, 3),
        pose(40.0, 45.0, 0.0),
        Manoeuvre::Retire,
        "MOVE-28",
    );
    // Backwards is not an advance.
    refused(
        &mut b,
        u(0, 2),
        pose(160.0, 45.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-28",
    );
}

#[test]
fn move_29_oblique_up_to_45_degrees_keeping_facing() {
    let mut b = one_line()
        .unit(0, 2, LINE_INF, 4, 160.0, 50.0, 0.0)
        .battle();
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(107.0, 57.0, 0.0),
            Manoeuvre::Advance
        )),
        9.899
    );
    let r = 7.0;
    let a = 50f64.to_radians();
    refused(
        &mut b,
        u(0, 2),
        pose(160.0 + r * a.sin(), 50.0 + r * a.cos(), 0.0),
        Manoeuvre::Advance,
        "MOVE-29",
    );
}

#[test]
fn move_30_refusing_a_flank_is_a_deploy_not_a_move() {
    // A line cannot swing part of itself back by moving: a turn during an advance is refused
    // (it would be a wheel), and no Move manoeuvre refuses a flank.
    let mut b = one_line().battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 50.0, -30.0),
        Manoeuvre::Advance,
        "MOVE-26",
    );
}

// --- TERR-01 .. TERR-14 ---------------------------------------------------------------------------

#[test]
fn terr_01_open_ground_and_hills_cost_nothing_extra() {
    let mut b = one_line()
        .feature_of(
            json!({"kind": "hill", "level": 1}),
            rect(80.0, 52.0, 120.0, 58.0),
            false,
            false,
        )
        .feature_of(
            json!({"kind": "open"}),
            rect(80.0, 58.0, 120.0, 70.0),
            false,
            false,
        )
        .battle();
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn terr_03_built_up_areas_are_high_area_terrain() {
    let mut b = new_sc()
        .area("built_up", (80.0, 45.0, 120.0, 80.0))
        .unit(0, 1, LINE_INF, 4, 100.0, 60.0, 0.0)
        .battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 63.0, 0.0),
        Manoeuvre::Advance,
        "TERR-04",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 62.5, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn terr_04_low_area_half_speed() {
    let mut b = new_sc()
        .area("low_area", (80.0, 45.0, 120.0, 80.0))
        .unit(0, 1, LINE_INF, 4, 100.0, 60.0, 0.0)
        .battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 65.5, 0.0),
        Manoeuvre::Advance,
        "TERR-04",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 65.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn terr_04_high_area_quarter_speed() {
    let mut b = new_sc()
        .area("high_area", (80.0, 45.0, 120.0, 80.0))
        .unit(0, 1, HEAVY_CAV, 3, 100.0, 60.0, 0.0)
        .battle();
    // Cavalry 30 cm in woods: 7.5 cm.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 67.5, 0.0),
            Manoeuvre::Advance
        )),
        30.0
    );
}

/// TERR-04 with the legal destinations: inside high area terrain a line's 10 cm carry it
/// 2.5 cm (each cm costs 4), less than a 3 cm sampling: the last step the allowance reaches is
/// offered all the same, straight ahead and on every oblique, and the move check accepts each;
/// the options offer the move (they offered none when the envelope was empty).
#[test]
fn terr_04_destinations_offer_the_last_step_the_allowance_reaches_in_a_wood() {
    let b = new_sc()
        .area("high_area", (60.0, 20.0, 140.0, 95.0))
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .battle();
    let ctx = b.ctx();
    let dests = legal_destinations(&ctx, u(0, 1), Manoeuvre::Advance, 3.0);
    assert!(
        dests
            .iter()
            .any(|p| close(p.at.x, 100.0) && close(p.at.y, 52.5)),
        "2.5 cm straight ahead: {dests:?}"
    );
    let far = dests
        .iter()
        .map(|p| (p.at.x - 100.0).hypot(p.at.y - 50.0))
        .fold(0.0, f64::max);
    assert!(close(far, 2.5), "none beyond 2.5 cm: {far}");
    for d in &dests {
        let plan = check_move(&ctx, u(0, 1), &[], *d, Manoeuvre::Advance);
        assert!(plan.is_ok(), "{d:?}: {plan:?}");
    }
    // One step further costs more than the allowance.
    let beyond = check_move(
        &ctx,
        u(0, 1),
        &[],
        pose(100.0, 53.0, 0.0),
        Manoeuvre::Advance,
    );
    assert!(
        matches!(&beyond, Err(ActionError::Rule(e)) if e.rule == "TERR-04"),
        "{beyond:?}"
    );
    // The window offers the move the engine accepts, its envelope sampled as coarsely.
    let offer = b
        .options_with(u(0, 1), Some(3.0))
        .expect("the unit's options");
    assert!(
        offer
            .kinds
            .contains(&powderhorn::rules::command::UnitActionKind::Move),
        "{:?}",
        offer.kinds
    );
    assert!(offer.envelope.is_some_and(|e| e
        .iter()
        .any(|p| close(p.at.x, 100.0) && close(p.at.y, 52.5))));
}

fn wooded() -> Sc {
    one_line().area("high_area", (80.0, 55.0, 120.0, 70.0))
}

#[test]
fn terr_05_entering_area_terrain_places_the_unit_just_inside_and_ends_the_move() {
    let mut b = wooded().battle();
    // Reaching the edge (y 55) ends the move with the unit wholly inside: front at 56.5.
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-05",
    );
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 56.0, 0.0),
        Manoeuvre::Advance,
        "TERR-05",
    );
    let ev = mv(&mut b, u(0, 1), pose(100.0, 56.5, 0.0), Manoeuvre::Advance).expect("legal");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: u(0, 1),
            from: pose(100.0, 50.0, 0.0),
            to: pose(100.0, 56.5, 0.0),
            path: vec![],
            cost_cm: 5.0,
        }]
    );
    // Stopping short of the edge is always allowed.
    let mut c = wooded().battle();
    assert_eq!(
        cost(mv(
            &mut c,
            u(0, 1),
            pose(100.0, 55.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
}

#[test]
fn terr_05_units_stop_before_leaving_and_step_out_on_a_later_move() {
    let mut b = new_sc()
        .area("high_area", (80.0, 55.0, 120.0, 70.0))
        .unit(0, 1, LINE_INF, 4, 100.0, 68.0, 0.0)
        .battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 70.5, 0.0),
        Manoeuvre::Advance,
        "TERR-05",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 70.0, 0.0),
            Manoeuvre::Advance
        )),
        8.0
    );
    // Next move: out, and on at the open-ground rate.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 80.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn terr_06_mountains_are_impassable_except_to_foot_unless_a_road_runs_through() {
    let sc = road()
        .area("mountain", (60.0, 55.0, 140.0, 75.0))
        .unit(0, 1, LINE_INF, 4, 70.0, 50.0, 0.0)
        .unit(0, 2, HEAVY_CAV, 3, 125.0, 50.0, 0.0)
        .unit(0, 3, HEAVY_CAV, 3, 100.0, 40.0, 0.0);
    let mut b = sc.battle();
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(70.0, 60.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    refused(
        &mut b,
        u(0, 2),
        pose(125.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-06",
    );
    // Cavalry in march column on the road through the pass.
    deploy(&mut b, u(0, 3), Formation::MarchColumn);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(100.0, 80.0, 0.0),
            Manoeuvre::Advance
        )),
        40.0
    );
}

#[test]
fn terr_07_marsh_is_for_foot_only_deep_water_for_nobody_unless_bridged() {
    let sc = new_sc()
        .area("partially_wet", (20.0, 55.0, 60.0, 70.0))
        .unit(0, 1, LINE_INF, 4, 40.0, 50.0, 0.0)
        .unit(0, 2, HEAVY_CAV, 3, 40.0, 30.0, 0.0)
        .feature_of(
            json!({"kind": "deep_wet"}),
            line(&[(80.0, 58.0), (180.0, 58.0)], 6.0),
            false,
            false,
        )
        .feature_of(
            json!({"kind": "road"}),
            line(&[(100.0, 0.0), (100.0, 180.0)], 4.0),
            false,
            false,
        )
        .unit(0, 3, LINE_INF, 4, 150.0, 50.0, 0.0)
        .unit(0, 4, LINE_INF, 4, 100.0, 50.0, 0.0);
    let mut b = sc.battle();
    // Foot enter the marsh as high area terrain (placed inside, TERR-05)…
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(40.0, 56.5, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
    // … and move at a quarter inside.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(40.0, 59.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    refused(
        &mut b,
        u(0, 2),
        pose(40.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-07",
    );
    // The river stops everyone but where the road bridges it, in column.
    refused(
        &mut b,
        u(0, 3),
        pose(150.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-07",
    );
    deploy(&mut b, u(0, 4), Formation::MarchColumn);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 4),
            pose(100.0, 65.0, 0.0),
            Manoeuvre::Advance
        )),
        15.0
    );
}

#[test]
fn terr_07_fords_are_linear_even_for_limbers() {
    let mut b = new_sc()
        .feature_of(
            json!({"kind": "shallow_wet"}),
            line(&[(60.0, 55.0), (140.0, 55.0)], 2.0),
            false,
            false,
        )
        .unit(0, 3, FIELD_ART, 1, 100.0, 50.0, 0.0)
        .battle();
    b.perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers");
    // The stream's bank is at y 54.
    refused(
        &mut b,
        u(0, 3),
        pose(100.0, 57.0, 0.0),
        Manoeuvre::Advance,
        "TERR-07",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(100.0, 54.0, 0.0),
            Manoeuvre::Advance
        )),
        4.0
    );
    // Crossing: the 6 cm limber-and-gun ends with its rear on the far bank (front at 62), free.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(100.0, 72.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn terr_08_dense_terrain_depends_on_the_troops() {
    let sc = new_sc()
        .feature_of(
            json!({"kind": "open"}),
            rect(20.0, 40.0, 60.0, 90.0),
            true,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 40.0, 60.0, 0.0)
        .area("low_area", (120.0, 40.0, 180.0, 90.0))
        .unit(0, 2, LINE_INF, 4, 135.0, 60.0, 0.0)
        .unit(0, 3, FIELD_ART, 1, 165.0, 60.0, 0.0);
    let mut b = sc.battle();
    // Mud: a quarter for foot.
    refused(
        &mut b,
        u(0, 1),
        pose(40.0, 63.0, 0.0),
        Manoeuvre::Advance,
        "TERR-08",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(40.0, 62.5, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    // Crops: half for foot, dense (a quarter) for guns.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 2),
            pose(135.0, 65.0, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    b.perform(Action::Limber { piece: u(0, 3) })
        .expect("limbers");
    refused(
        &mut b,
        u(0, 3),
        pose(165.0, 63.0, 0.0),
        Manoeuvre::Advance,
        "TERR-08",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 3),
            pose(165.0, 62.5, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn terr_09_a_road_through_dense_terrain_keeps_the_normal_rate_and_bonus() {
    let mut b = road()
        .feature_of(
            json!({"kind": "open"}),
            rect(60.0, 40.0, 140.0, 120.0),
            true,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .battle();
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 65.0, 0.0),
            Manoeuvre::Advance
        )),
        15.0
    );
}

#[test]
fn terr_10_reductions_do_not_stack() {
    // Foot in a marsh: high area ¼ and dense ¼ make ¼, not 1/16.
    let mut b = new_sc()
        .area("partially_wet", (80.0, 45.0, 120.0, 80.0))
        .unit(0, 1, LINE_INF, 4, 100.0, 60.0, 0.0)
        .battle();
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 62.5, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
}

#[test]
fn terr_11_frozen_water_is_high_area_terrain() {
    let frozen = new_sc()
        .feature_of(
            json!({"kind": "deep_wet"}),
            rect(60.0, 55.0, 140.0, 90.0),
            false,
            true,
        )
        .unit(0, 1, HEAVY_CAV, 3, 100.0, 50.0, 0.0);
    let mut b = frozen.battle();
    // Cavalry (depth 2): placed wholly on the ice, front at 57.
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 57.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 64.5, 0.0),
            Manoeuvre::Advance
        )),
        30.0
    );
    let thawed = new_sc()
        .feature_of(
            json!({"kind": "deep_wet"}),
            rect(60.0, 55.0, 140.0, 90.0),
            false,
            false,
        )
        .unit(0, 1, HEAVY_CAV, 3, 100.0, 50.0, 0.0);
    let mut b = thawed.battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 57.0, 0.0),
        Manoeuvre::Advance,
        "TERR-07",
    );
}

#[test]
fn terr_12_impassable_terrain_stops_everyone() {
    let mut b = one_line()
        .area("impassable", (60.0, 55.0, 140.0, 60.0))
        .hq_mounted(0, 150.0, 40.0, true)
        .battle();
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "TERR-12",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 55.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
    refused(
        &mut b,
        hq(0),
        pose(130.0, 60.0, -60.0),
        Manoeuvre::Advance,
        "TERR-12",
    );
}

#[test]
fn terr_13_stakes_are_linear_to_foot_impassable_to_horse() {
    let sc = new_sc()
        .unit(0, 1, LINE_INF, 4, 60.0, 50.0, 0.0)
        .unit(0, 2, HEAVY_CAV, 3, 140.0, 50.0, 0.0)
        .defense(1, "stakes", &[(40.0, 55.0), (160.0, 55.0)], None);
    let mut b = sc.battle();
    refused(
        &mut b,
        u(0, 1),
        pose(60.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-13",
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(60.0, 55.0, 0.0),
            Manoeuvre::Advance
        )),
        5.0
    );
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(60.0, 66.5, 0.0),
            Manoeuvre::Advance
        )),
        10.0
    );
    refused(
        &mut b,
        u(0, 2),
        pose(140.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-13",
    );
}

#[test]
fn terr_13_wire_stops_animals_and_guns_but_not_men_on_foot() {
    let sc = new_sc()
        .hq_mounted(0, 60.0, 50.0, true)
        .unit(0, 1, LINE_INF, 4, 140.0, 50.0, 0.0)
        .defense(1, "wire", &[(40.0, 55.0), (160.0, 55.0)], None);
    let mut b = sc.battle();
    refused(
        &mut b,
        hq(0),
        pose(60.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-13",
    );
    refused(
        &mut b,
        u(0, 1),
        pose(140.0, 60.0, 0.0),
        Manoeuvre::Advance,
        "TERR-13",
    );
    let on_foot = new_sc().hq_mounted(0, 60.0, 50.0, false).defense(
        1,
        "wire",
        &[(40.0, 55.0), (160.0, 55.0)],
        None,
    );
    let mut b = on_foot.battle();
    assert_eq!(
        cost(mv(&mut b, hq(0), pose(60.0, 60.0, 0.0), Manoeuvre::Advance)),
        10.0
    );
}

#[test]
fn terr_14_command_units_ignore_stops_and_reductions_but_not_impassable() {
    let sc = new_sc()
        .hq_mounted(0, 100.0, 30.0, true)
        .feature_of(
            json!({"kind": "linear"}),
            line(&[(60.0, 40.0), (140.0, 40.0)], 0.0),
            false,
            false,
        )
        .area("high_area", (60.0, 45.0, 140.0, 55.0))
        .area("partially_wet", (60.0, 55.0, 140.0, 58.0));
    let mut b = sc.battle();
    let ev = mv(&mut b, hq(0), pose(100.0, 60.0, 0.0), Manoeuvre::Advance).expect("legal");
    assert_eq!(
        ev,
        vec![Event::Moved {
            piece: hq(0),
            from: pose(100.0, 30.0, 0.0),
            to: pose(100.0, 60.0, 0.0),
            path: vec![],
            cost_cm: 30.0,
        }]
    );
    let ctx = b.ctx();
    let a = move_allowance(&ctx, hq(0), Manoeuvre::Advance).expect("moves");
    assert_eq!((a.base_cm, a.source), (30.0, "TERR-14"));
}

#[test]
fn terr_02_a_road_through_a_wall_leaves_a_gateway_as_wide_as_the_road() {
    let sc = road()
        .feature_of(
            json!({"kind": "linear"}),
            line(&[(80.0, 55.0), (120.0, 55.0)], 0.0),
            false,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0);
    let mut b = sc.battle();
    // The line (10 cm) meets the wall either side of the 4 cm road and stops.
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "TERR-02",
    );
    // In march column (2.5 cm) it marches through the gateway without stopping.
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 65.0, 0.0),
            Manoeuvre::Advance
        )),
        15.0
    );
}

#[test]
fn terr_07_move_04_a_bridge_is_a_gap_as_wide_as_the_road() {
    let sc = road()
        .area("deep_wet", (40.0, 55.0, 160.0, 61.0))
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 4, 140.0, 50.0, 0.0);
    let mut b = sc.battle();
    refused(
        &mut b,
        u(0, 2),
        pose(140.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "TERR-07",
    );
    // Wider than the bridge: the river on both flanks, the road in the middle.
    refused(
        &mut b,
        u(0, 1),
        pose(100.0, 58.0, 0.0),
        Manoeuvre::Advance,
        "MOVE-04",
    );
    deploy(&mut b, u(0, 1), Formation::MarchColumn);
    assert_eq!(
        cost(mv(
            &mut b,
            u(0, 1),
            pose(100.0, 65.0, 0.0),
            Manoeuvre::Advance
        )),
        15.0
    );
}

#[test]
fn legal_destinations_in_the_ebelsberg_sample_are_accepted() {
    use powderhorn::model::samples;
    let sc = samples::scenarios()
        .expect("samples parse")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("Ebelsberg is shipped");
    let mut b = Battle::new(sc, lists(), DiceSource::Script(vec![]), 0).expect("sets up");
    start(&mut b);
    let ctx = b.ctx();
    let active = ctx.state.turn.active;
    let mut checked = 0;
    for p in ctx.state.pieces.values().filter(|p| p.id.side() == active) {
        for m in [
            Manoeuvre::Advance,
            Manoeuvre::Wheel,
            Manoeuvre::AboutFace,
            Manoeuvre::Retire,
            Manoeuvre::Manhandle,
            Manoeuvre::Prolonge,
        ] {
            for d in legal_destinations(&ctx, p.id, m, 2.0) {
                let r = check_move(&ctx, p.id, &[], d, m);
                assert!(r.is_ok(), "{} {m:?} to {d:?}: {r:?}", p.name);
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} destinations checked");
}

// --- legal destinations and the property ----------------------------------------------------------

fn busy() -> Sc {
    new_sc()
        .area("high_area", (70.0, 58.0, 95.0, 75.0))
        .feature_of(
            json!({"kind": "linear"}),
            line(&[(100.0, 56.0), (130.0, 56.0)], 0.0),
            false,
            false,
        )
        .area("impassable", (120.0, 40.0, 130.0, 50.0))
        .feature_of(
            json!({"kind": "road"}),
            line(&[(60.0, 20.0), (60.0, 120.0)], 4.0),
            false,
            false,
        )
        .unit(0, 1, LINE_INF, 4, 100.0, 50.0, 0.0)
        .unit(0, 2, LINE_INF, 4, 88.0, 50.0, 0.0)
        .unit(0, 3, HEAVY_CAV, 3, 150.0, 40.0, 0.0)
        .unit(0, 4, LINE_INF, 4, 60.0, 40.0, 0.0)
        .unit(1, 7, AUS_INF, 4, 110.0, 70.0, 180.0)
}

#[test]
fn legal_destinations_are_all_accepted_by_the_move_check() {
    let mut b = busy().battle();
    deploy(&mut b, u(0, 4), Formation::MarchColumn);
    let ctx = b.ctx();
    let cases = [
        (u(0, 1), Manoeuvre::Advance),
        (u(0, 1), Manoeuvre::Wheel),
        (u(0, 1), Manoeuvre::AboutFace),
        (u(0, 1), Manoeuvre::Retire),
        (u(0, 3), Manoeuvre::Advance),
        (u(0, 4), Manoeuvre::Advance),
    ];
    for (piece, m) in cases {
        let dests = legal_destinations(&ctx, piece, m, 1.0);
        assert!(!dests.is_empty(), "{piece} {m:?} has somewhere to go");
        for d in &dests {
            let r = check_move(&ctx, piece, &[], *d, m);
            assert!(r.is_ok(), "{piece} {m:?} to {d:?}: {r:?}");
        }
    }
    // The wall and the wood's edge appear as exact stopping points.
    let dests = legal_destinations(&ctx, u(0, 1), Manoeuvre::Advance, 1.0);
    assert!(dests
        .iter()
        .any(|p| close(p.at.x, 100.0) && (p.at.y - 56.0).abs() < 1e-3));
}

mod property {
    use super::*;
    use geo::Intersects;
    use powderhorn::geom::footprint::{bearing_deg, heading, ring_polygon};
    use proptest::prelude::*;

    const BLOCK: (f64, f64, f64, f64) = (95.0, 60.0, 110.0, 68.0);

    fn block_ring() -> Vec<Point> {
        let (x0, y0, x1, y1) = BLOCK;
        vec![
            Point::new(x0, y0),
            Point::new(x1, y0),
            Point::new(x1, y1),
            Point::new(x0, y1),
        ]
    }

    /// A small table: a wood, a wall, an impassable block, a friend and an enemy far off.
    fn table(troop: &str, x: f64, y: f64, facing: f64) -> Sc {
        new_sc()
            .area("high_area", (70.0, 70.0, 95.0, 85.0))
            .feature_of(
                json!({"kind": "linear"}),
                line(&[(110.0, 58.0), (140.0, 58.0)], 0.0),
                false,
                false,
            )
            .area("impassable", BLOCK)
            .unit(0, 1, troop, 3, x, y, facing)
            .unit(0, 2, LINE_INF, 4, 130.0, 70.0, 0.0)
            .unit(1, 7, AUS_INF, 4, 60.0, 120.0, 180.0)
    }

    /// The unit of [`table`] — heavy cavalry or line infantry, in march column or not — and the
    /// manoeuvre numbered `kind` (advance, wheel, about face).
    fn placed(
        x: f64,
        y: f64,
        facing: f64,
        kind: usize,
        column: bool,
        cavalry: bool,
    ) -> (Battle, Manoeuvre) {
        let troop = if cavalry { HEAVY_CAV } else { LINE_INF };
        let mut b = table(troop, x, y, facing).battle();
        if column {
            deploy(&mut b, u(0, 1), Formation::MarchColumn);
        }
        let manoeuvre = [Manoeuvre::Advance, Manoeuvre::Wheel, Manoeuvre::AboutFace][kind];
        (b, manoeuvre)
    }

    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(64)
    }

    /// Runs `case` over values of `strategy` until the cases that really checked something (an
    /// accepted move, a destination offered) add up to `want`, or `cases() × 8` values have been
    /// tried; each case returns how many things it checked. Returns the count, for the caller
    /// to require its floor. Panics on the first failure, with proptest's shrunk input.
    fn run_counting<S: Strategy>(
        strategy: S,
        want: u32,
        case: impl Fn(S::Value) -> Result<u32, TestCaseError>,
    ) -> (u32, u32)
    where
        S::Value: std::fmt::Debug,
    {
        let checked = std::cell::Cell::new(0u32);
        let tried = std::cell::Cell::new(0u32);
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: cases() * 8,
            // The failures proptest! saved (engine_movement.proptest-regressions) run first.
            source_file: Some(file!()),
            ..ProptestConfig::default()
        });
        let result = runner.run(&strategy, |v| {
            if checked.get() >= want {
                return Ok(());
            }
            tried.set(tried.get() + 1);
            let n = case(v)?;
            checked.set(checked.get() + n);
            Ok(())
        });
        if let Err(e) = result {
            panic!("{e}");
        }
        (checked.get(), tried.get())
    }

    /// No accepted move ends beyond its allowance, inside impassable terrain or off the table,
    /// whatever the manoeuvre. Most generated moves are refused (too far, into the block, a
    /// wheel of the wrong shape: measured, 64 accepted in 295 and in 494 tries), so the test
    /// keeps generating until `cases() / 2` accepted moves have been checked and fails if it
    /// cannot find them in `cases() × 8` tries.
    #[test]
    fn no_move_ends_beyond_its_allowance_or_in_impassable_ground() {
        let strategy = (
            (80.0f64..125.0, 40.0f64..55.0, -40.0f64..40.0),
            (-14.0f64..14.0, -6.0f64..16.0, -6.0f64..6.0, 0.0f64..8.0),
            (
                -50.0f64..50.0,
                any::<bool>(),
                0usize..4,
                any::<bool>(),
                any::<bool>(),
            ),
        );
        let want = cases() / 2;
        let (accepted, tried) = run_counting(
            strategy,
            want,
            |((x, y, facing), (dx, dy, vx, vy), (turn, use_via, kind, column, cavalry))| {
                let troop = if cavalry { HEAVY_CAV } else { LINE_INF };
                let mut b = table(troop, x, y, facing).battle();
                if column {
                    deploy(&mut b, u(0, 1), Formation::MarchColumn);
                }
                let from = at(&b, u(0, 1));
                let manoeuvre = [
                    Manoeuvre::Advance,
                    Manoeuvre::Wheel,
                    Manoeuvre::AboutFace,
                    Manoeuvre::Retire,
                ][kind];
                let via: Vec<(f64, f64)> = if use_via && manoeuvre == Manoeuvre::Advance {
                    vec![(from.at.x + vx, from.at.y + vy)]
                } else {
                    vec![]
                };
                let to = match manoeuvre {
                    Manoeuvre::Wheel => {
                        let f = from.facing_deg + turn;
                        let h = heading(f);
                        Pose {
                            at: Point::new(
                                from.at.x + dx * 0.3 + h.x * dy.abs(),
                                from.at.y + h.y * dy.abs(),
                            ),
                            facing_deg: f,
                        }
                    }
                    Manoeuvre::AboutFace => Pose {
                        at: Point::new(from.at.x + dx, from.at.y - dy),
                        facing_deg: from.facing_deg + 180.0,
                    },
                    Manoeuvre::Retire => {
                        let h = heading(from.facing_deg);
                        Pose {
                            at: Point::new(from.at.x - h.x * dy.abs(), from.at.y - h.y * dy.abs()),
                            facing_deg: from.facing_deg,
                        }
                    }
                    _ => {
                        let to_at = Point::new(from.at.x + dx, from.at.y + dy);
                        let last = via.last().map_or(from.at, |(x, y)| Point::new(*x, *y));
                        let f = if column {
                            bearing_deg(last, to_at)
                        } else {
                            from.facing_deg
                        };
                        Pose {
                            at: to_at,
                            facing_deg: f,
                        }
                    }
                };
                let allowance = {
                    let ctx = b.ctx();
                    move_allowance(&ctx, u(0, 1), manoeuvre)
                };
                let (Ok(allowance), Ok(ev)) =
                    (allowance, mv_via(&mut b, u(0, 1), &via, to, manoeuvre))
                else {
                    return Ok(0);
                };
                let [Event::Moved { cost_cm, .. }] = ev.as_slice() else {
                    panic!("one Moved event: {ev:?}");
                };
                prop_assert!(*cost_cm <= allowance.total(false) + 1e-3, "cost {cost_cm}");
                let ctx = b.ctx();
                let p = ctx.piece(u(0, 1)).expect("on the table");
                let fp = footprint_of(&ctx, p).expect("a footprint");
                let block = ring_polygon(&block_ring());
                for s in &fp.stands {
                    let mut inner = *s;
                    inner.width -= 0.002;
                    inner.depth -= 0.002;
                    prop_assert!(
                        !inner.polygon().intersects(&block),
                        "ends in the block: {:?}",
                        fp.at
                    );
                    for c in inner.corners() {
                        prop_assert!((0.0..=240.0).contains(&c.x) && (0.0..=180.0).contains(&c.y));
                    }
                }
                Ok(1)
            },
        );
        eprintln!("accepted moves checked: {accepted} in {tried} cases");
        assert!(
            accepted >= want,
            "only {accepted} of {tried} generated moves were accepted: the property checked too little"
        );
    }

    /// The nearest destination (`MoveChecker::nearest_destination`), which walks only the rays
    /// that can come nearer, is the nearest of all the legal destinations (the first in their
    /// order of equally near ones), for targets all round the unit, near and far; and a bound
    /// it cannot come within gives none. Counts the cases that had a destination.
    #[test]
    fn the_nearest_destination_is_the_nearest_of_them_all() {
        use powderhorn::rules::movement::MoveChecker;
        let strategy = (
            80.0f64..125.0,
            40.0f64..55.0,
            -40.0f64..40.0,
            (0usize..3, any::<bool>(), any::<bool>()),
            (0.0f64..360.0, 0.0f64..60.0),
        );
        let want = cases();
        let (compared, tried) = run_counting(
            strategy,
            want,
            |(x, y, facing, (kind, column, cavalry), (bearing, far))| {
                let (b, manoeuvre) = placed(x, y, facing, kind, column, cavalry);
                let ctx = b.ctx();
                let from = at(&b, u(0, 1)).at;
                let t = Point::new(
                    from.x + far * bearing.to_radians().sin(),
                    from.y + far * bearing.to_radians().cos(),
                );
                let all = legal_destinations(&ctx, u(0, 1), manoeuvre, 2.0);
                let mut best: Option<(f64, Pose)> = None;
                for p in &all {
                    let d = (p.at.x - t.x).hypot(p.at.y - t.y);
                    if best.is_none_or(|(b, _)| d < b - 1e-9) {
                        best = Some((d, *p));
                    }
                }
                let checker = MoveChecker::new(&ctx, u(0, 1));
                let found = checker.nearest_destination(manoeuvre, 2.0, t, f64::INFINITY);
                prop_assert_eq!(
                    found.map(|(_, p)| p),
                    best.map(|(_, p)| p),
                    "{:?} towards {:?}",
                    manoeuvre,
                    t
                );
                if let Some((d, _)) = best {
                    // Asked to come nearer than the nearest: nothing.
                    let none = checker.nearest_destination(manoeuvre, 2.0, t, d - 0.01);
                    prop_assert_eq!(none, None);
                }
                Ok(u32::from(best.is_some()))
            },
        );
        eprintln!("cases with destinations compared: {compared} in {tried} cases");
        assert!(
            compared >= want,
            "only {compared} of {tried} cases had a destination: the property checked too little"
        );
    }

    /// Every legal destination offered is a move the check accepts. Counts the cases that
    /// offered at least one destination (each offers a few hundred) and keeps generating until
    /// `cases()` of them have been checked.
    #[test]
    fn legal_destinations_are_legal_moves() {
        let strategy = (
            80.0f64..125.0,
            40.0f64..55.0,
            -40.0f64..40.0,
            0usize..3,
            any::<bool>(),
            any::<bool>(),
        );
        let want = cases();
        let (offered, tried) =
            run_counting(strategy, want, |(x, y, facing, kind, column, cavalry)| {
                let (b, manoeuvre) = placed(x, y, facing, kind, column, cavalry);
                let ctx = b.ctx();
                let mut n = 0;
                for d in legal_destinations(&ctx, u(0, 1), manoeuvre, 2.0) {
                    let r = check_move(&ctx, u(0, 1), &[], d, manoeuvre);
                    prop_assert!(r.is_ok(), "{manoeuvre:?} to {d:?}: {r:?}");
                    n += 1;
                }
                Ok(u32::from(n > 0))
            });
        eprintln!("cases with destinations checked: {offered} in {tried} cases");
        assert!(
            offered >= want,
            "only {offered} of {tried} cases offered a destination: the property checked too little"
        );
    }
}
