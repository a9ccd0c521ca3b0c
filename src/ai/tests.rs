//! Unit tests of the policy's decisions: each on a tiny table where the decision is forced.
//!
//! Geometry reminders (geom::footprint): a pose is the centre of the formation's front edge;
//! facing 0 looks towards +y, 180 towards −y. An infantry stand is 2.5 × 1.5 cm.

use super::policy::{
    charge_responses, initiative_actions, movement_target, plan_unit, PlannedUnit, Sight,
};
use super::tactics::{
    consolidations, defender_support, initiative_evade, initiative_support, objective_claims,
    objective_level, opportunity_fire, plan_supports, self_orders,
};
use crate::geom::Point;
use crate::rules::action::Action;
use crate::rules::action::Manoeuvre;
use crate::rules::battle::{Battle, Ctx};
use crate::rules::charge::{ConsolidateRight, Response};
use crate::rules::command::OrdersMode;
use crate::rules::dice::DiceSource;
use crate::rules::state::{Formation, Phase, PieceId, Pose};
use crate::rules::victory::ObjectiveLevel;

#[path = "../../tests/support/builder.rs"]
mod builder;
use builder::{lists_without_first_fire as lists, u, Sc, AUS_LINE, FR_LINE};

const FR_HEAVY: &str = "heavy-cavalry-05-06-13-15";
const SKIRMISHERS: &str = "skirmishing-infantry";

/// A tiny scenario: Austrians (side 0) against French (side 1), one brigade each with its
/// command unit off the table, no terrain; the lists without the first-fire bonus.
fn new_sc() -> Sc {
    Sc::new("nap-austrian", "nap-french")
        .named("policy-test", "Policy test")
        .year(1809)
}

impl Sc {
    fn battle(&self, mode: OrdersMode) -> Battle {
        Battle::new(self.scenario(), lists(), DiceSource::Seed(1), 0)
            .expect("the test battle sets up")
            .with_orders(mode)
    }

    /// Side 0's Initiative phase of player turn 1.
    fn initiative(&self, mode: OrdersMode) -> Battle {
        let mut b = self.battle(mode);
        ok(&mut b, Action::EndPhase);
        assert_eq!(b.state().turn.phase, Phase::Initiative);
        b
    }

    /// Side 0's Command phase of player turn 1.
    fn command(&self, mode: OrdersMode) -> Battle {
        let mut b = self.initiative(mode);
        ok(&mut b, Action::EndPhase);
        assert_eq!(b.state().turn.phase, Phase::Command);
        b
    }
}

fn ok(b: &mut Battle, a: Action) {
    if let Err(e) = b.perform(a.clone()) {
        panic!("expected {a:?} to be legal, got {e}");
    }
}

/// WE-07's table: A (side 0) 12 cm from D (side 1), facing each other; S 6 cm behind A's
/// contact position, to its right; DS 5 cm behind D.
fn we_07_table() -> Sc {
    new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(0, 2, AUS_LINE, 5, 113.0, 104.5, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 112.0, 180.0)
        .unit(1, 2, FR_LINE, 5, 100.0, 118.5, 180.0)
}

#[test]
fn chg_08_policy_order_sends_a_friend_within_10_cm_to_support_its_charge() {
    let (a, s, d) = (u(0, 1), u(0, 2), u(1, 1));
    let b = we_07_table().command(OrdersMode::Full);
    let ctx = b.ctx();
    let mut planned = vec![
        PlannedUnit {
            piece: a,
            candidates: vec![Action::Charge {
                chargers: vec![a],
                target: d,
                saber: false,
            }],
        },
        PlannedUnit {
            piece: s,
            candidates: plan_unit(&ctx, &Sight::new(), s),
        },
    ];
    plan_supports(&ctx, &mut planned);
    assert_eq!(
        planned[1].candidates,
        vec![Action::Support {
            piece: s,
            friend: a
        }]
    );
    // A friend too far away keeps its own plan.
    let far = u(0, 3);
    let b = we_07_table()
        .unit(0, 3, AUS_LINE, 5, 140.0, 100.0, 0.0)
        .command(OrdersMode::Full);
    let ctx = b.ctx();
    let mut planned = vec![
        PlannedUnit {
            piece: a,
            candidates: vec![Action::Charge {
                chargers: vec![a],
                target: d,
                saber: false,
            }],
        },
        PlannedUnit {
            piece: far,
            candidates: vec![Action::EndPhase],
        },
    ];
    plan_supports(&ctx, &mut planned);
    assert_eq!(planned[1].candidates, vec![Action::EndPhase]);
}

#[test]
fn chg_08_policy_defender_supports_its_charged_unit() {
    let (a, d, ds) = (u(0, 1), u(1, 1), u(1, 2));
    let mut b = we_07_table().command(OrdersMode::Free);
    ok(
        &mut b,
        Action::Charge {
            chargers: vec![a],
            target: d,
            saber: false,
        },
    );
    // Not before contact: the response window is still open.
    assert_eq!(defender_support(&b.ctx(), d), None);
    ok(&mut b, Action::CloseResponse { target: d });
    let support = defender_support(&b.ctx(), d);
    assert_eq!(
        support,
        Some(Action::Support {
            piece: ds,
            friend: d
        })
    );
    if let Some(s) = support {
        ok(&mut b, s);
    }
}

#[test]
fn init_11_policy_idle_unit_supports_an_initiative_charge() {
    let (a, s, d) = (u(0, 1), u(0, 2), u(1, 1));
    let mut b = we_07_table().initiative(OrdersMode::Free);
    ok(
        &mut b,
        Action::Charge {
            chargers: vec![a],
            target: d,
            saber: false,
        },
    );
    ok(&mut b, Action::CloseResponse { target: d });
    let support = initiative_support(&b.ctx(), s);
    assert_eq!(
        support,
        Some(Action::Support {
            piece: s,
            friend: a
        })
    );
    if let Some(x) = support {
        ok(&mut b, x);
    }
}

#[test]
fn fire_30_fire_33_policy_opportunity_fire_at_a_mover_never_at_a_charger() {
    // Side 1's line 12 cm from side 0's line, which moves 2 cm closer: into musket range.
    let (mover, firer) = (u(0, 1), u(1, 1));
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 112.0, 180.0);
    let mut b = sc.command(OrdersMode::Free);
    ok(
        &mut b,
        Action::Move {
            piece: mover,
            via: Vec::new(),
            to: Pose {
                at: Point::new(100.0, 102.0),
                facing_deg: 0.0,
            },
            manoeuvre: Manoeuvre::Advance,
        },
    );
    let shots = opportunity_fire(&b.ctx(), &Sight::new(), mover);
    assert_eq!(
        shots,
        vec![Action::OpportunityFire {
            firers: vec![firer],
            target: mover,
            at: None
        }]
    );
    for a in shots {
        ok(&mut b, a);
    }
    // Once per enemy turn (FIRE-30).
    assert!(opportunity_fire(&b.ctx(), &Sight::new(), mover).is_empty());
    // FIRE-33: a charger is never the target.
    let mut b = we_07_table().command(OrdersMode::Free);
    ok(
        &mut b,
        Action::Charge {
            chargers: vec![u(0, 1)],
            target: u(1, 1),
            saber: false,
        },
    );
    assert!(opportunity_fire(&b.ctx(), &Sight::new(), u(0, 1)).is_empty());
}

#[test]
fn chg_24_policy_winner_consolidates_onto_its_objective() {
    // The winner stands 3 cm short of its objective ground, the beaten enemy gone.
    let w = u(0, 1);
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 60.0, 160.0, 180.0)
        .objective(
            0,
            &[(80.0, 103.0), (120.0, 103.0), (120.0, 130.0), (80.0, 130.0)],
        );
    let b = sc.command(OrdersMode::Free);
    let mut state = b.state().clone();
    let t = state.turn;
    state.charges.consolidation.push(ConsolidateRight {
        piece: w,
        target: u(1, 1),
        player_turn: t.player_turn,
        phase: t.phase,
        order: 0,
    });
    let ctx = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &state,
        sight: None,
    };
    let moves = consolidations(&ctx);
    assert_eq!(moves.len(), 1, "{moves:?}");
    let Some(Action::Consolidate { piece, to }) = moves.first() else {
        panic!("a consolidation: {moves:?}");
    };
    assert_eq!(*piece, w);
    assert!(to.at.y > 103.0 && to.at.y <= 105.0 + 1e-9, "{to:?}");
    // No right, no move.
    assert!(consolidations(&b.ctx()).is_empty());
}

#[test]
fn cmd_07_policy_isolated_unit_gives_itself_an_order() {
    // Unit 1 is alone (its command unit is off the table); units 2 and 3 stand together.
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 40.0, 40.0, 0.0)
        .unit(0, 2, AUS_LINE, 5, 120.0, 40.0, 0.0)
        .unit(0, 3, AUS_LINE, 5, 135.0, 40.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 150.0, 180.0);
    let b = sc.command(OrdersMode::Full);
    assert_eq!(
        self_orders(&b.ctx()),
        vec![Action::SelfOrder { piece: u(0, 1) }]
    );
    // Alone on its side's objective ground, it holds it instead.
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 40.0, 40.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 150.0, 180.0)
        .objective(0, &[(20.0, 20.0), (60.0, 20.0), (60.0, 60.0), (20.0, 60.0)]);
    let b = sc.command(OrdersMode::Full);
    assert!(self_orders(&b.ctx()).is_empty());
}

#[test]
fn init_05_policy_skirmishers_evade_threatening_cavalry() {
    let (sk, cav) = (u(0, 1), u(1, 1));
    let sc = new_sc()
        .unit(0, 1, SKIRMISHERS, 2, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_HEAVY, 3, 100.0, 112.0, 180.0);
    let mut b = sc.initiative(OrdersMode::Free);
    let evade = initiative_evade(&b.ctx(), sk, cav, true);
    assert!(
        matches!(evade, Some(Action::Evade { piece, .. }) if piece == sk),
        "{evade:?}"
    );
    if let Some(a) = evade {
        ok(&mut b, a);
    }
    // A line does not evade (INIT-05 is for skirmishers and guns).
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_HEAVY, 3, 100.0, 112.0, 180.0);
    let b = sc.initiative(OrdersMode::Free);
    assert_eq!(initiative_evade(&b.ctx(), sk, cav, true), None);
}

fn objective_table() -> Sc {
    // Side 0 attacks the ground at y 120..140; side 1 defends the same ground.
    let ground = [(80.0, 120.0), (120.0, 120.0), (120.0, 140.0), (80.0, 140.0)];
    new_sc()
        .objective(0, &ground)
        .objective(1, &ground)
        .defender(1)
}

#[test]
fn obj_01_policy_attacker_marches_on_the_objective_and_holds_it() {
    // No enemy near: the attacker heads for the centre of its objective ground.
    let sc = objective_table()
        .unit(0, 1, AUS_LINE, 5, 100.0, 40.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 200.0, 170.0, 180.0);
    let b = sc.command(OrdersMode::Free);
    assert_eq!(
        movement_target(&b.ctx(), u(0, 1)),
        Some(Point::new(100.0, 130.0))
    );
    // On its ground, with an enemy within reach but off it, it stays.
    let sc = objective_table()
        .unit(0, 1, AUS_LINE, 5, 100.0, 125.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 140.0, 150.0, 180.0);
    let b = sc.command(OrdersMode::Free);
    assert_eq!(movement_target(&b.ctx(), u(0, 1)), None);
}

#[test]
fn obj_01_end_03_policy_declares_the_objective_the_table_shows() {
    // Side 0 (the attacker, second player) stands on the ground; the defender is elsewhere.
    let sc = objective_table()
        .unit(0, 1, AUS_LINE, 5, 100.0, 125.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 200.0, 60.0, 180.0);
    let mut b = Battle::new(sc.scenario(), lists(), DiceSource::Seed(1), 1)
        .expect("sets up")
        .with_orders(OrdersMode::Free);
    assert_eq!(objective_level(&b.ctx(), 0), ObjectiveLevel::Major);
    assert_eq!(objective_level(&b.ctx(), 1), ObjectiveLevel::None);
    // Only at the end of the game turn: the second player's End phase.
    while !(b.state().turn.phase == Phase::End && b.state().turn.active == 0) {
        assert!(objective_claims(&b.ctx()).is_empty());
        ok(&mut b, Action::EndPhase);
    }
    let claims = objective_claims(&b.ctx());
    assert_eq!(
        claims,
        vec![Action::DeclareObjective {
            side: 0,
            level: ObjectiveLevel::Major
        }]
    );
    for a in claims {
        ok(&mut b, a);
    }
    assert!(objective_claims(&b.ctx()).is_empty());
}

#[test]
fn move_09_policy_marches_in_column_far_from_the_enemy() {
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 20.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 160.0, 180.0);
    let b = sc.command(OrdersMode::Free);
    let plan = plan_unit(&b.ctx(), &Sight::new(), u(0, 1));
    assert_eq!(
        plan.first(),
        Some(&Action::Deploy {
            piece: u(0, 1),
            formation: Formation::MarchColumn
        }),
        "{plan:?}"
    );
}

#[test]
fn fire_32_init_03_policy_no_initiative_after_opportunity_fire() {
    let a = u(0, 1);
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 108.0, 180.0);
    let b = sc.initiative(OrdersMode::Full);
    assert!(!initiative_actions(&b.ctx(), &Sight::new(), a).is_empty());
    // The same unit, having made opportunity fire in the opponent's last turn (FIRE-32).
    let mut state = b.state().clone();
    let pt = state.turn.player_turn;
    if let Some(p) = state.pieces.get_mut(&a) {
        p.orders.opportunity_fired_in = Some(pt - 1);
    }
    let ctx = Ctx {
        scenario: b.scenario(),
        lists: b.lists(),
        state: &state,
        sight: None,
    };
    assert!(initiative_actions(&ctx, &Sight::new(), a).is_empty());
}

#[test]
fn init_12_init_14_policy_evades_a_charge_by_a_clearly_stronger_enemy() {
    let (cav, sk) = (u(0, 1), u(1, 1));
    let sc = new_sc()
        .unit(0, 1, "heavy-cavalry", 4, 100.0, 100.0, 0.0)
        .unit(1, 1, SKIRMISHERS, 1, 100.0, 110.0, 180.0);
    let mut b = sc.command(OrdersMode::Free);
    ok(
        &mut b,
        Action::Charge {
            chargers: vec![cav],
            target: sk,
            saber: false,
        },
    );
    let responses = charge_responses(&b.ctx(), sk, cav);
    assert!(
        matches!(responses.first(), Some(Response::Evade { .. })),
        "{responses:?}"
    );
    if let Some(r) = responses.first() {
        ok(
            &mut b,
            Action::Respond {
                piece: sk,
                target: sk,
                response: r.clone(),
            },
        );
    }
}

/// A small deterministic generator (xorshift64*) for the lookup tests.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Twelve units a side, scattered by [`scatter`].
fn crowd() -> Sc {
    let mut sc = new_sc();
    for k in 0..12u32 {
        sc = sc
            .unit(0, k + 1, AUS_LINE, 4, 10.0 + 15.0 * f64::from(k), 40.0, 0.0)
            .unit(
                1,
                k + 1,
                FR_LINE,
                4,
                10.0 + 15.0 * f64::from(k),
                160.0,
                180.0,
            );
    }
    sc
}

/// Every piece at a random place (some sharing an x, some off the table or knocked out).
fn scatter(g: &mut Gen, state: &mut crate::rules::state::BattleState) {
    let xs: Vec<f64> = (0..4).map(|_| g.range(0.0, 200.0)).collect();
    let mut last: Option<Pose> = None;
    for p in state.pieces.values_mut() {
        // Now and then on top of the piece before (ties of distance).
        if g.below(8) == 0 && last.is_some() {
            p.pose = last;
            p.knocked_out = false;
            continue;
        }
        let x = match g.below(3) {
            0 => xs.get(g.below(4) as usize).copied().unwrap_or(0.0),
            _ => g.range(-20.0, 220.0),
        };
        p.pose = (g.below(10) != 0).then_some(Pose {
            at: Point::new(x, g.range(0.0, 200.0)),
            facing_deg: 0.0,
        });
        p.knocked_out = g.below(10) == 0;
        last = p.pose;
    }
}

#[test]
fn sight_enemies_near_and_nearest_enemy_are_exactly_the_walks_over_every_enemy() {
    let b = crowd().battle(OrdersMode::Full);
    let ctx = b.ctx();
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for _ in 0..200 {
        let mut state = ctx.state.clone();
        scatter(&mut g, &mut state);
        let c = ctx.with_state(&state);
        let sight = Sight::new();
        for _ in 0..20 {
            let side = g.below(2) as usize;
            let at = Point::new(g.range(-30.0, 230.0), g.range(-30.0, 230.0));
            // Sometimes a reach that lands exactly on a piece's reference point.
            let exact = state
                .pieces
                .values()
                .filter_map(|p| p.pose)
                .nth(g.below(24) as usize)
                .map(|q| super::policy::dist(at, q.at));
            let reach = match (g.below(3), exact) {
                (0, Some(d)) => d,
                _ => g.range(0.0, 90.0),
            };
            let mut got: Vec<PieceId> = sight
                .enemies_near(&c, side, at, reach)
                .into_iter()
                .map(|(p, _)| p.id)
                .collect();
            got.sort();
            let want: Vec<PieceId> = state
                .pieces
                .values()
                .filter(|p| p.id.side() != side && !p.id.is_command() && p.on_table())
                .filter(|p| {
                    p.pose
                        .is_some_and(|q| super::policy::dist(at, q.at) <= reach)
                })
                .map(|p| p.id)
                .collect();
            assert_eq!(got, want, "side {side} at {at:?} reach {reach}");
        }
        for id in state.pieces.keys() {
            assert_eq!(
                sight.nearest_enemy(&c, *id),
                super::policy::nearest_enemy(&c, *id),
                "{id}"
            );
        }
    }
}

#[test]
fn cmd_03_cmd_06_cmd_29_fire_23_orderable_units_are_those_the_order_check_accepts() {
    use crate::rules::command::{check_issue_order, orderable_units, OrderedUnit, UnitActionKind};
    let b = crowd().command(OrdersMode::Full);
    let ctx = b.ctx();
    let hq = PieceId::Hq {
        side: 0,
        hq: crate::model::HqId(1),
    };
    let mut g = Gen(7);
    let mut some = 0;
    for _ in 0..100 {
        let mut state = ctx.state.clone();
        for p in state.pieces.values_mut() {
            let o = &mut p.orders;
            o.closed = g.below(5) == 0;
            o.hq_failed = g.below(5) == 0;
            o.commander = match g.below(4) {
                0 => Some(hq),
                1 => Some(u(0, 99)),
                _ => None,
            };
            p.suppressed_at = (g.below(6) == 0).then_some(1);
            if g.below(8) == 0 {
                p.pose = None;
            }
        }
        if let Some(h) = state.pieces.get_mut(&hq) {
            h.pose = Some(Pose {
                at: Point::new(90.0, 20.0),
                facing_deg: 0.0,
            });
            h.orders = Default::default();
        }
        let c = ctx.with_state(&state);
        let want: Vec<PieceId> = state
            .pieces
            .keys()
            .copied()
            .filter(|id| !id.is_command() && state.pieces.get(id).is_some_and(|p| p.on_table()))
            .filter(|id| {
                let unit = OrderedUnit {
                    piece: *id,
                    action: UnitActionKind::Deploy,
                    target: None,
                    road: false,
                    dense: false,
                };
                check_issue_order(&c, hq, &[unit]).is_ok()
            })
            .collect();
        assert_eq!(orderable_units(&c, hq), want);
        some += usize::from(!want.is_empty());
    }
    assert!(
        some > 50,
        "the command unit orders someone most times ({some})"
    );
}

/// A French line (side 1, 3 stands) 10 cm in front of an Austrian line (side 0, 6 stands,
/// facing +y) that stands in a built-up area, or in the open.
fn town_table(town: bool) -> Sc {
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 6, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 3, 110.0, 115.0, 180.0);
    if town {
        sc.feature(
            "built_up",
            serde_json::json!({"polygon": [{"x": 80, "y": 90}, {"x": 120, "y": 90},
                                           {"x": 120, "y": 105}, {"x": 80, "y": 105}]}),
        )
    } else {
        sc
    }
}

#[test]
fn chg_11_chg_16_fire_19_policy_charge_odds_count_the_defenders_cover_and_its_flank() {
    use super::policy::charge_odds_at;
    use crate::rules::charge::Edge;
    let b = town_table(true).command(OrdersMode::Free);
    let ctx = b.ctx();
    let (fr, aus) = (
        ctx.piece(u(1, 1)).expect("French"),
        ctx.piece(u(0, 1)).expect("Austrians"),
    );
    // Front: the French roll 3 stands × 2 + 1 for charging = 7 dice (CHG-13, CHG-14) and hit
    // the Austrians inside the built-up area (hard cover) on 6s (CHG-16, FIRE-15); the
    // Austrians save on 6 (1 in 6): 7 × 1/6 × 5/6 = 35/36. The Austrians roll 6 × 2 = 12 dice
    // at 4+ (the charger is in the open), the French save on 6: 12 × 1/2 × 5/6 = 5, and half as
    // many again for the fire they meet the charge with: 8.
    let (dealt, taken) = charge_odds_at(&ctx, fr, aus, [0, 0], Edge::Front);
    assert!((dealt - 35.0 / 36.0).abs() < 1e-9, "{dealt}");
    assert!((taken - 8.0).abs() < 1e-9, "{taken}");
    // Flank: the Austrians fight with their flank stand only, at −2: 2 − 2 = 0, floored to 1
    // die (CHG-11, CHG-14, FIRE-12), 1 × 1/2 × 5/6 = 5/12, and no fire from their front. Their
    // save would be one worse (CHG-18), but a save of 6 stays 6 (FIRE-19): still 35/36.
    let (dealt, taken) = charge_odds_at(&ctx, fr, aus, [0, 0], Edge::Left);
    assert!((dealt - 35.0 / 36.0).abs() < 1e-9, "{dealt}");
    assert!((taken - 5.0 / 12.0).abs() < 1e-9, "{taken}");
    // In the open the French hit on 4+: 7 × 1/2 × 5/6 = 35/12.
    let open = town_table(false).command(OrdersMode::Free);
    let octx = open.ctx();
    let (dealt, _) = charge_odds_at(
        &octx,
        octx.piece(u(1, 1)).expect("French"),
        octx.piece(u(0, 1)).expect("Austrians"),
        [0, 0],
        Edge::Front,
    );
    assert!((dealt - 35.0 / 12.0).abs() < 1e-9, "{dealt}");
}

#[test]
fn chg_10_chg_11_policy_attacker_goes_for_the_flank_of_a_line_in_cover() {
    use super::policy::{flank_point, FLANK_OFFSET_CM};
    let b = town_table(true).command(OrdersMode::Free);
    // The Austrian line of 6 stands 2.5 cm wide faces +y from (100, 100): its stands run from
    // x 92.5 to 107.5 and back to y 98.5 (centre y 99.25). The French at (110, 115) are nearer
    // its right end: they go 7 cm beyond it, level with its middle.
    let f = flank_point(&b.ctx(), u(1, 1), u(0, 1)).expect("a flank to turn");
    assert!((f.x - (107.5 + FLANK_OFFSET_CM)).abs() < 1e-6, "{f:?}");
    assert!((f.y - 99.25).abs() < 1e-6, "{f:?}");
    // The same line in the open is charged where it stands: no detour.
    let open = town_table(false).command(OrdersMode::Free);
    assert_eq!(flank_point(&open.ctx(), u(1, 1), u(0, 1)), None);
}

#[test]
fn art_01_move_20_policy_an_attacking_gun_out_of_range_limbers_and_moves_up_to_the_objective() {
    use builder::FIELD_ART;
    // Side 0 attacks; its gun (range 45 cm) stands 90 cm from the French line on the
    // objective ground, with nothing else in range.
    let sc = objective_table()
        .unit(0, 1, FIELD_ART, 1, 100.0, 40.0, 0.0)
        .unit(0, 2, AUS_LINE, 5, 60.0, 40.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 100.0, 130.0, 180.0);
    let mut b = sc.command(OrdersMode::Free);
    let plan = plan_unit(&b.ctx(), &Sight::new(), u(0, 1));
    assert_eq!(
        plan.first(),
        Some(&Action::Limber { piece: u(0, 1) }),
        "{plan:?}"
    );
    ok(&mut b, Action::Limber { piece: u(0, 1) });
    // Limbered, it moves towards the point 36 cm (0.8 of its range) short of the French line,
    // (100, 94): straight up the table.
    let plan = plan_unit(&b.ctx(), &Sight::new(), u(0, 1));
    let Some(Action::Move { to, .. }) = plan.first() else {
        panic!("expected a move, got {plan:?}");
    };
    assert!((to.at.x - 100.0).abs() < 1e-6, "{to:?}");
    assert!(to.at.y > 40.0 + 1.0 && to.at.y <= 94.0 + 1e-6, "{to:?}");
}

#[test]
fn fire_24_policy_fire_is_concentrated_on_a_suppressed_enemy() {
    // Two French lines at the same distance and in the same open ground before an Austrian
    // line: it fires at the lower id, unless the other is suppressed (a further hit makes it
    // fall back, FIRE-24).
    let sc = new_sc()
        .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
        .unit(1, 1, FR_LINE, 5, 94.0, 106.0, 180.0)
        .unit(1, 2, FR_LINE, 5, 106.0, 106.0, 180.0);
    let b = sc.command(OrdersMode::Free);
    let target = |state: &crate::rules::state::BattleState| match super::policy::fire_candidates(
        &b.ctx().with_state(state),
        &Sight::new(),
        u(0, 1),
    )
    .first()
    {
        Some(Action::Fire { target, .. }) => Some(*target),
        _ => None,
    };
    let mut state = b.state().clone();
    assert_eq!(target(&state), Some(u(1, 1)));
    if let Some(p) = state.pieces.get_mut(&u(1, 2)) {
        p.suppressed_at = Some(0);
    }
    assert_eq!(target(&state), Some(u(1, 2)));
}

/// The Command phase of side 0 played by the standard opponent with `dice` scripted, and the
/// modified command values its orders were rolled against (CMD-03).
fn orders_rolled(sc: &Sc, dice: Vec<u8>) -> (Battle, Vec<i32>) {
    let mut b = Battle::new(sc.scenario(), lists(), DiceSource::Script(dice), 0)
        .expect("the test battle sets up")
        .with_orders(OrdersMode::Full);
    ok(&mut b, Action::EndPhase);
    ok(&mut b, Action::EndPhase);
    assert_eq!(b.state().turn.phase, Phase::Command);
    let from = b.entries().len();
    super::autoplay::play_with(
        &mut b,
        &super::autoplay::Limits::default(),
        [true, false],
        [super::autoplay::Policy::Standard; 2],
        super::autoplay::Until::Phase,
        &mut |_| true,
    );
    let targets = b.entries()[from..]
        .iter()
        .flat_map(|e| &e.events)
        .filter_map(|e| match e {
            crate::rules::event::Event::OrderRolled(r) => Some(r.target),
            _ => None,
        })
        .collect();
    (b, targets)
}

#[test]
fn cmd_06_cmd_08_policy_a_marching_band_is_ordered_again_in_succession() {
    // An Austrian line 5 cm in front of its brigade HQ (command value 7, no CMD-09 penalty),
    // the French line's front 49.5 cm away: near enough to stay in line (50 cm), far enough
    // that it marches (no enemy within 40 cm). Each order moves it straight on by 98% of its
    // 8 cm allowance (MOVE-02; the policy keeps 2% against rounding): 7.84 cm.
    let sc = |value: u8| {
        new_sc()
            .hq_at(0, 100.0, 95.0)
            .first_hq(
                0,
                "commander",
                serde_json::json!({"id": 1, "name": "Brigade A", "level": "brigade",
                                   "quality": "average", "command_value": value}),
            )
            .unit(0, 1, AUS_LINE, 5, 100.0, 100.0, 0.0)
            .unit(1, 1, FR_LINE, 5, 100.0, 149.5, 180.0)
    };
    let y = |b: &Battle| b.state().pieces[&u(0, 1)].pose.map(|p| p.at.y);
    // Value 7: the first order is rolled against 7 and a 6 succeeds; 41.66 cm from the French,
    // still marching, the unit is ordered again against 7 − 1 = 6 (CMD-08) and a 6 succeeds.
    // At 33.82 cm it is closing on the enemy: no third order.
    let (b, targets) = orders_rolled(&sc(7), vec![3, 3, 3, 3, 3, 3]);
    assert_eq!(targets, vec![7, 6]);
    let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
    assert!(close(y(&b), 100.0 + 2.0 * 7.84), "{:?}", y(&b));
    // Value 6: a second order would be rolled against 5, below the least worth rolling (6).
    let (b, targets) = orders_rolled(&sc(6), vec![3, 3, 3, 3, 3, 3]);
    assert_eq!(targets, vec![6]);
    assert!(close(y(&b), 100.0 + 7.84), "{:?}", y(&b));
}

/// TERR-04: a wood 40 cm square (x 80–120, y 80–120, high area: each cm inside costs 4) lies
/// between an Austrian line at (100, 40) and its goal at (95, 160). Straight through it costs
/// 120 cm + 40 × 3 inside + the stop on reaching it, 250; round its left side about 134. The
/// first waypoint is the wood's near left corner (80, 80), stood off outward, and the line's
/// move heads for it. A goal inside the wood is walked to straight; so is one behind a strip of
/// low ground too long to go round.
#[test]
fn terr_04_the_opponent_goes_round_a_wood_between_it_and_its_goal_not_through_it() {
    use super::policy::{detour_round_slow_ground, move_towards};
    use crate::geom::ring_contains;
    let wood = [(80.0, 80.0), (120.0, 80.0), (120.0, 120.0), (80.0, 120.0)];
    let sc = new_sc()
        .feature("high_area", builder::rect(80.0, 80.0, 120.0, 120.0))
        .unit(0, 1, AUS_LINE, 4, 100.0, 40.0, 0.0);
    let b = sc.battle(OrdersMode::Free);
    let ctx = b.ctx();
    let (from, goal) = (Point::new(100.0, 40.0), Point::new(95.0, 160.0));
    let ring: Vec<Point> = wood.iter().map(|&(x, y)| Point::new(x, y)).collect();
    let w = detour_round_slow_ground(&ctx, u(0, 1), from, goal).expect("a way round");
    assert!(!ring_contains(&ring, w), "{w:?} is outside the wood");
    assert!(w.x < 80.0 && w.y < 80.0, "{w:?}: the near left corner");
    assert!(
        (w.x - 80.0 - (w.y - 80.0)).abs() < 1e-6 && w.distance(Point::new(80.0, 80.0)).0 < 15.0,
        "{w:?}: stood off along the corner's diagonal"
    );
    let Some(Action::Move { to, .. }) = move_towards(&ctx, u(0, 1), goal) else {
        panic!("the line moves");
    };
    assert!(
        to.at.x < 100.0 && to.at.y > 40.0,
        "it heads for the corner: {to:?}"
    );
    // A goal inside the wood: straight in.
    assert_eq!(
        detour_round_slow_ground(&ctx, u(0, 1), from, Point::new(100.0, 100.0)),
        None
    );
    // A strip of low ground (each cm inside costs 2) 10 cm deep and 160 cm wide: straight
    // through costs 120 + 10 + the stop, 140; round its end more than 200.
    let strip = new_sc()
        .feature("low_area", builder::rect(20.0, 95.0, 180.0, 105.0))
        .unit(0, 1, AUS_LINE, 4, 100.0, 40.0, 0.0);
    let b = strip.battle(OrdersMode::Free);
    assert_eq!(
        detour_round_slow_ground(&b.ctx(), u(0, 1), from, goal),
        None
    );
}

/// TERR-02, MOVE-03: a line whose front stands 0.5 cm short of a wall reaches it with any move
/// at all and must stop there. The opponent used to ask a move to gain a centimetre and left
/// such a unit standing for the rest of the game (found at Aspern's flood dike, where it froze
/// the Austrian brigade that had halted just short of it). Now it steps up to the wall — the
/// move the rules allow — and from there, at the start of its next move, it crosses.
#[test]
fn terr_02_a_unit_just_short_of_a_wall_steps_up_to_it_and_then_crosses() {
    use super::policy::move_towards;
    // The wall runs across at y = 40.5; the line's front edge is at y = 40, facing +y.
    let short = new_sc()
        .hedge(&[(60.0, 40.5), (140.0, 40.5)])
        .unit(0, 1, AUS_LINE, 4, 100.0, 40.0, 0.0);
    let b = short.command(OrdersMode::Free);
    let goal = Point::new(100.0, 100.0);
    let Some(step) = move_towards(&b.ctx(), u(0, 1), goal) else {
        panic!("the line steps up to the wall");
    };
    let Action::Move { to, .. } = &step else {
        panic!("a move: {step:?}");
    };
    assert!(
        to.at.y > 40.0 && to.at.y <= 40.5 + 0.01,
        "it stops at the wall: {to:?}"
    );
    assert!(b.check(&step).is_ok(), "the rules accept it: {step:?}");
    // Touching the wall at the start of a move: the crossing places its rear edge (1.5 cm
    // behind its front) on the far side, and it moves on.
    let touching = new_sc()
        .hedge(&[(60.0, 40.5), (140.0, 40.5)])
        .unit(0, 1, AUS_LINE, 4, 100.0, 40.5, 0.0);
    let b = touching.command(OrdersMode::Free);
    let Some(cross @ Action::Move { to, .. }) = move_towards(&b.ctx(), u(0, 1), goal) else {
        panic!("the line crosses");
    };
    assert!(to.at.y >= 40.5 + 1.5, "over the wall: {to:?}");
    assert!(b.check(&cross).is_ok(), "the rules accept it: {cross:?}");
}

/// OBJ-01, END-03 (2): in the closing turns an attacking unit off its objective ground steps
/// onto it before it fires — standing on the ground denies the enemy its hold there. Earlier in
/// the game the same unit fires. The Austrian line (the attacker, its brigade's command unit on
/// the table so that the plan gives it a task) stands 2 cm short of its objective strip
/// (y 52–58) with a French line in musket range beyond it.
#[test]
fn obj_01_in_the_closing_turns_an_attacker_steps_onto_its_ground_before_it_fires() {
    use crate::geom::ring_contains;
    let strip = [(80.0, 52.0), (120.0, 52.0), (120.0, 58.0), (80.0, 58.0)];
    let sc = |turns: u32| {
        new_sc()
            .defender(1)
            .objective(0, &strip)
            .turn_limit(turns)
            .hq_at(0, 100.0, 40.0)
            .unit(0, 1, AUS_LINE, 4, 100.0, 50.0, 0.0)
            .unit(1, 1, FR_LINE, 4, 100.0, 60.0, 180.0)
    };
    let first = |turns: u32| {
        let b = sc(turns).command(OrdersMode::Free);
        plan_unit(&b.ctx(), &Sight::new(), u(0, 1))
            .first()
            .cloned()
            .expect("the line has a plan")
    };
    // Ten turns: turn 1 is not one of the last three; it fires.
    assert!(matches!(first(10), Action::Fire { .. }), "{:?}", first(10));
    // Two turns: turn 1 is one of the last three; it steps onto the strip.
    let ring: Vec<Point> = strip.iter().map(|&(x, y)| Point::new(x, y)).collect();
    match first(2) {
        Action::Move { to, .. } => assert!(ring_contains(&ring, to.at), "onto it: {to:?}"),
        other => panic!("a move onto the ground, not {other:?}"),
    }
}

#[test]
fn move_17_a_square_with_no_cavalry_near_forms_line_and_stays_with_cavalry_near() {
    // An Austrian line 12 cm from a French line; with a French hussar regiment 14 cm off its
    // flank, or without it. The Austrians form square in their first turn; in their next
    // Command phase the plan is read.
    let next_turn_plan = |cavalry: bool| {
        let mut sc = new_sc()
            .unit(0, 1, AUS_LINE, 4, 100.0, 100.0, 0.0)
            .unit(1, 1, FR_LINE, 4, 100.0, 112.0, 180.0);
        if cavalry {
            sc = sc.unit(1, 2, FR_HEAVY, 3, 86.0, 100.0, 90.0);
        }
        let mut b = sc.command(OrdersMode::Free);
        ok(
            &mut b,
            Action::Deploy {
                piece: u(0, 1),
                formation: Formation::Square,
            },
        );
        for _ in 0..12 {
            let t = b.state().turn;
            if t.active == 0 && t.phase == Phase::Command && t.game_turn == 2 {
                break;
            }
            ok(&mut b, Action::EndPhase);
        }
        let t = b.state().turn;
        assert_eq!((t.active, t.phase, t.game_turn), (0, Phase::Command, 2));
        assert_eq!(
            b.state().piece(u(0, 1)).and_then(|p| p.formation),
            Some(Formation::Square)
        );
        plan_unit(&b.ctx(), &Sight::new(), u(0, 1))
    };
    let clear = next_turn_plan(false);
    assert_eq!(
        clear.first(),
        Some(&Action::Deploy {
            piece: u(0, 1),
            formation: Formation::Line
        }),
        "no cavalry within 30 cm: back into line first, {clear:?}"
    );
    let threatened = next_turn_plan(true);
    assert!(
        !threatened.iter().any(|a| matches!(
            a,
            Action::Deploy {
                formation: Formation::Line,
                ..
            }
        )),
        "cavalry 14 cm away: the square stands, {threatened:?}"
    );
}

/// OBJ-01: ground the enemy holds as its objective (a formed unit of its own on it, none of
/// ours) is taken from it by one unit of ours standing there. The French (the defender) hold
/// their objective box, y 100–110, with a line; the Austrians (the attacker, the brigade's
/// command unit on the table so that the plan gives them a task) have their own ground far
/// behind them, y 0–6. An Austrian line 30 cm short of the box, or 10 cm short of it.
#[test]
fn obj_01_an_attacker_sets_out_in_time_for_ground_the_enemy_holds_and_a_near_unit_waits() {
    use super::tactics::{denial_point, DENY_TURNS, LAST_TURNS};
    let box_ = [(80.0, 100.0), (120.0, 100.0), (120.0, 110.0), (80.0, 110.0)];
    let strip = [(80.0, 0.0), (120.0, 0.0), (120.0, 6.0), (80.0, 6.0)];
    let sc = |turns: u32, y: f64| {
        new_sc()
            .defender(1)
            .objective(0, &strip)
            .objective(1, &box_)
            .turn_limit(turns)
            .hq_at(0, 100.0, y - 10.0)
            .unit(0, 1, AUS_LINE, 4, 100.0, y, 0.0)
            .unit(1, 1, FR_LINE, 4, 100.0, 106.0, 180.0)
    };
    // The nearest point of the box to (100, 70) is (100, 100) on its edge; the unit aims 3 cm
    // inside it (ONTO_GROUND_CM), at (100, 103).
    let inside = Point::new(100.0, 103.0);
    let target = |turns: u32, y: f64| {
        let b = sc(turns, y).command(OrdersMode::Free);
        let ctx = b.ctx();
        let at = Point::new(100.0, y);
        (
            denial_point(&ctx, 0, at),
            movement_target(&ctx, u(0, 1)),
            plan_unit(&ctx, &Sight::new(), u(0, 1)),
        )
    };
    assert_eq!((LAST_TURNS, DENY_TURNS), (3, 6));
    let near = |p: Option<Point>, q: Point| p.is_some_and(|p| p.distance(q).0 < 1e-9);

    // Turn 1 of 2 is a closing turn: the unit 30 cm off goes for the box.
    let (deny, goal, plan) = target(2, 70.0);
    assert!(near(deny, inside), "{deny:?}");
    assert!(near(goal, inside), "{goal:?}");
    match plan.first() {
        Some(Action::Move { to, .. }) => assert!(
            to.at.distance(inside).0 < 33.0 - 1.0,
            "the first move closes on the box: {to:?}"
        ),
        other => panic!("a move towards the box, not {other:?}"),
    }
    // Turn 1 of 20: too early; the unit does something else.
    let (_, goal, _) = target(20, 70.0);
    assert!(!near(goal, inside), "{goal:?}");
    // Turn 1 of 5 (five turns left, within the last six): at half its 10 cm move a turn the
    // unit 33 cm off needs 6.6 turns, at least the 4 left after this one — it sets out now.
    let (_, goal, _) = target(5, 70.0);
    assert!(near(goal, inside), "{goal:?}");
    // The unit 10 cm off needs 2.6 turns: it goes on fighting where it is until the closing
    // turns.
    let (deny, goal, _) = target(5, 90.0);
    assert!(near(deny, Point::new(100.0, 103.0)), "{deny:?}");
    assert!(!near(goal, inside), "{goal:?}");

    // With an Austrian unit on the box too the French hold nothing there: nothing to deny.
    let b = sc(2, 70.0)
        .unit(0, 2, AUS_LINE, 2, 84.0, 104.0, 90.0)
        .command(OrdersMode::Free);
    assert_eq!(denial_point(&b.ctx(), 0, Point::new(100.0, 70.0)), None);
}
