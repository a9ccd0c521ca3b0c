//! Autoplay (issue 4 items 8 and 9): the solo opponent plays the sample scenario to its end.

use powderhorn::ai::{autoplay, AutoplayRun, Limits};
use powderhorn::model::army::{shipped_lists, ArmyList};
use powderhorn::model::samples;
use powderhorn::model::scenario::Scenario;
use powderhorn::rules::{Battle, DiceSource};

fn lists() -> Vec<ArmyList> {
    shipped_lists().expect("the shipped army lists parse")
}

fn ebelsberg() -> Scenario {
    samples::scenarios()
        .expect("the sample scenarios parse")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("Ebelsberg is among the shipped samples")
}

fn play(seed: u64) -> (Battle, AutoplayRun) {
    let mut b = Battle::new(ebelsberg(), lists(), DiceSource::Seed(seed), 0).expect("setup");
    let run = autoplay(&mut b, &Limits::default());
    (b, run)
}

#[test]
fn probe() {
    for seed in 0..3 {
        let t = std::time::Instant::now();
        let (_b, run) = play(seed);
        eprintln!(
            "seed {seed}: {:?} winner {:?} turns {} actions {} dice {} stands {:?} pieces {:?} refusals {} stopped {:?} vps {:?} in {:?}",
            run.reason, run.winner(), run.game_turns, run.actions, run.dice, run.stands_lost, run.pieces_lost, run.refusals.len(), run.stopped, run.vps(), t.elapsed()
        );
        for r in run.refusals.iter().take(8) {
            eprintln!("  {:?} {:?}", r.action, r.error);
        }
    }
}

#[test]
fn probe_guns() {
    use powderhorn::rules::visibility::SightIndex;
    let mut b = Battle::new(ebelsberg(), lists(), DiceSource::Seed(1), 0).expect("setup");
    b.perform(powderhorn::rules::Action::EndPhase).unwrap();
    b.perform(powderhorn::rules::Action::EndPhase).unwrap();
    let ctx = b.ctx();
    let sight = SightIndex::new(&ctx);
    for p in ctx.state.pieces.values() {
        if p.arm == Some(powderhorn::model::Arm::Artillery) || p.id.side() == 0 {
            let r = powderhorn::rules::firing::weapon_range_cm(&ctx, p);
            let vis = sight.visible_enemies(p.id);
            let ne = powderhorn::ai::policy::nearest_enemy(&ctx, p.id);
            eprintln!(
                "{} {} range {:?} phase {:?} nearest {:?} visible {:?}",
                p.id,
                p.name,
                r,
                ctx.state.turn.phase,
                ne,
                vis.iter().take(3).collect::<Vec<_>>()
            );
            if let Some((e, _)) = ne {
                eprintln!(
                    "   fire: {:?}  los {:?}",
                    powderhorn::rules::firing::check_fire(&ctx, &[p.id], e, None).err(),
                    sight.sight(p.id, e)
                );
            }
        }
    }
}

#[test]
fn probe_bridge() {
    use powderhorn::geom::Point;
    use powderhorn::rules::movement::check_move;
    use powderhorn::rules::{Action, Formation, Manoeuvre, Pose};
    let mut b = Battle::new(ebelsberg(), lists(), DiceSource::Seed(1), 0).expect("setup");
    let _ = autoplay(
        &mut b,
        &Limits {
            max_actions: 60,
            ..Limits::default()
        },
    );
    for p in b.state().pieces.values().filter(|p| p.id.side() == 0) {
        eprintln!("{} {:?} {:?} {:?}", p.id, p.pose, p.formation, p.stands);
    }
    while !(b.state().turn.phase == powderhorn::rules::Phase::Command && b.state().turn.active == 0)
    {
        b.perform(Action::EndPhase).unwrap();
    }
    let ctx = b.ctx();
    eprintln!("phase {:?} turn {:?}", ctx.state.turn.phase, ctx.state.turn);
    for p in ctx.state.pieces.values().filter(|p| {
        p.id.side() == 0
            && p.pose
                .is_some_and(|q| q.at.distance(Point::new(119.0, 50.0)).0 < 3.0)
    }) {
        let (w, c) = powderhorn::ai::policy::next_waypoint(&ctx, p.id, Point::new(146.0, 100.0));
        eprintln!("at bridge: {} waypoint {:?} {c}", p.id, w);
        let from = p.pose.unwrap();
        let bearing = powderhorn::geom::footprint::bearing_deg(from.at, w);
        let h = powderhorn::geom::footprint::heading(bearing);
        for len in [2.0, 5.0, 9.0] {
            let to = Pose {
                at: Point::new(from.at.x + h.x * len, from.at.y + h.y * len),
                facing_deg: bearing,
            };
            eprintln!(
                "  len {len}: {:?}",
                check_move(&ctx, p.id, &[], to, Manoeuvre::Advance).err()
            );
        }
        let _ = (Action::EndPhase, Formation::Line);
    }
}

#[test]
fn probe_trace() {
    let mut b = Battle::new(ebelsberg(), lists(), DiceSource::Seed(1), 0).expect("setup");
    let run = autoplay(&mut b, &Limits::default());
    for r in &run.refusals {
        eprintln!("REF t{} {:?} {:?}", r.game_turn, r.action.piece(), r.error);
    }
    for e in b.entries() {
        if let powderhorn::rules::Action::Move { piece, to, .. } = &e.action {
            if piece.to_string() == "0:u101" || piece.to_string() == "0:u102" {
                eprintln!("MOVE {piece} {:?}", to.at);
            }
        }
        if let powderhorn::rules::Action::Deploy { piece, formation } = &e.action {
            if piece.to_string() == "0:u101" || piece.to_string() == "0:u102" {
                eprintln!("DEPLOY {piece} {:?}", formation);
            }
        }
    }
}
