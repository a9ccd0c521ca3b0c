//! Fog of war (issue #17 item 10, `rules::fog`): who one side sees, by the engine's own sight
//! rules (VIS-01..VIS-17), and where it last saw the enemies it no longer sees.
//!
//! Tables: facing 0 looks towards +y; a unit's position is the centre of its front edge (a
//! 4-stand line of French infantry is 10 cm wide: x − 5 … x + 5, 1.5 cm deep behind the front).
//! Expected answers are worked out by hand from the stand corners and the terrain below.

#[path = "support/builder.rs"]
mod builder;
#[path = "support/los_table.rs"]
mod los_table;

use builder::{hq, lists, ring, u, Sc, AUS_LINE, FR_LINE};
use powderhorn::geom::Point;
use powderhorn::rules::command::OrdersMode;
use powderhorn::rules::dice::DiceSource;
use powderhorn::rules::fog::{seen_by, FogMemory, LastSeen};
use powderhorn::rules::{Action, Battle, Formation, Manoeuvre, Phase, PieceId, Pose};
use serde_json::json;
use std::collections::BTreeSet;

fn battle(sc: &Sc, first: usize) -> Battle {
    Battle::new(sc.scenario(), lists(), DiceSource::Script(vec![]), first)
        .map(|b| b.with_orders(OrdersMode::Free))
        .expect("the test battle sets up")
}

fn set(ids: &[PieceId]) -> BTreeSet<PieceId> {
    ids.iter().copied().collect()
}

/// A wood from (60, 60) to (114, 80).
fn wood() -> serde_json::Value {
    json!({"polygon": ring(&[(60.0, 60.0), (114.0, 60.0), (114.0, 80.0), (60.0, 80.0)])})
}

#[test]
fn vis_07_fog_hides_an_enemy_behind_a_wood() {
    // A at (100, 40) facing the enemy; B at (100, 100) facing back. Every segment between
    // their stands (x 95..105) crosses the wood between y 60 and 80: high area terrain blocks.
    let sc = Sc::nap()
        .unit(0, 10, FR_LINE, 4, 100.0, 40.0, 0.0)
        .unit(1, 20, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .feature("high_area", wood());
    let b = battle(&sc, 0);
    assert_eq!(seen_by(&b.ctx(), 0), set(&[]));
    assert_eq!(seen_by(&b.ctx(), 1), set(&[]));
    let m = FogMemory::of_battle(&b, 0);
    assert!(!m.is_seen(u(1, 20)));
    assert!(m.is_seen(u(0, 10)), "a side always sees its own units");
    assert_eq!(m.last_seen(u(1, 20)), None, "never seen, so no last pose");
}

#[test]
fn vis_04_fog_shows_an_enemy_in_the_open_within_100_cm() {
    // Open table: B's front is 60 cm from A's and inside A's arc; C is 120 cm off (beyond the
    // 100 cm limit of VIS-04), though in plain view.
    let sc = Sc::nap()
        .unit(0, 10, FR_LINE, 4, 100.0, 40.0, 0.0)
        .unit(1, 20, AUS_LINE, 4, 100.0, 100.0, 180.0)
        .unit(1, 21, AUS_LINE, 4, 200.0, 160.0, 180.0);
    let b = battle(&sc, 0);
    assert_eq!(seen_by(&b.ctx(), 0), set(&[u(1, 20)]));
    // B faces A and sees it; C's nearest corner is 90 cm across and 118 cm up from A's.
    assert_eq!(seen_by(&b.ctx(), 1), set(&[u(0, 10)]));
    let m = FogMemory::of_battle(&b, 0);
    assert!(m.is_seen(u(1, 20)));
    assert!(!m.is_seen(u(1, 21)));
}

#[test]
fn vis_03_fog_a_command_unit_sees_all_round() {
    // B stands 35 cm behind A's line (A faces +y, B is at y 60 and A at y 100): outside a
    // troop unit's arc. A command unit in the same place sees all round.
    let troops = Sc::nap()
        .unit(0, 10, FR_LINE, 4, 100.0, 100.0, 0.0)
        .unit(1, 20, AUS_LINE, 4, 100.0, 60.0, 0.0);
    assert_eq!(seen_by(&battle(&troops, 0).ctx(), 0), set(&[]));
    let command = Sc::nap()
        .hq_at(0, 100.0, 100.0)
        .unit(1, 20, AUS_LINE, 4, 100.0, 60.0, 0.0);
    let b = battle(&command, 0);
    assert_eq!(seen_by(&b.ctx(), 0), set(&[u(1, 20)]));
    assert!(FogMemory::of_battle(&b, 0).is_seen(u(1, 20)));
    assert!(b.state().piece(hq(0)).is_some_and(|p| p.pose.is_some()));
}

#[test]
fn vis_02_fog_keeps_the_last_seen_pose_after_the_enemy_moves_out_of_sight() {
    // A troop unit sees from its front edge (y 40, x 95..105); B's stands, facing away from
    // +y, span x 123..133, y 100..101.5. The easternmost segment, (105, 40) to (133, 100),
    // is at x 114.33 where y = 60 — east of the wood's edge (x 114) and further east below:
    // clear, so A sees B. B then advances obliquely at 45° by 5.66 cm to (124, 96) (Austrian
    // line infantry move 8 cm): its corners are now x ≤ 129, y ≥ 96, and the easternmost
    // segment, (105, 40) to (129, 96), is at x 113.57 where y = 60, inside the wood (high
    // area terrain blocks, VIS-07); every other segment is further west: hidden.
    let sc = Sc::nap()
        .unit(0, 10, FR_LINE, 4, 100.0, 40.0, 0.0)
        .unit(1, 20, AUS_LINE, 4, 128.0, 100.0, 180.0)
        .feature("high_area", wood());
    let mut b = battle(&sc, 1);
    let before = FogMemory::of_battle(&b, 0);
    assert_eq!(before.seen(), &set(&[u(1, 20)]));
    b.perform(Action::EndPhase).expect("deployment ends");
    assert_eq!(b.state().turn.phase, Phase::Initiative);
    assert_eq!(b.state().turn.active, 1);
    let start = Pose {
        at: Point::new(128.0, 100.0),
        facing_deg: 180.0,
    };
    b.perform(Action::Move {
        piece: u(1, 20),
        via: Vec::new(),
        to: Pose {
            at: Point::new(124.0, 96.0),
            facing_deg: 180.0,
        },
        manoeuvre: Manoeuvre::Advance,
    })
    .expect("a 5.66 cm oblique advance");
    let m = FogMemory::of_battle(&b, 0);
    assert!(!m.is_seen(u(1, 20)));
    assert_eq!(
        m.last_seen(u(1, 20)),
        Some(&LastSeen {
            pose: start,
            formation: Some(Formation::Line),
            limbered: false,
            game_turn: 1,
        }),
        "last seen where it stood when deployment ended (turn 1 began)"
    );
    // Brought up to date one entry at a time, the memory is the same as the fold's.
    let mut step = before.clone();
    let mut again = battle(&sc, 1);
    again.perform(Action::EndPhase).expect("deployment ends");
    step.catch_up(&again);
    again
        .perform(Action::Move {
            piece: u(1, 20),
            via: Vec::new(),
            to: Pose {
                at: Point::new(124.0, 96.0),
                facing_deg: 180.0,
            },
            manoeuvre: Manoeuvre::Advance,
        })
        .expect("the same move");
    step.catch_up(&again);
    assert_eq!(step.last_seen(u(1, 20)), m.last_seen(u(1, 20)));
    assert_eq!(step.seen(), m.seen());
    // Undo: B is back in the open and seen again.
    assert!(again.undo());
    step.catch_up(&again);
    assert!(step.is_seen(u(1, 20)));
    assert_eq!(step.last_seen(u(1, 20)), None);
}

#[test]
fn vis_01_fog_seen_by_is_the_union_of_each_pieces_visible_enemies_on_crowded_tables() {
    // `seen_by` asks the nearest observers first and stops at the first that sees: the set
    // must be exactly the union of the engine's own `visible_enemies` over the side.
    let mut checked = 0usize;
    for seed in [0x5eed_1809_u64, 3, 41] {
        let t = los_table::table(seed, &los_table::Knobs::bench());
        let ctx = powderhorn::rules::Ctx::new(&t.scenario, &t.lists, &t.state);
        let index = powderhorn::rules::visibility::SightIndex::new(&ctx);
        for side in 0..2 {
            let mut union = BTreeSet::new();
            for p in t.state.pieces.values().filter(|p| p.id.side() == side) {
                union.extend(index.visible_enemies(p.id).into_iter().map(|(id, _)| id));
            }
            let seen = seen_by(&ctx, side);
            assert_eq!(seen, union, "seed {seed}, side {side}");
            checked += t.state.pieces.len();
        }
    }
    assert!(checked >= 600, "checked {checked} pieces");
}
