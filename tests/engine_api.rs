//! The engine API (issue #16 item 1, `src/rules/api.rs`): `check`, `pending`, `options` and
//! `order_preview`, answered without a die drawn or anything changed.
//!
//! * Held against `perform` over seeded battles the solo opponent plays (Ebelsberg): at
//!   sampled states, every fire, charge and formation change `options` offers is carried out
//!   by `perform` (then undone), and every one it withholds among the candidates (fire at and
//!   charge of every enemy unit, every formation) is refused. The counts are printed and held
//!   to a floor.
//! * Golden previews on a hand-built table, worked out from the catalogue by hand.
//! * `pending` in a charge-response window.
//! * `check` draws none of the battle's dice and changes nothing.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/large_battle.rs"]
mod large_battle;

use powderhorn::ai::{autoplay, Limits};
use powderhorn::model::army::shipped_lists;
use powderhorn::model::Scenario;
use powderhorn::rules::api::{Decision, Options};
use powderhorn::rules::charge::Response;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::{Action, Battle, DiceSource, Formation, Phase, PieceId};

use builder::{ebelsberg, lists, u, Sc, AUS_LINE, FR_LINE};

// --- (a) options held against perform over seeded battles ------------------------------------

/// Seeds played (Ebelsberg, one battle each).
const SEEDS: u64 = 1_000;
/// Each seed is played for `FIRST_LOOK + (seed × 53) mod LOOK_SPREAD` actions, then looked at.
const FIRST_LOOK: u64 = 80;
const LOOK_SPREAD: u64 = 160;
/// Small hand-drawn tables looked at besides (see the test).
const SMALL_TABLES: u64 = 240;
/// Units looked at per look: the unit that acted next in the game, and on even seeds one other
/// of its side from a seed-chosen start.
fn units_per_look(seed: u64) -> usize {
    if seed.is_multiple_of(2) {
        2
    } else {
        1
    }
}

#[derive(Default)]
struct Tally {
    looks: usize,
    /// Offers accepted, by kind: fire, charge, formation change.
    by_kind: [usize; 3],
    offered: usize,
    withheld: usize,
    problems: Vec<String>,
}

/// Performs `a`: accepted (then undone, leaving the battle as it was) or refused.
fn accepted(b: &mut Battle, a: &Action) -> bool {
    match b.perform(a.clone()) {
        Ok(_) => {
            assert!(b.undo(), "an accepted action can be undone");
            true
        }
        Err(_) => false,
    }
}

/// Every fire, charge and formation change offered to `piece` is accepted; every candidate
/// withheld is refused.
fn hold(b: &mut Battle, piece: PieceId, opts: &Options, t: &mut Tally, seed: u64) {
    let enemies: Vec<PieceId> = b
        .state()
        .pieces
        .values()
        .filter(|q| q.id.side() != piece.side() && !q.id.is_command() && q.on_table())
        .map(|q| q.id)
        .collect();
    let mut candidates: Vec<(Action, bool)> = Vec::new();
    for e in &enemies {
        candidates.push((
            Action::Fire {
                firers: vec![piece],
                target: *e,
                ammunition: None,
            },
            opts.fire.iter().any(|f| f.target == *e),
        ));
        candidates.push((
            Action::Charge {
                chargers: vec![piece],
                target: *e,
                saber: false,
            },
            opts.charges.iter().any(|c| c.target == *e),
        ));
    }
    for f in Formation::ALL {
        candidates.push((
            Action::Deploy {
                piece,
                formation: f,
            },
            opts.formations.contains(&f),
        ));
    }
    for (a, offered) in candidates {
        let state = b.state().clone();
        let got = accepted(b, &a);
        if b.state() != &state {
            t.problems
                .push(format!("seed {seed}: {a:?} left the state changed"));
        }
        if offered {
            t.offered += 1;
            let k = match a {
                Action::Fire { .. } => 0,
                Action::Charge { .. } => 1,
                _ => 2,
            };
            if let Some(n) = t.by_kind.get_mut(k) {
                *n += 1;
            }
        } else {
            t.withheld += 1;
        }
        if got != offered {
            t.problems.push(format!(
                "seed {seed}, {:?} turn {}: {a:?} offered {offered}, perform accepted {got}",
                b.state().turn.phase,
                b.state().turn.game_turn
            ));
        }
    }
}

#[test]
fn options_offer_exactly_what_perform_accepts_over_seeded_battles() {
    let scenario = ebelsberg();
    let lists = lists();
    let started = std::time::Instant::now();
    let mut t = Tally::default();
    for seed in 0..SEEDS {
        let mut b = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(seed), 0)
            .expect("the sample sets up");
        let limits = Limits {
            max_actions: usize::try_from(FIRST_LOOK + (seed * 53) % LOOK_SPREAD).unwrap_or(0),
            ..Limits::default()
        };
        autoplay(&mut b, &limits);
        // The look: the table just before a unit fired, charged or changed formation (the
        // driver stops at a phase's end, so a state mid-phase is reached by undoing back to
        // it), chosen by the seed among the game's.
        let acts: Vec<(usize, PieceId)> = b
            .entries()
            .iter()
            .enumerate()
            .filter_map(|(k, e)| match &e.action {
                Action::Fire { .. } | Action::Charge { .. } | Action::Deploy { .. } => {
                    e.action.piece().map(|p| (k, p))
                }
                _ => None,
            })
            .collect();
        // Two looks in three go to a fire or charge when the game has one (they are rarer).
        let shots: Vec<(usize, PieceId)> = acts
            .iter()
            .copied()
            .filter(|(k, _)| {
                b.entries().get(*k).is_some_and(|e| {
                    matches!(e.action, Action::Fire { .. } | Action::Charge { .. })
                })
            })
            .collect();
        let pool = if !seed.is_multiple_of(3) && !shots.is_empty() {
            &shots
        } else {
            &acts
        };
        let pick = usize::try_from(seed / 3).unwrap_or(0) % pool.len().max(1);
        let Some(&(at, actor)) = pool.get(pick) else {
            continue;
        };
        while b.entries().len() > at {
            assert!(b.undo(), "undo back to the look");
        }
        t.looks += 1;
        let side = actor.side();
        let mut units: Vec<PieceId> = b
            .state()
            .pieces
            .values()
            .filter(|q| q.id.side() == side && !q.id.is_command() && q.on_table() && q.id != actor)
            .map(|q| q.id)
            .collect();
        let skip = usize::try_from(seed).unwrap_or(0) % units.len().max(1);
        units.rotate_left(skip);
        units.insert(0, actor);
        for piece in units.into_iter().take(units_per_look(seed)) {
            let opts = b.options(piece).expect("the piece is in the battle");
            hold(&mut b, piece, &opts, &mut t, seed);
        }
    }
    // The large bench battle (about 300 stands a side): every fire and charge of its game,
    // looked at from the last back to the first by undoing.
    {
        let lists = shipped_lists().expect("the shipped lists parse");
        let mut b = Battle::new(
            large_battle::large_scenario(),
            lists,
            DiceSource::Seed(large_battle::SEED),
            0,
        )
        .expect("the large battle sets up");
        autoplay(&mut b, &Limits::default());
        let shots: Vec<(usize, PieceId)> = b
            .entries()
            .iter()
            .enumerate()
            .filter_map(|(k, e)| match &e.action {
                Action::Fire { .. } | Action::Charge { .. } => e.action.piece().map(|p| (k, p)),
                _ => None,
            })
            .collect();
        for (at, actor) in shots.into_iter().rev() {
            while b.entries().len() > at {
                assert!(b.undo(), "undo back to the look");
            }
            t.looks += 1;
            let opts = b.options(actor).expect("the piece is in the battle");
            hold(&mut b, actor, &opts, &mut t, large_battle::SEED);
        }
    }
    // Small tables drawn by seed (Command phase, orders free): French foot in line and in
    // attack column against Austrian lines at 3-28 cm, facings at random: the charges and
    // fire the Ebelsberg games rarely reach.
    for seed in 0..SMALL_TABLES {
        let mut g = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let mut next = |lo: f64, hi: f64| {
            g = g
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            lo + (hi - lo) * ((g >> 11) as f64 / (1u64 << 53) as f64)
        };
        let units = [
            (0, 1, FR_LINE, 4, 90.0, 80.0, 0.0),
            (0, 2, FR_LINE, 4, 115.0, 80.0, 0.0),
            (
                1,
                1,
                AUS_LINE,
                5,
                next(75.0, 130.0),
                80.0 + next(3.0, 28.0),
                next(90.0, 270.0),
            ),
            (
                1,
                2,
                AUS_LINE,
                5,
                next(75.0, 130.0),
                80.0 + next(3.0, 28.0),
                next(0.0, 360.0),
            ),
        ];
        let Ok(mut b) = Battle::new(table(&units), lists.clone(), DiceSource::Seed(seed), 0)
            .map(|b| b.with_orders(OrdersMode::Free))
        else {
            continue;
        };
        let setup = [
            (u(0, 2), Formation::MarchColumn),
            (u(0, 2), Formation::AttackColumn),
        ];
        if setup.iter().any(|(piece, formation)| {
            b.perform(Action::Deploy {
                piece: *piece,
                formation: *formation,
            })
            .is_err()
        }) || b.perform(Action::EndPhase).is_err()
            || b.perform(Action::EndPhase).is_err()
        {
            continue;
        }
        t.looks += 1;
        for piece in [u(0, 1), u(0, 2)] {
            let opts = b.options(piece).expect("the piece is in the battle");
            hold(&mut b, piece, &opts, &mut t, seed);
        }
    }
    eprintln!(
        "engine API vs perform: {SEEDS} seeds, the large battle and {SMALL_TABLES} small tables, {} looks, {} offers accepted (fire, charge, formation: {:?}), {} withheld refused, {:.1} s",
        t.looks,
        t.offered,
        t.by_kind,
        t.withheld,
        started.elapsed().as_secs_f64()
    );
    assert!(
        t.problems.is_empty(),
        "{} disagreements, first: {:?}",
        t.problems.len(),
        t.problems.iter().take(5).collect::<Vec<_>>()
    );
    assert!(t.looks >= 1_200, "only {} looks", t.looks);
    assert!(
        t.by_kind.iter().all(|n| *n >= 50),
        "offers by kind {:?}",
        t.by_kind
    );
    assert!(t.offered >= 300, "only {} offers checked", t.offered);
    assert!(t.withheld >= 20_000, "only {} withheld checked", t.withheld);
}

// --- a hand-built table -------------------------------------------------------------------------

/// Napoleonic French against Austrians, 1809, open ground; each side's brigade HQ off table.
fn table(units: &[(usize, u32, &str, u8, f64, f64, f64)]) -> Scenario {
    let sc = Sc::nap().named("api-test", "API test");
    units
        .iter()
        .fold(sc, |sc, (side, id, troop, stands, x, y, f)| {
            sc.unit(*side, *id, troop, *stands, *x, *y, *f)
        })
        .scenario()
}

/// French line (4 stands) 5 cm in front of an Austrian line (5 stands), facing each other.
fn duel() -> Scenario {
    table(&[
        (1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0),
        (0, 1, FR_LINE, 4, 100.0, 95.0, 0.0),
    ])
}

/// The battle at side 0's Command phase of player turn 1, orders free (the referee's mode).
fn at_command(scenario: Scenario, dice: DiceSource) -> Battle {
    at_command_after(scenario, dice, &[])
}

/// [`at_command`] after these formation changes in deployment.
fn at_command_after(
    scenario: Scenario,
    dice: DiceSource,
    deploys: &[(PieceId, Formation)],
) -> Battle {
    let mut b = Battle::new(scenario, lists(), dice, 0)
        .expect("the test battle sets up")
        .with_orders(OrdersMode::Free);
    for (piece, formation) in deploys {
        b.perform(Action::Deploy {
            piece: *piece,
            formation: *formation,
        })
        .expect("the deploy is legal");
    }
    b.perform(Action::EndPhase).expect("deployment ends");
    b.perform(Action::EndPhase).expect("to the Command phase");
    assert_eq!(b.state().turn.phase, Phase::Command);
    b
}

fn rules_and_values(m: &[powderhorn::rules::event::Modifier]) -> Vec<(String, i32)> {
    m.iter().map(|m| (m.rule.clone(), m.value)).collect()
}

// --- (b) golden previews -------------------------------------------------------------------------

/// FIRE-02, FIRE-05, FIRE-08, FIRE-11, FIRE-13, FIRE-14, FIRE-17, FIRE-19, GEN-12 by hand: the
/// French line (4 stands, 1 die each, range 10 cm) 5 cm from an Austrian line in the open. All 4
/// stands fire (line, FIRE-05): 4 dice (FIRE-08), +1 as 5 cm is within half of 10 cm (FIRE-11):
/// 5 dice, hitting on 4+ in the open (FIRE-14), +1 on each die as the unit's first fire of the
/// game (FIRE-13, Napoleonic list). The Austrians save on 6+ (FIRE-17) with a line's bonus die
/// (FIRE-19) and are knocked out at 5 stands × 3 hits = 15 (GEN-12).
#[test]
fn fire_08_fire_11_fire_14_fire_19_preview_of_line_infantry_at_5_cm() {
    let b = at_command(duel(), DiceSource::Script(vec![]));
    let opts = b
        .options(u(0, 1))
        .expect("the French line is in the battle");
    assert_eq!(opts.fire.len(), 1, "one target: {:?}", opts.fire);
    let f = &opts.fire[0];
    assert_eq!(f.target, u(1, 1));
    assert!((f.distance_cm - 5.0).abs() < 1e-6, "{}", f.distance_cm);
    assert_eq!(f.stands, 4);
    let [roll] = f.preview.rolls.as_slice() else {
        panic!("one roll: {:?}", f.preview.rolls);
    };
    assert_eq!(roll.dice, 5);
    assert_eq!(roll.score, Some(4));
    assert!(roll.first_fire);
    assert_eq!(roll.rule, "FIRE-14");
    assert_eq!(
        rules_and_values(&roll.modifiers),
        vec![
            ("FIRE-08".to_string(), 4),
            ("FIRE-11".to_string(), 1),
            ("FIRE-14".to_string(), 4)
        ]
    );
    let save = f.preview.save.as_ref().expect("a save preview");
    assert_eq!((save.score, save.bonus_dice), (Some(6), 1));
    assert_eq!(
        rules_and_values(&save.modifiers),
        vec![("FIRE-17".to_string(), 6), ("FIRE-19".to_string(), 1)]
    );
    assert_eq!(f.preview.ko_threshold, Some(15));
    assert_eq!(f.preview.hits_before, Some(0));
    assert!(opts
        .kinds
        .contains(&powderhorn::rules::command::UnitActionKind::Fire));
    // What the preview says is what the fire then rolls: 5 to-hit dice needing 4 (+1).
    let mut b = at_command(
        duel(),
        DiceSource::Script(vec![6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]),
    );
    let ev = b
        .perform(Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("the fire is legal")
        .to_vec();
    let to_hit = ev.iter().find_map(|e| match e {
        powderhorn::rules::Event::DiceRolled { purpose, dice, .. } if purpose == "to hit" => {
            Some(dice.len())
        }
        _ => None,
    });
    assert_eq!(to_hit, Some(5));
}

/// FIRE-02, FIRE-11 by hand: at 7 cm (beyond half of 10 cm) the same line rolls its 4 dice only;
/// at 12 cm the Austrians are out of its 10 cm range and no fire is offered.
#[test]
fn fire_02_fire_11_preview_beyond_half_range_and_out_of_range() {
    let at = |y: f64| {
        at_command(
            table(&[
                (1, 1, AUS_LINE, 5, 100.0, 100.0, 180.0),
                (0, 1, FR_LINE, 4, 100.0, y, 0.0),
            ]),
            DiceSource::Script(vec![]),
        )
    };
    let b = at(93.0);
    let opts = b.options(u(0, 1)).expect("in the battle");
    let dice: Vec<u32> = opts
        .fire
        .iter()
        .flat_map(|f| f.preview.rolls.iter().map(|r| r.dice))
        .collect();
    assert_eq!(dice, vec![4]);
    let b = at(88.0);
    let opts = b.options(u(0, 1)).expect("in the battle");
    assert!(opts.fire.is_empty(), "{:?}", opts.fire);
    let refused = b.check(&Action::Fire {
        firers: vec![u(0, 1)],
        target: u(1, 1),
        ammunition: None,
    });
    assert!(
        matches!(&refused, Err(powderhorn::rules::ActionError::Rule(e)) if e.rule == "FIRE-02"),
        "{refused:?}"
    );
}

/// MOVE-10 by hand: a line may change to extended line, march column and square (foot, 1809),
/// never to attack column or disorder; the Austrian line of the inactive side may do nothing.
#[test]
fn move_10_options_offer_the_formation_changes_of_the_table() {
    let b = at_command(duel(), DiceSource::Script(vec![]));
    let opts = b.options(u(0, 1)).expect("in the battle");
    assert_eq!(
        opts.formations,
        vec![
            Formation::ExtendedLine,
            Formation::MarchColumn,
            Formation::Square
        ]
    );
    let theirs = b.options(u(1, 1)).expect("in the battle");
    assert!(theirs.formations.is_empty() && theirs.fire.is_empty() && theirs.charges.is_empty());
    assert!(theirs.kinds.is_empty(), "{:?}", theirs.kinds);
}

/// CMD-03, CMD-09 by hand: the order preview of the French brigade (command value 7) ordering
/// its line to fire: the target number is the value with the modifiers the roll records, and
/// the chances are counted over the 36 throws.
#[test]
fn cmd_03_order_preview_gives_the_target_and_each_modifier() {
    use powderhorn::rules::command::{OrderedUnit, UnitActionKind};
    let sc = {
        let mut s = duel();
        if let Some(h) = s.sides[0].hqs.first_mut() {
            h.position = Some(powderhorn::model::Placement {
                at: powderhorn::geom::Point::new(100.0, 85.0),
                facing_deg: 0.0,
            });
        }
        s
    };
    let mut b = Battle::new(sc, lists(), DiceSource::Seed(5), 0).expect("sets up");
    b.perform(Action::EndPhase).expect("deployment ends");
    b.perform(Action::EndPhase).expect("to the Command phase");
    let order = vec![OrderedUnit {
        piece: u(0, 1),
        action: UnitActionKind::Fire,
        target: Some(u(1, 1)),
        road: false,
        dense: false,
    }];
    let hq = PieceId::Hq {
        side: 0,
        hq: powderhorn::model::HqId(1),
    };
    let p = b.order_preview(hq, &order).expect("the order is legal");
    assert_eq!(p.value, 7);
    let sum: i32 = p.modifiers.iter().map(|m| m.value).sum();
    assert_eq!(p.target, 7 + sum);
    // The HQ is within a few cm of its unit: no distance modifier (CMD-09: up to 20 cm).
    assert!(
        p.modifiers.iter().all(|m| m.rule != "CMD-09"),
        "{:?}",
        p.modifiers
    );
    assert_eq!(p.target, 7);
    // 2D6 ≤ 7 is 21 throws of 36, double one among them; double six blunders.
    assert!((p.success - 21.0 / 36.0).abs() < 1e-12, "{}", p.success);
    assert!((p.bonus - 1.0 / 36.0).abs() < 1e-12);
    assert!((p.blunder - 1.0 / 36.0).abs() < 1e-12);
    let before = b.log().clone();
    let ev = b
        .perform(Action::IssueOrder {
            command: hq,
            units: order,
        })
        .expect("the order is rolled")
        .to_vec();
    let rolled = ev.iter().find_map(|e| match e {
        powderhorn::rules::Event::OrderRolled(r) => Some(r.target),
        _ => None,
    });
    assert_eq!(rolled, Some(p.target));
    assert_ne!(b.log(), &before);
}

// --- (c) pending in a charge-response window -----------------------------------------------------

/// INIT-09, INIT-12: after the French line infantry charges (in attack column, as its list
/// note asks), the battle waits for the Austrian side: a charge-response window on the Austrian
/// line, which may fire at its charger; every response offered is one the check accepts; once
/// closed, the combat is there to be fought.
#[test]
fn init_09_init_12_pending_in_a_charge_response_window() {
    let mut b = at_command_after(
        duel(),
        DiceSource::Seed(11),
        &[
            (u(0, 1), Formation::MarchColumn),
            (u(0, 1), Formation::AttackColumn),
        ],
    );
    let p = b.pending();
    assert_eq!((p.side, p.active, p.phase), (0, 0, Phase::Command));
    assert!(matches!(
        p.decisions.first(),
        Some(Decision::Phase {
            side: 0,
            phase: Phase::Command,
            may_end: true
        })
    ));
    let opts = b.options(u(0, 1)).expect("in the battle");
    let charge = opts
        .charges
        .iter()
        .find(|c| c.target == u(1, 1))
        .expect("the charge is offered");
    let preview = charge.preview.as_ref().expect("a first-round preview");
    assert!(!preview.rolls.is_empty(), "{preview:?}");
    b.perform(Action::Charge {
        chargers: vec![u(0, 1)],
        target: u(1, 1),
        saber: false,
    })
    .expect("the offered charge is accepted");
    let p = b.pending();
    assert_eq!(p.side, 1, "the inactive side answers");
    let window = p
        .decisions
        .iter()
        .find_map(|d| match d {
            Decision::ChargeResponse {
                side,
                target,
                chargers,
                responders,
            } => Some((*side, *target, chargers.clone(), responders.clone())),
            _ => None,
        })
        .expect("a response window");
    assert_eq!(
        (window.0, window.1, window.2.clone()),
        (1, u(1, 1), vec![u(0, 1)])
    );
    let own = window
        .3
        .iter()
        .find(|r| r.piece == u(1, 1))
        .expect("the charged unit may respond");
    assert!(
        own.responses.contains(&Response::Fire { at: u(0, 1) }),
        "{:?}",
        own.responses
    );
    for r in &window.3 {
        for response in &r.responses {
            let a = Action::Respond {
                piece: r.piece,
                target: u(1, 1),
                response: response.clone(),
            };
            assert!(b.check(&a).is_ok(), "{a:?}");
        }
    }
    b.perform(Action::CloseResponse { target: u(1, 1) })
        .expect("the window closes");
    let p = b.pending();
    assert_eq!(p.side, 0);
    assert!(
        p.decisions
            .iter()
            .any(|d| matches!(d, Decision::FightCombat { target } if *target == u(1, 1))),
        "{:?}",
        p.decisions
    );
    // The JSON a window or the CLI reads.
    let text = serde_json::to_string(&p).expect("pending serializes");
    assert!(text.contains("\"decision\":\"fight_combat\""), "{text}");
}

// --- (d) check draws no dice and changes nothing -------------------------------------------------

/// GEN-16: `check` leaves the state, the log and the dice stream as they were: the fire
/// performed after a check rolls the very dice it rolls without one, and the check counted
/// them with their purposes.
#[test]
fn gen_16_check_draws_no_dice_and_changes_nothing() {
    let fire = Action::Fire {
        firers: vec![u(0, 1)],
        target: u(1, 1),
        ammunition: None,
    };
    let mut checked = at_command(duel(), DiceSource::Seed(77));
    let mut plain = at_command(duel(), DiceSource::Seed(77));
    let (state, log) = (checked.state().clone(), checked.log().clone());
    let c = checked.check(&fire).expect("the fire is legal");
    for a in [
        Action::EndPhase,
        Action::Charge {
            chargers: vec![u(0, 1)],
            target: u(1, 1),
            saber: false,
        },
        Action::Deploy {
            piece: u(0, 1),
            formation: Formation::Square,
        },
    ] {
        let _ = checked.check(&a);
    }
    let _ = checked.options(u(0, 1));
    let _ = checked.pending();
    assert_eq!(checked.state(), &state);
    assert_eq!(checked.log(), &log);
    let a = checked.perform(fire.clone()).expect("legal").to_vec();
    let b = plain.perform(fire).expect("legal").to_vec();
    assert_eq!(a, b, "the same dice after a check as without");
    let used = checked.entries().last().map(|e| e.dice_used);
    assert_eq!(Some(c.dice), used);
    assert_eq!(c.beyond_script, 0);
    assert_eq!(c.draws.first().map(|d| d.purpose.as_str()), Some("to hit"));
    assert_eq!(c.draws.iter().map(|d| d.dice).sum::<usize>(), c.dice);
    // A scripted source with no dice left: legal under the rules, the dice still to roll.
    let s = at_command(duel(), DiceSource::Script(vec![]));
    let c = s
        .check(&Action::Fire {
            firers: vec![u(0, 1)],
            target: u(1, 1),
            ammunition: None,
        })
        .expect("legal under the rules");
    assert_eq!(c.beyond_script, c.dice);
    assert_eq!(
        c.draws.first().map(|d| (d.purpose.as_str(), d.dice)),
        Some(("to hit", 5))
    );
}
