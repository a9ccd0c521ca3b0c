//! Orders: the Initiative phase (catalogue §2.5 INIT-01..INIT-06, INIT-16), the Command phase
//! (§2.6 CMD-01..CMD-30), FIRE-06 and opportunity fire (FIRE-30..FIRE-33), with worked examples
//! WE-10, WE-11 and WE-18.
//!
//! Battles run through `Battle::perform` under the full orders rules with scripted dice; where
//! an example is arithmetic (the distance table, WE-11's modified value) the public functions
//! are driven with its numbers. Every refusal names its rule and changes nothing.
//!
//! Geometry reminders: a pose is the centre of the front edge; facing 0 looks towards +y. An
//! infantry stand is 2.5 × 1.5 cm (a line of 4 is 10 cm wide), a command stand 3 × 3.

use powderhorn::geom::Point;
use powderhorn::rules::command::{
    self, distance_modifier, roll_outcome, successive_penalty, OrderOutcome, OrderRoll,
    OrderedUnit, OrdersMode, Pending, UnitAct, UnitActionKind,
};
use powderhorn::rules::event::{KnockOutCause, Modifier};
use powderhorn::rules::{
    Action, ActionError, Battle, BattleState, Ctx, DiceSource, Event, Formation, Phase, PieceId,
    Pose,
};
use serde_json::json;

// --- scenario builder (tests/support/builder.rs) ------------------------------------------------

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{h, lists, pose, u, Sc, AUS_LINE, FR_LINE};

/// `list0` against `list1`, 1809, no HQs until added: this file's tables.
fn new_sc(list0: &str, list1: &str) -> Sc {
    Sc::bare(list0, list1)
        .named("command-test", "Command test")
        .year(1809)
}

/// French against Austrians.
fn nap_sc() -> Sc {
    new_sc("nap-french", "nap-austrian")
}

impl Sc {
    /// Full orders, `deploys` in deployment, then side 0's Initiative phase.
    fn initiative(&self, dice: Vec<u8>, deploys: &[(PieceId, Formation)]) -> Battle {
        let b = Battle::new(self.scenario(), lists(), DiceSource::Script(dice), 0)
            .expect("the test battle sets up");
        assert_eq!(
            b.state().command.mode,
            OrdersMode::Full,
            "full rules by default"
        );
        Sc::to_initiative(b, deploys)
    }

    /// As [`Sc::initiative`], at side 0's Command phase.
    fn command(&self, dice: Vec<u8>, deploys: &[(PieceId, Formation)]) -> Battle {
        Sc::to_command(self.initiative(dice, deploys))
    }
}

fn ou(piece: PieceId, action: UnitActionKind) -> OrderedUnit {
    OrderedUnit {
        piece,
        action,
        target: None,
        road: false,
        dense: false,
    }
}

fn order(
    b: &mut Battle,
    command: PieceId,
    units: Vec<OrderedUnit>,
) -> Result<Vec<Event>, ActionError> {
    b.perform(Action::IssueOrder { command, units })
        .map(<[Event]>::to_vec)
}

fn mv(b: &mut Battle, piece: PieceId, to: Pose) -> Result<Vec<Event>, ActionError> {
    b.perform(Action::Move {
        piece,
        via: vec![],
        to,
        manoeuvre: Default::default(),
    })
    .map(<[Event]>::to_vec)
}

fn deploy(b: &mut Battle, piece: PieceId, formation: Formation) -> Result<Vec<Event>, ActionError> {
    b.perform(Action::Deploy { piece, formation })
        .map(<[Event]>::to_vec)
}

fn fire(b: &mut Battle, firers: &[PieceId], target: PieceId) -> Result<Vec<Event>, ActionError> {
    b.perform(Action::Fire {
        firers: firers.to_vec(),
        target,
        ammunition: None,
    })
    .map(<[Event]>::to_vec)
}

use refuse::refused;

use refuse::rule_of;

fn mods(ev: &[Event]) -> Vec<(String, i32)> {
    ev.iter()
        .find_map(|e| match e {
            Event::DiceRolled {
                rule, modifiers, ..
            } if rule == "CMD-03" => Some(
                modifiers
                    .iter()
                    .map(|m| (m.rule.clone(), m.value))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default()
}

fn roll_of(ev: &[Event]) -> OrderRoll {
    ev.iter()
        .find_map(|e| match e {
            Event::OrderRolled(r) => Some(r.clone()),
            _ => None,
        })
        .expect("an order roll")
}

fn with_state(b: &Battle, f: impl FnOnce(&mut BattleState)) -> BattleState {
    let mut s = b.state().clone();
    f(&mut s);
    s
}

fn ctx_of<'a>(b: &'a Battle, s: &'a BattleState) -> Ctx<'a> {
    Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: s,
        sight: None,
    }
}

/// A French brigade HQ (CO, value 7) at (100, 20); French X at `x_gap` cm in front of it; an
/// Austrian line far away.
fn basic(x_gap: f64) -> Sc {
    nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 21.5 + x_gap), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 150.0), 180.0)
}

// --- INIT -------------------------------------------------------------------------------------------

/// French I at (100, 95) facing the Austrians; `e1` is E1's pose.
fn we18(e1: Pose) -> Sc {
    nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (60.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (60.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 95.0), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 2, (e1.at.x, e1.at.y), e1.facing_deg)
        // E2: 9 cm to I's right, hidden behind a wood.
        .unit_under(1, 2, 1, AUS_LINE, 2, (114.0, 94.0), 270.0)
        .area("high_area", (106.0, 70.0, 113.0, 120.0))
}

#[test]
fn we_18_init_01_init_04_fire_04_initiative_eligibility() {
    // E1 14.0 cm ahead, visible, in the cone; E2 9.0 cm away but hidden.
    let sc = we18(pose(100.0, 109.0, 180.0));
    let mut b = sc.initiative(vec![], &[]);
    {
        let ctx = b.ctx();
        let idx = powderhorn::rules::visibility::SightIndex::new(&ctx);
        let near = idx
            .visible_enemies(u(0, 1))
            .into_iter()
            .find(|(id, _)| !id.is_command())
            .expect("E1 is visible");
        assert_eq!(near.0, u(1, 1), "E2 behind the wood is ignored");
        assert!((near.1 - 14.0).abs() < 1e-6);
    }
    // No fire: 14 > 10 cm range, and no other target.
    let fire_e1 = Action::Fire {
        firers: vec![u(0, 1)],
        target: u(1, 1),
        ammunition: None,
    };
    refused(&mut b, fire_e1, "FIRE-02");
    let fire_e2 = Action::Fire {
        firers: vec![u(0, 1)],
        target: u(1, 2),
        ammunition: None,
    };
    assert_ne!(
        rule_of(b.perform(fire_e2).map(<[Event]>::to_vec)),
        "INIT-01",
        "E2 is refused by sight or INIT-04, not for distance"
    );
    // It may deploy on initiative (INIT-06), once.
    let ev = deploy(&mut b, u(0, 1), Formation::MarchColumn).expect("deploy on initiative");
    assert_eq!(
        ev,
        vec![
            Event::UnitActed(UnitAct {
                piece: u(0, 1),
                kind: UnitActionKind::Deploy,
                order: None,
                initiative: true,
                limber: false,
                trace: None,
            }),
            Event::FormationChanged {
                piece: u(0, 1),
                from: Some(Formation::Line),
                to: Some(Formation::MarchColumn),
            },
        ]
    );
    // INIT-01: one initiative action per unit.
    refused(
        &mut b,
        Action::Deploy {
            piece: u(0, 1),
            formation: Formation::Line,
        },
        "INIT-01",
    );
    // If I acted on initiative, its first order this turn is at −1 (CMD-08).
    b.perform(Action::EndPhase).expect("to command");
    let s = b.state().clone();
    let ctx = ctx_of(&b, &s);
    let m = command::order_modifiers(&ctx, h(0, 1), &[ou(u(0, 1), UnitActionKind::Move)])
        .expect("modifiers");
    assert!(
        m.iter().any(|x| x.rule == "CMD-08" && x.value == -1),
        "{m:?}"
    );
}

#[test]
fn we_18_init_01_nearest_visible_enemy_beyond_20_cm_means_no_initiative() {
    // E1 at 21.0 cm.
    let mut b = we18(pose(100.0, 116.0, 180.0)).initiative(vec![], &[]);
    refused(
        &mut b,
        Action::Deploy {
            piece: u(0, 1),
            formation: Formation::Square,
        },
        "INIT-01",
    );
}

#[test]
fn we_18_fire_04_nearest_enemy_outside_the_cone_no_fire_but_deploy() {
    // E1 7.2 cm away, inside the 180° arc but outside the fire cone.
    let mut b = we18(pose(113.5, 99.0, 180.0)).initiative(vec![], &[]);
    refused(
        &mut b,
        Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        },
        "FIRE-04",
    );
    deploy(&mut b, u(0, 1), Formation::Square).expect("deploy (square) on initiative: INIT-06");
}

#[test]
fn init_01_a_unit_does_not_move_on_initiative() {
    let mut b = we18(pose(100.0, 109.0, 180.0)).initiative(vec![], &[]);
    refused(
        &mut b,
        Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(100.0, 97.0, 0.0),
            manoeuvre: Default::default(),
        },
        "INIT-01",
    );
}

#[test]
fn init_02_init_04_initiative_fire_at_the_nearest_visible_enemy_in_range() {
    // E1 8.0 cm ahead: in range and cone. Austrian 2 stands; French 4 fire, all miss.
    let mut b = we18(pose(100.0, 103.0, 180.0)).initiative(vec![1, 1, 1, 1], &[]);
    let ev = fire(&mut b, &[u(0, 1)], u(1, 1)).expect("initiative fire");
    assert_eq!(
        ev.first(),
        Some(&Event::UnitActed(UnitAct {
            piece: u(0, 1),
            kind: UnitActionKind::Fire,
            order: None,
            initiative: true,
            limber: false,
            trace: None,
        }))
    );
    assert!(b.state().piece(u(0, 1)).unwrap().orders.initiative_used);
}

#[test]
fn init_03_command_units_suppressed_units_and_last_turns_opportunity_firers_take_no_initiative() {
    let mut b = we18(pose(100.0, 109.0, 180.0)).initiative(vec![], &[]);
    refused(
        &mut b,
        Action::Move {
            piece: h(0, 1),
            via: vec![],
            to: pose(60.0, 25.0, 0.0),
            manoeuvre: Default::default(),
        },
        "INIT-03",
    );
    let deploy_i = Action::Deploy {
        piece: u(0, 1),
        formation: Formation::Square,
    };
    let s = with_state(&b, |s| {
        s.pieces.get_mut(&u(0, 1)).unwrap().suppressed_at = Some(0);
    });
    let e = command::authorize(&ctx_of(&b, &s), &deploy_i).unwrap_err();
    assert!(e.to_string().starts_with("INIT-03"), "{e}");
    // FIRE-32: opportunity fire in the opponent's last turn (player turn 0 here).
    let s = with_state(&b, |s| {
        s.pieces
            .get_mut(&u(0, 1))
            .unwrap()
            .orders
            .opportunity_fired_in = Some(0);
    });
    let e = command::authorize(&ctx_of(&b, &s), &deploy_i).unwrap_err();
    assert!(e.to_string().starts_with("INIT-03"), "{e}");
    assert!(e.to_string().contains("FIRE-32"), "{e}");
}

#[test]
fn init_05_init_16_evade_needs_an_enemy_near_engineer_task_does_not() {
    // Far from any enemy: an engineering task is allowed, an evade is not (the charge and
    // engineering modules' actions pass through the same check).
    let b = we18(pose(100.0, 130.0, 180.0)).initiative(vec![], &[]);
    let ctx = b.ctx();
    assert!(command::check_initiative(&ctx, u(0, 1), UnitActionKind::EngineerTask).is_ok());
    let e = command::check_initiative(&ctx, u(0, 1), UnitActionKind::Evade).unwrap_err();
    assert_eq!(e.rule, "INIT-01");
    let near = we18(pose(100.0, 109.0, 180.0)).initiative(vec![], &[]);
    let ctx = near.ctx();
    assert!(command::check_initiative(&ctx, u(0, 1), UnitActionKind::Evade).is_ok());
    assert!(command::check_initiative(&ctx, u(0, 1), UnitActionKind::Charge).is_ok());
}

#[test]
fn init_06_limber_on_initiative_is_a_deploy() {
    let sc = we18(pose(100.0, 109.0, 180.0)).unit_under(
        0,
        2,
        1,
        "field-artillery",
        1,
        (88.0, 95.0),
        0.0,
    );
    let mut b = sc.initiative(vec![], &[]);
    let ev = b
        .perform(Action::Limber { piece: u(0, 2) })
        .expect("limber on initiative")
        .to_vec();
    assert_eq!(
        ev,
        vec![
            Event::UnitActed(UnitAct {
                piece: u(0, 2),
                kind: UnitActionKind::Deploy,
                order: None,
                initiative: true,
                limber: true,
                trace: None,
            }),
            Event::Limbered { piece: u(0, 2) },
        ]
    );
}

// --- CMD-01 .. CMD-06 ------------------------------------------------------------------------------

#[test]
fn cmd_03_cmd_04_an_order_then_its_action() {
    let mut b = basic(10.0).command(vec![3, 3], &[]);
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("order");
    assert_eq!(
        ev,
        vec![
            Event::DiceRolled {
                piece: Some(h(0, 1)),
                purpose: "command roll".into(),
                rule: "CMD-03".into(),
                dice: vec![3, 3],
                modifiers: vec![],
            },
            Event::OrderRolled(OrderRoll {
                order: 0,
                command: h(0, 1),
                co: true,
                units: vec![ou(u(0, 1), UnitActionKind::Move)],
                value: 7,
                target: 7,
                total: 6,
                outcome: OrderOutcome::Success,
            }),
        ]
    );
    let from = pose(100.0, 31.5, 0.0);
    let to = pose(100.0, 36.5, 0.0);
    let ev = mv(&mut b, u(0, 1), to).expect("the ordered move");
    assert_eq!(
        ev,
        vec![
            Event::UnitActed(UnitAct {
                piece: u(0, 1),
                kind: UnitActionKind::Move,
                order: Some(0),
                initiative: false,
                limber: false,
                trace: Some(command::MoveTrace {
                    from,
                    path: vec![],
                    to
                }),
            }),
            Event::Moved {
                piece: u(0, 1),
                from,
                to,
                path: vec![],
                cost_cm: 5.0,
            },
        ]
    );
    // CMD-04: one action per order.
    refused(
        &mut b,
        Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(100.0, 38.0, 0.0),
            manoeuvre: Default::default(),
        },
        "CMD-04",
    );
}

#[test]
fn cmd_04_no_order_no_action_in_the_command_phase() {
    let mut b = basic(10.0).command(vec![], &[]);
    refused(
        &mut b,
        Action::Deploy {
            piece: u(0, 1),
            formation: Formation::MarchColumn,
        },
        "CMD-04",
    );
}

#[test]
fn cmd_15_the_declared_action_only() {
    let mut b = basic(10.0).command(vec![3, 3], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Deploy)]).expect("order");
    refused(
        &mut b,
        Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(100.0, 33.0, 0.0),
            manoeuvre: Default::default(),
        },
        "CMD-15",
    );
    deploy(&mut b, u(0, 1), Formation::MarchColumn).expect("the declared deploy");
    // Evades and engineering tasks are not ordered actions.
    let mut b = basic(10.0).command(vec![], &[]);
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Evade)],
        },
        "CMD-15",
    );
}

#[test]
fn cmd_05_a_failed_order_ends_that_commands_orders() {
    // A brigade HQ under a CO: its failure ends only its own orders.
    let sc = basic(10.0)
        .hq(0, 2, "brigade", "average", 7, Some(1), (140.0, 20.0))
        .unit_under(0, 2, 2, FR_LINE, 4, (140.0, 31.5), 0.0);
    let mut b = sc.command(vec![5, 4, 2, 2], &[]);
    let ev = order(&mut b, h(0, 2), vec![ou(u(0, 2), UnitActionKind::Move)]).expect("rolled");
    let r = roll_of(&ev);
    assert_eq!(
        (r.total, r.outcome, r.co),
        (9, OrderOutcome::Failure, false)
    );
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 2),
            units: vec![ou(u(0, 2), UnitActionKind::Move)],
        },
        "CMD-05",
    );
    // The CO still orders (CMD-29: it may pick up unit 2, at −1).
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 2), UnitActionKind::Move)]).expect("CO");
    assert!(mods(&ev).contains(&("CMD-29".to_string(), -1)));
    assert_eq!(roll_of(&ev).outcome, OrderOutcome::Success);
}

#[test]
fn cmd_05_the_cos_failure_ends_every_order_this_turn() {
    let sc = basic(10.0)
        .hq(0, 2, "brigade", "average", 7, Some(1), (140.0, 20.0))
        .unit_under(0, 2, 2, FR_LINE, 4, (140.0, 31.5), 0.0);
    let mut b = sc.command(vec![6, 5], &[]);
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("rolled");
    assert_eq!(roll_of(&ev).outcome, OrderOutcome::Failure);
    assert!(b.state().command.all_ended);
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 2),
            units: vec![ou(u(0, 2), UnitActionKind::Move)],
        },
        "CMD-05",
    );
}

#[test]
fn cmd_06_one_commander_per_unit_and_successive_orders_only() {
    let sc = basic(10.0)
        .hq(0, 2, "brigade", "average", 7, Some(1), (140.0, 20.0))
        .unit_under(0, 2, 1, FR_LINE, 4, (120.0, 31.5), 0.0);
    let mut b = sc.command(vec![2, 2, 2, 2, 2, 2], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Deploy)]).expect("order 1 to X");
    // The same command orders Y: X, no longer ordered in succession, is closed.
    order(&mut b, h(0, 1), vec![ou(u(0, 2), UnitActionKind::Deploy)]).expect("order to Y");
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Deploy)],
        },
        "CMD-06",
    );
    assert_eq!(command::orderable_units(&b.ctx(), h(0, 1)), vec![u(0, 2)]);
    // Y again, in succession: at −1 (CMD-08).
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 2), UnitActionKind::Deploy)]).expect("Y again");
    assert!(mods(&ev).contains(&("CMD-08".to_string(), -1)));
    // Another command unit may not order a unit this one ordered (CMD-06); and once it acts,
    // the first command's orders are over (CMD-02).
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 2),
            units: vec![ou(u(0, 2), UnitActionKind::Deploy)],
        },
        "CMD-06",
    );
}

#[test]
fn cmd_02_a_command_that_has_been_followed_by_another_issues_no_more() {
    let sc = basic(10.0)
        .hq(0, 2, "brigade", "average", 7, Some(1), (140.0, 20.0))
        .unit_under(0, 2, 2, FR_LINE, 4, (140.0, 31.5), 0.0);
    let mut b = sc.command(vec![2, 2, 2, 2], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Deploy)]).expect("CO");
    order(&mut b, h(0, 2), vec![ou(u(0, 2), UnitActionKind::Deploy)]).expect("HQ 2");
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Deploy)],
        },
        "CMD-02",
    );
}

#[test]
fn cmd_01_the_command_value_caps_the_orders_of_a_turn() {
    // Value 2: two orders at most (double ones, so each succeeds).
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 2, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 31.5), 0.0)
        .unit_under(0, 2, 1, FR_LINE, 4, (120.0, 31.5), 0.0)
        .unit_under(0, 3, 1, FR_LINE, 4, (80.0, 31.5), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 150.0), 180.0);
    let mut b = sc.command(vec![1, 1, 1, 1], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Deploy)]).expect("1");
    order(&mut b, h(0, 1), vec![ou(u(0, 2), UnitActionKind::Deploy)]).expect("2");
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 3), UnitActionKind::Deploy)],
        },
        "CMD-01",
    );
}

// --- CMD-07 ---------------------------------------------------------------------------------------

#[test]
fn cmd_07_an_isolated_unit_orders_itself_towards_its_command() {
    // HQ behind a wood (no LOS), unit 40 cm away: isolated.
    let sc = basic(40.0).area("high_area", (80.0, 30.0, 120.0, 50.0));
    let mut b = sc.command(vec![3, 4], &[]);
    assert!(command::is_isolated(&b.ctx(), u(0, 1)));
    let ev = b
        .perform(Action::SelfOrder { piece: u(0, 1) })
        .expect("self-order")
        .to_vec();
    assert_eq!(
        ev.first(),
        Some(&Event::DiceRolled {
            piece: Some(u(0, 1)),
            purpose: "self-order".into(),
            rule: "CMD-07".into(),
            dice: vec![3, 4],
            modifiers: vec![Modifier {
                rule: "CMD-07".into(),
                label: "fixed value".into(),
                value: 7
            }],
        })
    );
    assert_eq!(
        ev.get(1),
        Some(&Event::SelfOrdered {
            piece: u(0, 1),
            player_turn: 1,
            success: true
        })
    );
    let Some(Event::Moved { from, to, .. }) = ev.get(2) else {
        panic!("a move towards the HQ: {ev:?}");
    };
    assert!(to.at.y < from.at.y, "towards the HQ behind it");
    // Not isolated: a friend within 20 cm.
    let mut b = basic(10.0).command(vec![], &[]);
    refused(&mut b, Action::SelfOrder { piece: u(0, 1) }, "CMD-07");
}

// --- CMD-08 .. CMD-14, WE-10 ------------------------------------------------------------------------

#[test]
fn cmd_09_we_10_distance_penalty_table() {
    for (d, m) in [
        (0.0, 0),
        (20.0, 0),
        (20.1, -1),
        (27.0, -1),
        (35.0, -1),
        (40.0, -1),
        (40.1, -2),
        (45.0, -2),
        (60.0, -2),
        (60.1, -3),
        (75.0, -3),
    ] {
        assert_eq!(distance_modifier(d), m, "d = {d}");
    }
}

#[test]
fn cmd_08_successive_orders_and_initiative() {
    assert_eq!(successive_penalty(&[(0, false)]), 0);
    assert_eq!(successive_penalty(&[(1, false), (0, false)]), 1);
    assert_eq!(successive_penalty(&[(0, true)]), 1);
    assert_eq!(successive_penalty(&[(1, true), (2, false)]), 2);
    assert_eq!(successive_penalty(&[(4, false)]), 4);
}

#[test]
fn cmd_10_command_distance_is_edge_to_edge() {
    // X's rear edge 27.0 cm from the HQ's front edge.
    let b = basic(27.0).command(vec![], &[]);
    let m = command::order_modifiers(&b.ctx(), h(0, 1), &[ou(u(0, 1), UnitActionKind::Move)])
        .expect("modifiers");
    assert_eq!(
        m,
        vec![Modifier {
            rule: "CMD-09".into(),
            label: "farthest unit 27.0 cm away".into(),
            value: -1
        }]
    );
}

#[test]
fn cmd_11_a_road_move_is_ignored_for_distance_and_must_keep_to_the_road() {
    let mut b = basic(27.0).command(vec![3, 3], &[]);
    let road = OrderedUnit {
        road: true,
        ..ou(u(0, 1), UnitActionKind::Move)
    };
    let ev = order(&mut b, h(0, 1), vec![road]).expect("order");
    assert_eq!(mods(&ev), vec![]);
    // There is no road: the declared road move cannot be made.
    refused(
        &mut b,
        Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(100.0, 50.5, 0.0),
            manoeuvre: Default::default(),
        },
        "CMD-11",
    );
}

#[test]
fn cmd_12_dense_terrain_is_declared_and_costs_one() {
    // A marsh (dense for foot) 2 cm ahead of X.
    let sc = basic(10.0).area("partially_wet", (90.0, 25.0, 110.0, 60.0));
    let mut b = sc.command(vec![3, 3, 3, 3], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("order");
    // Undeclared: the move into the marsh is refused.
    refused(
        &mut b,
        Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(100.0, 32.5, 0.0),
            manoeuvre: Default::default(),
        },
        "CMD-12",
    );
    let dense = OrderedUnit {
        dense: true,
        ..ou(u(0, 1), UnitActionKind::Move)
    };
    let ev = order(&mut b, h(0, 1), vec![dense]).expect("declared");
    assert!(mods(&ev).contains(&("CMD-12".to_string(), -1)));
}

#[test]
fn cmd_13_charging_a_visible_enemy_within_10_cm_costs_one() {
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 31.5), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 39.5), 180.0)
        .unit_under(1, 2, 1, AUS_LINE, 4, (140.0, 47.0), 180.0);
    let b = sc.command(vec![], &[]);
    let charge = |t| OrderedUnit {
        target: Some(t),
        ..ou(u(0, 1), UnitActionKind::Charge)
    };
    let near = command::order_modifiers(&b.ctx(), h(0, 1), &[charge(u(1, 1))]).expect("mods");
    assert!(
        near.iter().any(|m| m.rule == "CMD-13" && m.value == -1),
        "{near:?}"
    );
    let far = command::order_modifiers(&b.ctx(), h(0, 1), &[charge(u(1, 2))]).expect("mods");
    assert!(!far.iter().any(|m| m.rule == "CMD-13"), "{far:?}");
}

#[test]
fn cmd_14_move_13_fire_32_cmd_28_other_modifiers() {
    // The HQ touches X in march column: +1 (MOVE-13).
    let b = basic(0.0).command(vec![], &[(u(0, 1), Formation::MarchColumn)]);
    let m = command::order_modifiers(&b.ctx(), h(0, 1), &[ou(u(0, 1), UnitActionKind::Move)])
        .expect("mods");
    assert_eq!(
        m.iter()
            .map(|x| (x.rule.as_str(), x.value))
            .collect::<Vec<_>>(),
        vec![("MOVE-13", 1)]
    );
    // Opportunity fire last turn (FIRE-32) and a replaced commander (CMD-28): −1 each.
    let s = with_state(&b, |s| {
        s.pieces
            .get_mut(&u(0, 1))
            .unwrap()
            .orders
            .opportunity_fired_in = Some(0);
        s.pieces.get_mut(&h(0, 1)).unwrap().orders.replaced = true;
    });
    let m = command::order_modifiers(
        &ctx_of(&b, &s),
        h(0, 1),
        &[ou(u(0, 1), UnitActionKind::Move)],
    )
    .expect("mods");
    let rules: Vec<(&str, i32)> = m.iter().map(|x| (x.rule.as_str(), x.value)).collect();
    assert!(
        rules.contains(&("FIRE-32", -1)) && rules.contains(&("CMD-28", -1)),
        "{rules:?}"
    );
}

/// WE-10: an Austrian brigade HQ (7) in poor weather; G = {X 27.0 cm away in a marsh, Y 12.0 cm}.
#[test]
fn we_10_cmd_03_cmd_06_cmd_08_cmd_09_cmd_12_cmd_29_command_roll_with_modifiers() {
    let sc = new_sc("nap-austrian", "nap-french")
        .set("weather", json!("poor"))
        .set("optional_rules", json!(["weather"]))
        .hq(0, 1, "army", "average", 9, None, (30.0, 20.0))
        .hq(0, 2, "brigade", "average", 7, Some(1), (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 2, AUS_LINE, 4, (100.0, 48.5), 0.0) // X: 27.0 cm
        .unit_under(0, 2, 2, AUS_LINE, 4, (120.0, 33.5), 0.0) // Y: 12.0 cm
        .unit_under(1, 1, 1, FR_LINE, 4, (100.0, 150.0), 180.0)
        .area("partially_wet", (90.0, 40.0, 111.0, 60.0));
    let mut b = sc.command(vec![2, 2, 1, 2, 2, 2], &[]);
    let g = |dense: bool| {
        vec![
            OrderedUnit {
                dense,
                ..ou(u(0, 1), UnitActionKind::Move)
            },
            ou(u(0, 2), UnitActionKind::Move),
        ]
    };
    // The first order to G: 7 − 1 (distance) − 1 (dense) − 1 (weather) = 4; [2, 2] succeeds.
    let first = order(&mut b, h(0, 2), g(true)).expect("first");
    assert_eq!(roll_of(&first).target, 4);
    assert_eq!(roll_of(&first).outcome, OrderOutcome::Success);
    // Second order to G: 7 − 1 − 1 − 1 − 1 = 3. Roll [1, 2] = 3 ≤ 3: success.
    let second = order(&mut b, h(0, 2), g(true)).expect("second");
    assert_eq!(
        mods(&second),
        vec![
            ("CMD-08".to_string(), -1),
            ("CMD-09".to_string(), -1),
            ("CMD-12".to_string(), -1),
            ("OPT-WEATHER-03".to_string(), -1),
        ]
    );
    let r = roll_of(&second);
    assert_eq!(
        (r.value, r.target, r.total, r.outcome),
        (7, 3, 3, OrderOutcome::Success)
    );
    // Third order (firm ground for this order): 7 − 2 − 1 − 1 = 3. [2, 2] = 4 > 3: failure,
    // and a double two is nothing special.
    let third = order(&mut b, h(0, 2), g(false)).expect("third");
    let r = roll_of(&third);
    assert_eq!(
        (r.target, r.total, r.outcome),
        (3, 4, OrderOutcome::Failure)
    );
    assert_eq!(
        mods(&third),
        vec![
            ("CMD-08".to_string(), -2),
            ("CMD-09".to_string(), -1),
            ("OPT-WEATHER-03".to_string(), -1),
        ]
    );
    // The HQ issues no more orders; X and Y are closed and the CO may not pick them up.
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 2),
            units: vec![ou(u(0, 2), UnitActionKind::Move)],
        },
        "CMD-05",
    );
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Move)],
        },
        "CMD-06",
    );
    // The distance function of the example (35.0 cm → −1).
    assert_eq!(distance_modifier(35.0), -1);
}

// --- CMD-17 .. CMD-19, WE-11 ------------------------------------------------------------------------

#[test]
fn cmd_17_cmd_18_roll_outcomes() {
    assert_eq!(roll_outcome([1, 1], 0), OrderOutcome::Bonus);
    assert_eq!(roll_outcome([1, 1], -3), OrderOutcome::Bonus);
    assert_eq!(roll_outcome([6, 6], 12), OrderOutcome::Blunder);
    assert_eq!(roll_outcome([6, 6], 14), OrderOutcome::Blunder);
    assert_eq!(roll_outcome([3, 4], 7), OrderOutcome::Success);
    assert_eq!(roll_outcome([4, 4], 7), OrderOutcome::Failure);
    assert_eq!(roll_outcome([2, 2], 3), OrderOutcome::Failure);
}

/// WE-11 (a): a Union Uninspiring Brigade HQ (6), a unit's 5th order (−4) at 45 cm (−2): 0;
/// [1, 1] is a success with the bonus, two actions, and counts as one order.
#[test]
fn we_11_cmd_17_command_bonus() {
    let sc = new_sc("acw-union", "acw-confederate")
        .set("year", json!(1863))
        .hq(0, 1, "brigade", "uninspiring", 6, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, "regular-infantry-sb", 4, (100.0, 66.5), 0.0) // 45.0 cm
        .unit_under(1, 1, 1, "regular-infantry-sb", 4, (100.0, 76.0), 180.0);
    let mut b = sc.command(vec![1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], &[]);
    let s = with_state(&b, |s| {
        s.pieces.get_mut(&u(0, 1)).unwrap().orders.received = 4
    });
    let m = command::order_modifiers(
        &ctx_of(&b, &s),
        h(0, 1),
        &[ou(u(0, 1), UnitActionKind::Move)],
    )
    .expect("mods");
    let target = 6 + m.iter().map(|x| x.value).sum::<i32>();
    assert_eq!(target, 0, "{m:?}");
    assert_eq!(roll_outcome([1, 1], target), OrderOutcome::Bonus);
    // In play: the bonus gives two actions of any kind (Move, then Fire).
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("bonus");
    assert_eq!(roll_of(&ev).outcome, OrderOutcome::Bonus);
    mv(&mut b, u(0, 1), pose(100.0, 68.5, 0.0)).expect("first action: move");
    fire(&mut b, &[u(0, 1)], u(1, 1)).expect("second action: fire");
    refused(
        &mut b,
        Action::Deploy {
            piece: u(0, 1),
            formation: Formation::MarchColumn,
        },
        "CMD-04",
    );
    // One order: the next to this unit is at −1.
    let m = command::order_modifiers(&b.ctx(), h(0, 1), &[ou(u(0, 1), UnitActionKind::Move)])
        .expect("mods");
    assert!(
        m.iter().any(|x| x.rule == "CMD-08" && x.value == -1),
        "{m:?}"
    );
}

/// WE-11 (b): a Union Exceptional Army HQ (CO, 11) touching the march-column units it orders
/// (+1) → 12. [6, 6]: blunder; the CO's failure ends all orders. Blunder die 4, PULL BACK!: the
/// unit in the open moves 5 cm away from its nearest visible enemy; the unit in a wood stays.
#[test]
fn we_11_cmd_18_cmd_19_blunder_pull_back() {
    let sc = new_sc("acw-union", "acw-confederate")
        .set("year", json!(1863))
        .hq(0, 1, "army", "exceptional", 11, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, "regular-infantry-sb", 4, (100.0, 21.5), 0.0)
        .unit_under(0, 2, 1, "regular-infantry-sb", 4, (110.0, 21.5), 0.0)
        .unit_under(1, 1, 1, "regular-infantry-sb", 4, (100.0, 60.0), 180.0)
        .area("high_area", (107.0, 5.0, 113.0, 30.0));
    let mut b = sc.command(
        vec![6, 6, 4],
        &[
            (u(0, 1), Formation::MarchColumn),
            (u(0, 2), Formation::MarchColumn),
        ],
    );
    let ev = order(
        &mut b,
        h(0, 1),
        vec![
            ou(u(0, 1), UnitActionKind::Move),
            ou(u(0, 2), UnitActionKind::Move),
        ],
    )
    .expect("rolled");
    assert_eq!(mods(&ev), vec![("MOVE-13".to_string(), 1)]);
    let r = roll_of(&ev);
    assert_eq!(
        (r.target, r.total, r.outcome, r.co),
        (12, 12, OrderOutcome::Blunder, true)
    );
    assert!(ev.contains(&Event::Blunder {
        order: 0,
        command: h(0, 1),
        result: 4,
        name: "PULL BACK!".into()
    }));
    let moved: Vec<(PieceId, f64)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::Moved {
                piece, from, to, ..
            } => Some((*piece, from.at.distance(to.at).0)),
            _ => None,
        })
        .collect();
    assert_eq!(moved.len(), 1, "only the unit in the open: {ev:?}");
    assert_eq!(moved[0].0, u(0, 1));
    assert!(
        (moved[0].1 - 5.0).abs() < 0.01,
        "a half-move of 10 cm: {moved:?}"
    );
    assert!(b.state().command.all_ended);
}

/// WE-11 (c): blunder die 2, CROSS-FIRE!: the three friendly non-command units nearest the CO
/// each take 3 dice as a flank attack.
#[test]
fn we_11_cmd_19_blunder_cross_fire() {
    let sc = new_sc("acw-union", "acw-confederate")
        .set("year", json!(1863))
        .hq(0, 1, "army", "exceptional", 11, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, "regular-infantry-sb", 4, (100.0, 25.0), 0.0)
        .unit_under(0, 2, 1, "regular-infantry-sb", 4, (115.0, 25.0), 0.0)
        .unit_under(0, 3, 1, "regular-infantry-sb", 4, (85.0, 25.0), 0.0)
        .unit_under(0, 4, 1, "regular-infantry-sb", 4, (100.0, 60.0), 0.0)
        .unit_under(1, 1, 1, "regular-infantry-sb", 4, (100.0, 150.0), 180.0);
    // [6, 6] blunder, die 2, then three attacks of 3 dice that all miss.
    let mut b = sc.command(vec![6, 6, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1], &[]);
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 4), UnitActionKind::Move)]).expect("rolled");
    let attacks: Vec<(Option<PieceId>, Vec<u8>)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::DiceRolled { purpose, dice, .. } if purpose == "blunder: to hit" => {
                Some((None, dice.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(attacks.len(), 3);
    assert!(attacks.iter().all(|(_, d)| d == &vec![1, 1, 1]));
    let targets: Vec<PieceId> = ev
        .iter()
        .filter_map(|e| match e {
            Event::HitsScored { target, .. } => Some(*target),
            _ => None,
        })
        .collect();
    assert_eq!(
        targets,
        vec![u(0, 1), u(0, 2), u(0, 3)],
        "the three nearest, by distance then id"
    );
}

#[test]
fn cmd_19_blunder_cease_firing_attacks_the_command_unit_on_sixes() {
    let mut b = basic(10.0).command(vec![6, 6, 1, 3, 1, 1, 6, 1, 1, 1, 1, 1, 1], &[]);
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("rolled");
    let rolls: Vec<(String, Vec<u8>)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::DiceRolled { purpose, dice, .. } => Some((purpose.clone(), dice.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(rolls[0], ("command roll".into(), vec![6, 6]));
    assert_eq!(rolls[1], ("blunder table".into(), vec![1]));
    assert_eq!(rolls[2], ("cease firing! attack dice".into(), vec![3]));
    assert_eq!(rolls[3].1, vec![1, 1, 6]);
    assert!(ev.contains(&Event::HitsScored {
        target: h(0, 1),
        hits: 1,
        needed: 6
    }));
}

#[test]
fn cmd_19_blunder_re_locate_open_fire_and_lets_get_em() {
    // 3, RE-LOCATE!: the command unit half-moves (15 cm mounted) away from the enemy.
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (120.0, 40.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 51.5), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 70.0), 180.0);
    let mut b = sc.command(vec![6, 6, 3], &[]);
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("rolled");
    let Some(Event::Moved {
        piece, from, to, ..
    }) = ev.iter().find(|e| matches!(e, Event::Moved { .. }))
    else {
        panic!("{ev:?}")
    };
    assert_eq!(*piece, h(0, 1));
    assert!(
        (from.at.distance(to.at).0 - 15.0).abs() < 0.01,
        "{from:?} {to:?}"
    );
    assert!(to.at.y < from.at.y, "away from the enemy");
    // 5, OPEN FIRE!: the ordered unit fires at its nearest visible enemy (18.5 cm: out of range).
    let mut b = sc.command(vec![6, 6, 5], &[]);
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("rolled");
    assert!(ev.iter().any(|e| matches!(e, Event::NoEffect { piece, rule, .. } if *piece == u(0, 1) && rule == "CMD-19")), "{ev:?}");
    // 6, LET'S GET 'EM!: a half-move (5 cm) towards the nearest visible enemy.
    let mut b = sc.command(vec![6, 6, 6], &[]);
    let ev = order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("rolled");
    let Some(Event::Moved {
        piece, from, to, ..
    }) = ev.iter().find(|e| matches!(e, Event::Moved { .. }))
    else {
        panic!("{ev:?}")
    };
    assert_eq!(*piece, u(0, 1));
    assert!(to.at.y > from.at.y, "towards the enemy");
    assert!(from.at.distance(to.at).0 <= 5.0 + 1e-6);
}

// --- CMD-20 .. CMD-28 -------------------------------------------------------------------------------

#[test]
fn cmd_20_command_movement_ends_the_orders_of_the_phase() {
    let mut b = basic(10.0).command(vec![3, 3], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Deploy)]).expect("order");
    let ev = b
        .perform(Action::Move {
            piece: h(0, 1),
            via: vec![],
            to: pose(130.0, 20.0, 0.0),
            manoeuvre: Default::default(),
        })
        .expect("command move, 30 cm mounted")
        .to_vec();
    assert_eq!(ev.first(), Some(&Event::CommandMoved { piece: h(0, 1) }));
    refused(
        &mut b,
        Action::Deploy {
            piece: u(0, 1),
            formation: Formation::MarchColumn,
        },
        "CMD-20",
    );
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Deploy)],
        },
        "CMD-20",
    );
    refused(
        &mut b,
        Action::Move {
            piece: h(0, 1),
            via: vec![],
            to: pose(135.0, 20.0, 0.0),
            manoeuvre: Default::default(),
        },
        "CMD-20",
    );
}

#[test]
fn cmd_21_presence_from_the_ordering_commander_only_under_orders() {
    let sc = basic(0.0).hq(0, 2, "brigade", "average", 7, Some(1), (140.0, 20.0));
    let mut b = sc.command(vec![3, 3], &[]);
    // Outside orders: the chain decides.
    assert!(command::presence_counts(&b.ctx(), u(0, 1), h(0, 1), true));
    assert!(!command::presence_counts(&b.ctx(), u(0, 1), h(0, 2), false));
    order(&mut b, h(0, 2), vec![ou(u(0, 1), UnitActionKind::Deploy)]).expect("HQ 2 orders X");
    // Under HQ 2's order, the CO touching X adds nothing; HQ 2 would.
    assert!(!command::presence_counts(&b.ctx(), u(0, 1), h(0, 1), true));
    assert!(command::presence_counts(&b.ctx(), u(0, 1), h(0, 2), false));
}

#[test]
fn cmd_22_cmd_26_a_touching_command_unit_shares_suppression_fall_back_and_knock_out() {
    // The HQ touches X's rear.
    let b = basic(0.0).command(vec![], &[]);
    let ctx = b.ctx();
    let x_from = pose(100.0, 21.5, 0.0);
    let x_to = pose(100.0, 16.5, 0.0);
    let ev = command::finish(
        &ctx,
        Pending::default(),
        vec![
            Event::Suppressed {
                piece: u(0, 1),
                player_turn: 1,
            },
            Event::FellBack {
                piece: u(0, 1),
                from: x_from,
                to: x_to,
                distance_cm: 5.0,
            },
            Event::UnitKnockedOut {
                piece: u(0, 1),
                cause: KnockOutCause::Hits,
            },
        ],
    )
    .expect("finish");
    assert_eq!(
        ev,
        vec![
            Event::Suppressed {
                piece: u(0, 1),
                player_turn: 1
            },
            Event::Suppressed {
                piece: h(0, 1),
                player_turn: 1
            },
            Event::FellBack {
                piece: u(0, 1),
                from: x_from,
                to: x_to,
                distance_cm: 5.0
            },
            Event::CommandCarried {
                piece: h(0, 1),
                unit: u(0, 1),
                from: pose(100.0, 20.0, 0.0),
                to: pose(100.0, 15.0, 0.0),
            },
            Event::UnitKnockedOut {
                piece: u(0, 1),
                cause: KnockOutCause::Hits
            },
            Event::UnitKnockedOut {
                piece: h(0, 1),
                cause: KnockOutCause::Hits
            },
        ]
    );
}

#[test]
fn cmd_24_command_units_are_no_target_of_orders() {
    let sc = basic(10.0);
    let mut b = sc.command(vec![], &[]);
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![OrderedUnit {
                target: Some(h(1, 1)),
                ..ou(u(0, 1), UnitActionKind::Fire)
            }],
        },
        "CMD-24",
    );
}

#[test]
fn cmd_25_cmd_26_an_overrun_command_unit_joins_a_friend_within_half_its_move() {
    // The Austrian HQ at (100, 56) with an Austrian unit 10 cm behind it (within 15 cm).
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 56.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 50.0), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 66.0), 180.0);
    let mut b = sc.command(vec![3, 3], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("order");
    let ev = mv(&mut b, u(0, 1), pose(100.0, 58.0, 0.0)).expect("the overrun move");
    let joined = ev.iter().find_map(|e| match e {
        Event::CommandJoined {
            piece, unit, to, ..
        } => Some((*piece, *unit, *to)),
        _ => None,
    });
    let (piece, unit, to) = joined.expect("joined");
    assert_eq!((piece, unit), (h(1, 1), u(1, 1)));
    assert_eq!(
        to,
        pose(100.0, 67.5, 180.0),
        "against the rear edge, facing as the unit"
    );
    assert_eq!(
        b.state().piece(h(1, 1)).unwrap().orders.joined_to,
        Some(u(1, 1))
    );
}

#[test]
fn cmd_27_the_co_is_the_head_of_the_order_of_battle_then_the_highest_survivor() {
    let sc = basic(10.0)
        .hq(0, 2, "division", "average", 8, Some(1), (140.0, 20.0))
        .hq(0, 3, "brigade", "exceptional", 8, Some(2), (160.0, 20.0));
    let b = sc.command(vec![], &[]);
    assert_eq!(command::commanding_officer(&b.ctx(), 0), Some(h(0, 1)));
    let s = with_state(&b, |s| {
        s.pieces.get_mut(&h(0, 1)).unwrap().knocked_out = true
    });
    assert_eq!(
        command::commanding_officer(&ctx_of(&b, &s), 0),
        Some(h(0, 2))
    );
}

#[test]
fn cmd_28_a_knocked_out_command_unit_is_replaced_once_at_minus_one() {
    let mut b = basic(10.0).command(vec![3, 3], &[]);
    b.perform(Action::RemoveUnit {
        piece: h(0, 1),
        cause: KnockOutCause::Referee,
    })
    .expect("knocked out");
    for _ in 0..3 {
        b.perform(Action::EndPhase).expect("phases");
    }
    // Side 1's turn: not yet.
    assert_eq!(b.state().turn.active, 1);
    refused(
        &mut b,
        Action::ReplaceCommand {
            piece: h(0, 1),
            at: pose(100.0, 20.0, 0.0),
        },
        "CMD-28",
    );
    for _ in 0..4 {
        b.perform(Action::EndPhase).expect("phases");
    }
    assert_eq!(
        (b.state().turn.active, b.state().turn.phase),
        (0, Phase::Initiative)
    );
    // Not off the table, not within 5 cm of an enemy unit.
    refused(
        &mut b,
        Action::ReplaceCommand {
            piece: h(0, 1),
            at: pose(-5.0, 20.0, 0.0),
        },
        "CMD-28",
    );
    refused(
        &mut b,
        Action::ReplaceCommand {
            piece: h(0, 1),
            at: pose(100.0, 146.0, 0.0),
        },
        "CMD-28",
    );
    let ev = b
        .perform(Action::ReplaceCommand {
            piece: h(0, 1),
            at: pose(100.0, 20.0, 0.0),
        })
        .expect("replaced")
        .to_vec();
    assert_eq!(
        ev,
        vec![Event::CommandReplaced {
            piece: h(0, 1),
            at: pose(100.0, 20.0, 0.0),
            player_turn: 3
        }]
    );
    b.perform(Action::EndPhase).expect("to command");
    // That turn it may not issue orders or move.
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Deploy)],
        },
        "CMD-28",
    );
    // Its value is −1 for the rest of the game.
    let m = command::order_modifiers(&b.ctx(), h(0, 1), &[ou(u(0, 1), UnitActionKind::Deploy)])
        .expect("mods");
    assert!(m.iter().any(|x| x.rule == "CMD-28" && x.value == -1));
    // The breakpoint test uses the replaced value too (BRK-02).
    assert_eq!(
        powderhorn::rules::endphase::break_test_commander(&b.ctx(), 0),
        Some((h(0, 1), 6))
    );
    assert_eq!(b.replay_events(), *b.state());
}

// --- FIRE-06, FIRE-30 .. FIRE-33 ---------------------------------------------------------------------

#[test]
fn fire_06_targets_are_declared_with_the_order() {
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 31.5), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 2, (98.0, 37.0), 180.0)
        .unit_under(1, 2, 1, AUS_LINE, 2, (103.0, 37.0), 180.0);
    let mut b = sc.command(vec![3, 3, 1, 1, 1, 1], &[]);
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Fire)],
        },
        "FIRE-06",
    );
    let at = |t| OrderedUnit {
        target: Some(t),
        ..ou(u(0, 1), UnitActionKind::Fire)
    };
    order(&mut b, h(0, 1), vec![at(u(1, 1))]).expect("declared");
    refused(
        &mut b,
        Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 2),
            ammunition: None,
        },
        "FIRE-06",
    );
    fire(&mut b, &[u(0, 1)], u(1, 1)).expect("the declared target");
}

/// A French unit moves 5 cm towards an Austrian line (its front 10.0 cm from the French end
/// point); the Austrians watch.
fn opportunity() -> Sc {
    nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (60.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 60.0), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 75.0), 180.0)
        .unit_under(1, 2, 1, AUS_LINE, 4, (140.0, 75.0), 180.0)
}

#[test]
fn fire_30_fire_31_opportunity_fire_stops_a_mover_then_it_finishes_its_move() {
    let mut b = opportunity().command(vec![3, 3, 1, 1, 1, 1], &[]);
    // Before anything moved, nothing may be fired at (FIRE-31).
    refused(
        &mut b,
        Action::OpportunityFire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            at: None,
        },
        "FIRE-31",
    );
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("order");
    mv(&mut b, u(0, 1), pose(100.0, 65.0, 0.0)).expect("the move");
    // Stopped at (100, 63): 12 cm from the Austrians — beyond 10 cm, so the fire is wasted.
    let ev = b
        .perform(Action::OpportunityFire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            at: Some(Point::new(100.0, 63.0)),
        })
        .expect("declared")
        .to_vec();
    assert_eq!(ev.len(), 4, "{ev:?}");
    assert_eq!(
        ev[0],
        Event::OpportunityFireDeclared {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            player_turn: 1,
            at: Some(pose(100.0, 63.0, 0.0)),
        }
    );
    assert_eq!(
        ev[1],
        Event::MoveInterrupted {
            piece: u(0, 1),
            from: pose(100.0, 65.0, 0.0),
            at: pose(100.0, 63.0, 0.0)
        }
    );
    assert!(matches!(&ev[2], Event::NoEffect { rule, .. } if rule == "FIRE-32"));
    assert_eq!(
        ev[3],
        Event::MoveResumed {
            piece: u(0, 1),
            from: pose(100.0, 63.0, 0.0),
            to: pose(100.0, 65.0, 0.0)
        }
    );
    assert_eq!(
        b.entries().last().unwrap().dice_used,
        0,
        "no dice for wasted fire"
    );
    // Once per enemy turn.
    refused(
        &mut b,
        Action::OpportunityFire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            at: None,
        },
        "FIRE-30",
    );
    // Another unit, at the end of the move: in range (10.0 cm? no — 10 cm from u(1,2)? it is
    // 40 cm to the side: wasted as well); a point not on the path is refused.
    refused(
        &mut b,
        Action::OpportunityFire {
            firers: vec![u(1, 2)],
            target: u(0, 1),
            at: Some(Point::new(90.0, 63.0)),
        },
        "FIRE-31",
    );
    // Fire at the end point: 10.0 cm, in range: 4 dice, all miss.
    let ev = b
        .perform(Action::OpportunityFire {
            firers: vec![u(1, 2)],
            target: u(0, 1),
            at: None,
        })
        .map(<[Event]>::to_vec);
    assert!(ev.is_ok(), "{ev:?}");
}

#[test]
fn fire_32_opportunity_fire_costs_initiative_and_minus_one_next_turn() {
    let mut b = opportunity().command(vec![3, 3, 1, 1, 1, 1, 3, 3], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("order");
    mv(&mut b, u(0, 1), pose(100.0, 65.0, 0.0)).expect("the move");
    b.perform(Action::OpportunityFire {
        firers: vec![u(1, 1)],
        target: u(0, 1),
        at: None,
    })
    .expect("opportunity fire at the end of the move");
    for _ in 0..3 {
        b.perform(Action::EndPhase).expect("phases");
    }
    assert_eq!(
        (b.state().turn.active, b.state().turn.phase),
        (1, Phase::Initiative)
    );
    // The French are 8.5 cm away: the Austrians could deploy on initiative, but not this one.
    refused(
        &mut b,
        Action::Deploy {
            piece: u(1, 1),
            formation: Formation::Square,
        },
        "INIT-03",
    );
    b.perform(Action::EndPhase).expect("to command");
    let ev = order(&mut b, h(1, 1), vec![ou(u(1, 1), UnitActionKind::Deploy)]).expect("order");
    assert!(mods(&ev).contains(&("FIRE-32".to_string(), -1)), "{ev:?}");
}

#[test]
fn fire_33_no_opportunity_fire_at_a_charger() {
    let mut b = opportunity().command(vec![3, 3], &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("order");
    mv(&mut b, u(0, 1), pose(100.0, 65.0, 0.0)).expect("the move");
    let s = with_state(&b, |s| {
        s.pieces.get_mut(&u(0, 1)).unwrap().orders.last_kind = Some(UnitActionKind::Charge);
    });
    let mut dice = powderhorn::rules::dice::ScriptedDice::new(vec![]).unwrap();
    let e =
        command::resolve_opportunity_fire(&ctx_of(&b, &s), &[u(1, 1)], u(0, 1), None, &mut dice)
            .unwrap_err();
    assert!(e.to_string().starts_with("FIRE-33"), "{e}");
}

// --- modes, replay -----------------------------------------------------------------------------------

#[test]
fn cmd_03_free_orders_mode_lets_units_act_and_refuses_engine_orders() {
    let mut b = Battle::new(
        basic(10.0).scenario(),
        lists(),
        DiceSource::Script(vec![]),
        0,
    )
    .expect("setup")
    .with_orders(OrdersMode::Free);
    b.perform(Action::EndPhase).expect("start");
    b.perform(Action::EndPhase).expect("command");
    deploy(&mut b, u(0, 1), Formation::MarchColumn).expect("free: no order needed");
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Deploy)],
        },
        "CMD-03",
    );
}

fn scripted_game(seed: u64) -> Battle {
    let sc = opportunity();
    let mut b = Battle::new(sc.scenario(), lists(), DiceSource::Seed(seed), 0).expect("setup");
    let actions = vec![
        Action::EndPhase,
        Action::EndPhase,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Move)],
        },
        Action::Move {
            piece: u(0, 1),
            via: vec![],
            to: pose(100.0, 65.0, 0.0),
            manoeuvre: Default::default(),
        },
        Action::OpportunityFire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            at: Some(Point::new(100.0, 64.0)),
        },
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(u(0, 1), UnitActionKind::Deploy)],
        },
        Action::EndPhase,
        Action::EndPhase,
        Action::EndPhase,
    ];
    for a in actions {
        // Some may be refused by the dice (a failed order, a suppressed mover): that is part of
        // the replay too.
        let _ = b.perform(a);
    }
    b
}

#[test]
fn cmd_03_fire_30_replay_same_actions_and_dice_give_the_same_events() {
    for seed in [1_u64, 7, 42, 1809] {
        let a = scripted_game(seed);
        let b = scripted_game(seed);
        assert_eq!(a.entries(), b.entries(), "seed {seed}");
        assert_eq!(
            a.replay_events(),
            *a.state(),
            "seed {seed}: events fold to the state"
        );
        // The log survives JSON.
        let text = serde_json::to_string(a.log()).expect("serializes");
        let back: powderhorn::rules::BattleLog = serde_json::from_str(&text).expect("parses");
        assert_eq!(&back, a.log());
        // Undo and redo keep the state.
        let mut c = scripted_game(seed);
        let state = c.state().clone();
        while c.undo() {}
        while c.redo() {}
        assert_eq!(c.state(), &state);
    }
}

#[test]
fn fire_31_a_suppressed_mover_stops_where_it_was_fired_at() {
    // X retires 6 cm from 9 cm in front of the Austrians; stopped at 10 cm and suppressed.
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 50.0))
        .hq(1, 1, "brigade", "average", 7, None, (60.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 66.0), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 75.0), 180.0);
    let mut dice = vec![3, 3, 6, 6, 6, 6];
    dice.extend([1; 6]);
    dice.extend([6, 1, 1, 1]);
    dice.extend([1; 10]);
    let mut b = sc.command(dice, &[]);
    order(&mut b, h(0, 1), vec![ou(u(0, 1), UnitActionKind::Move)]).expect("order");
    b.perform(Action::Move {
        piece: u(0, 1),
        via: vec![],
        to: pose(100.0, 60.0, 0.0),
        manoeuvre: powderhorn::rules::Manoeuvre::Retire,
    })
    .expect("the retire");
    let ev = b
        .perform(Action::OpportunityFire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            at: Some(Point::new(100.0, 65.0)),
        })
        .expect("opportunity fire")
        .to_vec();
    assert!(
        ev.contains(&Event::Suppressed {
            piece: u(0, 1),
            player_turn: 1
        }),
        "{ev:#?}"
    );
    assert!(!ev.iter().any(|e| matches!(e, Event::MoveResumed { .. })));
    assert_eq!(
        b.state().piece(u(0, 1)).unwrap().pose,
        Some(pose(100.0, 65.0, 0.0))
    );
    assert_eq!(b.replay_events(), *b.state());
}

#[test]
fn fire_25_no_fall_back_test_for_a_second_hit_under_the_same_order() {
    // A and B, ordered together to fire at T; A's fire suppresses T, B's hits it again.
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 50.0))
        .hq(1, 1, "brigade", "average", 7, None, (60.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (95.0, 66.0), 0.0)
        .unit_under(0, 2, 1, FR_LINE, 4, (106.0, 66.0), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 4, (100.0, 72.0), 180.0);
    let mut dice = vec![3, 3, 6, 6, 6, 6];
    dice.extend([1; 5]);
    dice.extend([6, 1, 1, 1]);
    dice.extend([6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    let mut b = sc.command(dice, &[]);
    let at_t = |p| OrderedUnit {
        target: Some(u(1, 1)),
        ..ou(p, UnitActionKind::Fire)
    };
    order(&mut b, h(0, 1), vec![at_t(u(0, 1)), at_t(u(0, 2))]).expect("order");
    let first = fire(&mut b, &[u(0, 1)], u(1, 1)).expect("A fires");
    assert!(
        first.contains(&Event::SuppressedByOrder {
            piece: u(1, 1),
            order: 0
        }),
        "{first:#?}"
    );
    let second = fire(&mut b, &[u(0, 2)], u(1, 1)).expect("B fires");
    assert!(
        second
            .iter()
            .any(|e| matches!(e, Event::NoEffect { rule, .. } if rule == "FIRE-25")),
        "{second:#?}"
    );
}

#[test]
fn cmd_07_not_in_two_successive_own_turns() {
    let sc = basic(40.0).area("high_area", (80.0, 30.0, 120.0, 50.0));
    let b = sc.command(vec![3, 4], &[]);
    // It gave itself an order in its previous own player turn (two player turns ago).
    let s = with_state(&b, |s| {
        s.turn.player_turn = 3;
        s.pieces.get_mut(&u(0, 1)).unwrap().orders.self_ordered_in = Some(1);
    });
    let mut dice = powderhorn::rules::dice::ScriptedDice::new(vec![3, 4]).unwrap();
    let e = command::resolve_self_order(&ctx_of(&b, &s), u(0, 1), &mut dice).unwrap_err();
    assert!(e.to_string().starts_with("CMD-07"), "{e}");
    assert!(e.to_string().contains("every second turn"), "{e}");
}

#[test]
fn fire_30_free_orders_opportunity_fire_at_any_active_unit() {
    let mut b = Battle::new(
        opportunity().scenario(),
        lists(),
        DiceSource::Script(vec![1; 8]),
        0,
    )
    .expect("setup")
    .with_orders(OrdersMode::Free);
    b.perform(Action::EndPhase).expect("start");
    b.perform(Action::EndPhase).expect("command");
    mv(&mut b, u(0, 1), pose(100.0, 65.0, 0.0)).expect("a free move");
    let ev = b
        .perform(Action::OpportunityFire {
            firers: vec![u(1, 1)],
            target: u(0, 1),
            at: None,
        })
        .expect("opportunity fire")
        .to_vec();
    assert!(matches!(
        ev.first(),
        Some(Event::OpportunityFireDeclared { .. })
    ));
    // The point of a move needs the orders' record of it.
    refused(
        &mut b,
        Action::OpportunityFire {
            firers: vec![u(1, 2)],
            target: u(0, 1),
            at: Some(Point::new(100.0, 63.0)),
        },
        "FIRE-31",
    );
}

#[test]
fn init_03_a_unit_in_base_contact_with_an_enemy_takes_no_initiative_action() {
    // E1's front edge touches I's front edge.
    let mut b = we18(pose(100.0, 95.0, 180.0)).initiative(vec![], &[]);
    refused(
        &mut b,
        Action::Deploy {
            piece: u(0, 1),
            formation: Formation::Square,
        },
        "INIT-03",
    );
}

#[test]
fn cmd_23_command_units_are_not_ordered_and_never_fire() {
    let mut b = basic(10.0).command(vec![], &[]);
    refused(
        &mut b,
        Action::IssueOrder {
            command: h(0, 1),
            units: vec![ou(h(0, 1), UnitActionKind::Move)],
        },
        "CMD-23",
    );
}

#[test]
fn cmd_16_cmd_30_an_ordered_unit_fires_at_any_visible_enemy_with_every_stand() {
    // Two Austrian units ahead, 5.0 and 8.0 cm away: the order may name the farther one; the
    // unit command stand is a combat stand, so 4 stands roll 4 dice.
    let sc = nap_sc()
        .hq(0, 1, "brigade", "average", 7, None, (100.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (60.0, 180.0))
        .unit_under(0, 1, 1, FR_LINE, 4, (100.0, 31.5), 0.0)
        .unit_under(1, 1, 1, AUS_LINE, 2, (97.0, 36.5), 180.0)
        .unit_under(1, 2, 1, AUS_LINE, 2, (103.5, 39.5), 180.0);
    let mut b = sc.command(vec![3, 3, 1, 1, 1, 1], &[]);
    let far = OrderedUnit {
        target: Some(u(1, 2)),
        ..ou(u(0, 1), UnitActionKind::Fire)
    };
    order(&mut b, h(0, 1), vec![far]).expect("order");
    let ev = fire(&mut b, &[u(0, 1)], u(1, 2)).expect("fire at the farther unit");
    let dice = ev.iter().find_map(|e| match e {
        Event::DiceRolled { purpose, dice, .. } if purpose == "to hit" => Some(dice.len()),
        _ => None,
    });
    assert_eq!(dice, Some(4), "{ev:#?}");
}
