//! Field Artillery Officers as command units (catalogue ART-10, with ARMY-13, CMD-27, VP-01,
//! BRK-01 and the Austrian ruling): the `fao` flag of an HQ, the FAO's stat line and cost, its
//! orders (only a grand battery firing at one target), and scenario validation.
//!
//! Battles run through `Battle::perform` under the full orders rules with scripted dice, in the
//! scenario-builder style of `tests/engine_command.rs`. Every refusal names its rule and changes
//! nothing.
//!
//! Geometry reminders: a pose is the centre of the front edge; facing 0 looks towards +y. An
//! artillery stand is 2.5 × 2.5 cm, a command stand 3 × 3.

use powderhorn::model::validate::{validate_scenario, Subject};
use powderhorn::model::{CommandLevel, HqId, Quality, Scenario, UnitId};
use powderhorn::rules::artillery::Ammunition;
use powderhorn::rules::command::{
    commanding_officer, OrderOutcome, OrderRoll, OrderedUnit, UnitAct, UnitActionKind,
};
use powderhorn::rules::event::{KnockOutCause, Modifier};
use powderhorn::rules::{Action, Battle, BattleState, Ctx, DiceSource, Event, PieceId};
use serde_json::json;

// --- scenario builder (tests/support/builder.rs) ------------------------------------------------

#[path = "support/builder.rs"]
mod builder;
#[path = "support/refuse.rs"]
mod refuse;
use builder::{h, lists, u, Sc, AUS_LINE, FR_LINE};

/// This file's tables: no HQs until added, 1809.
fn new_sc(list0: &str, list1: &str) -> Sc {
    Sc::bare(list0, list1)
        .named("fao-test", "FAO test")
        .year(1809)
}

impl Sc {
    /// Full orders, side 0's Command phase of turn 1.
    fn command(&self, dice: Vec<u8>) -> Battle {
        let mut b = Battle::new(self.scenario(), lists(), DiceSource::Script(dice), 0)
            .expect("the test battle sets up");
        b.perform(Action::EndPhase).expect("deployment ends");
        b.perform(Action::EndPhase).expect("to the Command phase");
        b
    }
}

fn fire_at(piece: PieceId, target: PieceId) -> OrderedUnit {
    OrderedUnit {
        piece,
        action: UnitActionKind::Fire,
        target: Some(target),
        road: false,
        dense: false,
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

use refuse::refused;

fn ctx_of<'a>(b: &'a Battle, s: &'a BattleState) -> Ctx<'a> {
    Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: s,
        sight: None,
    }
}

const GUN: &str = "field-artillery";

/// The French: a CO (Average Brigade HQ, value 7) at (20, 20); an FAO (HQ 2, its commander
/// written as a Good Division HQ of value 9 to show the FAO line wins) just behind guns 1–3,
/// which touch in a row at x = 50, 52.5, 55; guns 4–6 apart; a line battalion (7). The
/// Austrians: a CO, a line battalion (1) 40 cm in front of the battery, another (2) beside it.
fn battery() -> Sc {
    new_sc("nap-french", "nap-austrian")
        .hq(0, 1, "brigade", "average", 7, None, (20.0, 20.0))
        .hq(0, 2, "division", "good", 9, Some(1), (52.5, 14.0))
        .fao(0, 2)
        .unit_under(0, 1, 2, GUN, 1, (50.0, 20.0), 0.0)
        .unit_under(0, 2, 2, GUN, 1, (52.5, 20.0), 0.0)
        .unit_under(0, 3, 2, GUN, 1, (55.0, 20.0), 0.0)
        .unit_under(0, 4, 2, GUN, 1, (80.0, 20.0), 0.0)
        .unit_under(0, 5, 2, GUN, 1, (100.0, 20.0), 0.0)
        .unit_under(0, 6, 2, GUN, 1, (120.0, 20.0), 0.0)
        .unit_under(0, 7, 1, FR_LINE, 4, (25.0, 30.0), 0.0)
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0))
        .unit_under(1, 1, 1, AUS_LINE, 4, (52.5, 60.0), 180.0)
        .unit_under(1, 2, 1, AUS_LINE, 4, (80.0, 60.0), 180.0)
}

fn order(command: PieceId, units: Vec<OrderedUnit>) -> Action {
    Action::IssueOrder { command, units }
}

// --- the FAO piece: stat line, cost, never the CO -----------------------------------------------

#[test]
fn art_10_an_fao_fights_on_the_average_brigade_hq_line_and_costs_55() {
    use powderhorn::model::points::hq_points;
    use powderhorn::rules::victory::piece_points;
    let b = battery().command(vec![]);
    let c = b.ctx();
    let fao = c.piece(h(0, 2)).expect("the FAO is a piece");
    assert_eq!(
        fao.command,
        Some((CommandLevel::Brigade, Quality::Average)),
        "ART-10 ruling: the Average Brigade HQ line, whatever the commander is written as"
    );
    assert_eq!(
        powderhorn::rules::command::command_value(&c, h(0, 2)),
        Some((7, false))
    );
    let side = &b.scenario().sides[0];
    let french = c.list(0).expect("list");
    assert_eq!(hq_points(&side.hqs[1], french), 55);
    assert_eq!(piece_points(&c, h(0, 2)), 55, "VP-01: 55 when knocked out");
    assert!(h(0, 2).is_command(), "a command unit everywhere else");
    assert_eq!(
        powderhorn::model::points::breakpoint(side),
        4,
        "BRK-01: 7 units, the CO and the FAO excluded"
    );
}

#[test]
fn art_10_cmd_27_an_fao_is_never_the_co() {
    let b = battery().command(vec![]);
    assert_eq!(commanding_officer(&b.ctx(), 0), Some(h(0, 1)));
    // The CO knocked out: the FAO, the only survivor, does not succeed him.
    let mut s = b.state().clone();
    if let Some(p) = s.pieces.get_mut(&h(0, 1)) {
        p.knocked_out = true;
    }
    assert_eq!(commanding_officer(&ctx_of(&b, &s), 0), None);
    // An FAO written at the head of the order of battle is not the CO either.
    let mut sc = battery().scenario();
    sc.sides[0].hqs[0].fao = true;
    sc.sides[0].hqs[1].fao = false;
    assert_eq!(sc.sides[0].co(), None);
}

// --- orders -----------------------------------------------------------------------------------------

#[test]
fn art_10_an_fao_orders_a_grand_battery_to_fire_at_one_target() {
    let mut b = battery().command(vec![3, 3]);
    let units = vec![
        fire_at(u(0, 1), u(1, 1)),
        fire_at(u(0, 2), u(1, 1)),
        fire_at(u(0, 3), u(1, 1)),
    ];
    let a = order(h(0, 2), units.clone());
    let ev = b.perform(a).expect("the grand battery's order").to_vec();
    assert_eq!(
        ev,
        vec![
            Event::DiceRolled {
                piece: Some(h(0, 2)),
                purpose: "command roll".into(),
                rule: "CMD-03".into(),
                dice: vec![3, 3],
                modifiers: vec![],
            },
            Event::OrderRolled(OrderRoll {
                order: 0,
                command: h(0, 2),
                co: false,
                units,
                value: 7,
                target: 7,
                total: 6,
                outcome: OrderOutcome::Success,
            }),
        ]
    );
}

#[test]
fn art_10_an_fao_orders_nothing_but_a_grand_battery() {
    let mut b = battery().command(vec![]);
    let fao = h(0, 2);
    // Not artillery.
    let a = order(fao, vec![fire_at(u(0, 7), u(1, 1))]);
    let msg = refused(&mut b, a, "ART-10");
    assert!(msg.contains("only artillery"), "{msg}");
    let a = order(
        fao,
        vec![fire_at(u(0, 1), u(1, 1)), fire_at(u(0, 7), u(1, 1))],
    );
    refused(&mut b, a, "ART-10");
    // Artillery, but not to fire.
    let a = order(
        fao,
        vec![
            ou(u(0, 1), UnitActionKind::Move),
            ou(u(0, 2), UnitActionKind::Move),
        ],
    );
    let msg = refused(&mut b, a, "ART-10");
    assert!(msg.contains("grand battery"), "{msg}");
    // One gun is no grand battery.
    let a = order(fao, vec![fire_at(u(0, 1), u(1, 1))]);
    let msg = refused(&mut b, a, "ART-10");
    assert!(msg.contains("two or more"), "{msg}");
    // Guns that do not touch.
    let a = order(
        fao,
        vec![fire_at(u(0, 1), u(1, 1)), fire_at(u(0, 4), u(1, 1))],
    );
    let msg = refused(&mut b, a, "ART-10");
    assert!(msg.contains("does not touch"), "{msg}");
    // Two targets.
    let a = order(
        fao,
        vec![fire_at(u(0, 1), u(1, 1)), fire_at(u(0, 2), u(1, 2))],
    );
    let msg = refused(&mut b, a, "ART-10");
    assert!(msg.contains("one target"), "{msg}");
    // No declared target.
    let a = order(
        fao,
        vec![fire_at(u(0, 1), u(1, 1)), ou(u(0, 2), UnitActionKind::Fire)],
    );
    refused(&mut b, a, "ART-10");
    // The CO may still order a single gun to move (ordinary HQs are unaffected).
    let mut b = battery().command(vec![3, 3]);
    let a = order(h(0, 1), vec![ou(u(0, 4), UnitActionKind::Move)]);
    b.perform(a).expect("the CO orders any unit");
}

#[test]
fn art_10_cmd_17_a_gun_under_an_fao_order_only_fires_even_with_a_bonus() {
    // [1, 1]: a command bonus, a second action free of its declaration (CMD-17).
    let mut b = battery().command(vec![1, 1]);
    let units = vec![fire_at(u(0, 1), u(1, 1)), fire_at(u(0, 2), u(1, 1))];
    let a = order(h(0, 2), units);
    let ev = b.perform(a).expect("order").to_vec();
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::OrderRolled(OrderRoll {
            outcome: OrderOutcome::Bonus,
            ..
        })
    )));
    let msg = refused(&mut b, Action::Limber { piece: u(0, 1) }, "ART-10");
    assert!(msg.contains("may only fire"), "{msg}");
}

// --- scenario validation ------------------------------------------------------------------------

fn fao_violations(sc: &Scenario) -> Vec<String> {
    validate_scenario(sc, &lists())
        .into_iter()
        .filter(|v| v.rule == "ART-10")
        .map(|v| v.message)
        .collect()
}

#[test]
fn art_10_army_13_one_fao_per_six_artillery_units_validated() {
    // Six guns, one FAO: lawful. The FAO reports to a brigade-level CO: an FAO stands outside
    // the ranks of HQs (no ARMY-08), and is not counted among the brigade HQs (ARMY-06).
    assert_eq!(fao_violations(&battery().scenario()), Vec::<String>::new());
    let others: Vec<_> = validate_scenario(&battery().scenario(), &lists())
        .into_iter()
        .filter(|v| v.subject == Subject::Hq(0, HqId(2)) || v.rule == "ARMY-06")
        .map(|v| v.to_string())
        .collect();
    assert_eq!(others, Vec::<String>::new());
    // A second FAO with six guns: one too many.
    let sc = battery()
        .hq(0, 3, "brigade", "average", 7, Some(1), (80.0, 14.0))
        .fao(0, 3);
    let v = fao_violations(&sc.scenario());
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(
        v[0].contains("2 Field Artillery Officers and 6 artillery units"),
        "{v:?}"
    );
    // Five guns: none allowed.
    let mut s = battery().scenario();
    s.sides[0].units.retain(|u| u.id != UnitId(6));
    let v = fao_violations(&s);
    assert_eq!(v.len(), 1, "{v:?}");
    // An FAO at the head of the order of battle.
    let mut s = battery().scenario();
    s.sides[0].hqs[1].parent = None;
    s.sides[0].hqs[0].parent = Some(HqId(2));
    let v = fao_violations(&s);
    assert!(
        v.iter()
            .any(|m| m.contains("never be the commanding officer")),
        "{v:?}"
    );
}

#[test]
fn art_10_an_austrian_command_fields_no_fao() {
    let mut sc = new_sc("nap-austrian", "nap-french")
        .hq(0, 1, "brigade", "average", 7, None, (20.0, 20.0))
        .hq(0, 2, "brigade", "average", 7, Some(1), (52.5, 14.0))
        .fao(0, 2);
    for i in 0..6 {
        sc = sc.unit_under(0, i + 1, 1, GUN, 1, (50.0 + 10.0 * f64::from(i), 20.0), 0.0);
    }
    let v = fao_violations(&sc.scenario());
    assert_eq!(v.len(), 1, "{v:?}");
    assert!(v[0].contains("no Field Artillery Officers"), "{v:?}");
}

// --- the file format and the store --------------------------------------------------------------

#[test]
fn art_10_the_fao_flag_is_optional_in_scenario_files_and_round_trips_the_store() {
    let s = battery().scenario();
    assert!(s.sides[0].hqs[1].fao);
    assert!(!s.sides[0].hqs[0].fao, "absent means an ordinary HQ");
    let text = serde_json::to_value(&s).expect("serialises");
    assert_eq!(text["sides"][0]["hqs"][1]["fao"], json!(true));
    assert!(
        text["sides"][0]["hqs"][0].get("fao").is_none(),
        "an ordinary HQ writes no fao key (older readers load it)"
    );
    let mut store = powderhorn::store::Store::open_in_memory().expect("store");
    store.save_scenario(&s).expect("save");
    assert_eq!(store.load_scenario(&s.id).expect("load"), s);
}

#[test]
fn art_10_fire_06_the_grand_battery_fires_under_its_fao_order() {
    // [3, 3]: the order; [6, 6]: one die per gun to hit; the Austrian saves [1, 1, 1] fail;
    // then suppression dice of 1.
    let mut b = battery().command(vec![3, 3, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    let units = vec![fire_at(u(0, 1), u(1, 1)), fire_at(u(0, 2), u(1, 1))];
    b.perform(order(h(0, 2), units)).expect("order");
    // FIRE-06: the declared target only.
    refused(
        &mut b,
        Action::Fire {
            firers: vec![u(0, 1), u(0, 2)],
            target: u(1, 2),
            ammunition: None,
        },
        "FIRE-06",
    );
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1), u(0, 2)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("the grand battery fires as one")
        .to_vec();
    let acted = |unit| {
        Event::UnitActed(UnitAct {
            piece: u(0, unit),
            kind: UnitActionKind::Fire,
            order: Some(0),
            initiative: false,
            limber: false,
            trace: None,
        })
    };
    let m = |rule: &str, label: &str, value| Modifier {
        rule: rule.into(),
        label: label.into(),
        value,
    };
    assert_eq!(
        ev[..5].to_vec(),
        vec![
            acted(1),
            acted(2),
            Event::Fired {
                firers: vec![u(0, 1), u(0, 2)],
                target: u(1, 1),
                ammunition: Some(Ammunition::RoundShot),
            },
            Event::DiceRolled {
                piece: None,
                purpose: "to hit".into(),
                rule: "FIRE-14".into(),
                dice: vec![6, 6],
                modifiers: vec![
                    m("FIRE-08", "field-artillery 1: 1 stand × 1 die", 1),
                    m("FIRE-14", "field-artillery 1: hit on 4+: open", 4),
                    m("FIRE-08", "field-artillery 2: 1 stand × 1 die", 1),
                    m("FIRE-14", "field-artillery 2: hit on 4+: open", 4),
                    m("FIRE-13", "first fire of the game: +1 on each die", 1),
                ],
            },
            Event::HitsScored {
                target: u(1, 1),
                hits: 2,
                needed: 4,
            },
        ]
    );
}

#[test]
fn art_10_brk_01_vp_01_a_knocked_out_fao_is_worth_55_and_no_unit_lost() {
    use powderhorn::rules::victory::vp_earned;
    let mut b = battery().command(vec![]);
    b.perform(Action::RemoveUnit {
        piece: h(0, 2),
        cause: KnockOutCause::Referee,
    })
    .expect("the referee removes the FAO");
    let s = &b.state().sides[0];
    assert_eq!(
        (s.units_lost, s.breakpoint),
        (0, 4),
        "BRK-01: a command unit"
    );
    assert_eq!(vp_earned(&b.ctx(), 1), 55, "VP-01: the FAO's 55 points");
    assert_eq!(
        commanding_officer(&b.ctx(), 0),
        Some(h(0, 1)),
        "the CO is unchanged"
    );
}

#[test]
fn art_10_the_fao_label_shows_its_brigade_hq_line() {
    use powderhorn::export::{bptc_label_contents, LabelOptions};
    let labels = bptc_label_contents(&battery().scenario(), &lists(), &LabelOptions::default())
        .expect("labels");
    let fao = labels
        .iter()
        .find(|l| l.fields.get("formation").map(String::as_str) == Some("HQ 0.2"))
        .expect("the FAO's label");
    let f = |k: &str| fao.fields.get(k).cloned().unwrap_or_default();
    assert_eq!(
        (f("level"), f("quality"), f("command"), f("presence")),
        ("FAO".into(), "Average".into(), "7".into(), "1".into())
    );
}

#[test]
fn art_10_skir_01_an_fao_is_no_brigade_hq_for_skirmisher_screens() {
    use powderhorn::rules::skirmish::screen_stands;
    // Three infantry units with the brigade-skirmisher flag under a brigade-level HQ: a screen
    // of 2 stands; the same HQ made an FAO commands no brigade and has none.
    let mut sc = new_sc("nap-french", "nap-austrian")
        .hq(0, 1, "brigade", "average", 7, None, (20.0, 20.0))
        .hq(1, 1, "brigade", "average", 7, None, (100.0, 180.0));
    for i in 0..3 {
        sc = sc.unit_under(
            0,
            i + 1,
            1,
            FR_LINE,
            4,
            (50.0 + 15.0 * f64::from(i), 28.0),
            0.0,
        );
    }
    sc.v["sides"][0]["units"][0]["brigade_skirmishers"] = json!(true);
    let b = Battle::new(sc.scenario(), lists(), DiceSource::Script(vec![]), 0).expect("battle");
    assert_eq!(screen_stands(&b.ctx(), 0, HqId(1)), 2);
    sc.v["sides"][0]["hqs"][0]["fao"] = json!(true);
    let b = Battle::new(sc.scenario(), lists(), DiceSource::Script(vec![]), 0).expect("battle");
    assert_eq!(screen_stands(&b.ctx(), 0, HqId(1)), 0);
}

#[test]
fn art_10_gen_08_the_autoplayer_orders_an_faos_guns_with_the_co() {
    use powderhorn::ai::policy::order_groups;
    let b = battery().command(vec![]);
    let groups = order_groups(&b.ctx(), 0, &Default::default());
    assert_eq!(
        groups.iter().map(|g| g.hq).collect::<Vec<_>>(),
        vec![h(0, 1)],
        "no group for the FAO"
    );
    assert_eq!(
        groups[0].units,
        (1..=7).map(|i| u(0, i)).collect::<Vec<_>>(),
        "the CO's group takes the FAO's guns"
    );
}
