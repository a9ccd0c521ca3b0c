//! Replay speed (issue "BPTC engine I", item 7): rebuilding a battle from a 5,000-event log.
//!
//! `replay_events`: fold 5,000 logged events over the initial state (what undo and loading a
//! saved battle do). Target: median ≤ 50 ms. `replay_actions`: re-run the same actions through
//! check → resolve → apply (what the determinism check does). The log is made here from the
//! sample scenario: formation changes of every unit and phase ends, in a fixed order.

use criterion::{criterion_group, criterion_main, Criterion};
use powderhorn::model::army::shipped_lists;
use powderhorn::model::samples;
use powderhorn::rules::{Action, Battle, DiceSource, Formation};
use std::hint::black_box;

fn build() -> (Battle, Vec<Action>) {
    let mut scenario = samples::scenarios().expect("sample")[0].clone();
    scenario.turn_limit = 1_000; // long enough for a 5,000-event log
    let lists = shipped_lists().expect("lists");
    let mut battle = Battle::new(scenario, lists, DiceSource::Seed(1809), 0)
        .expect("setup")
        .with_orders(powderhorn::rules::command::OrdersMode::Free);
    let mut actions = Vec::new();
    let cycle = [
        Formation::MarchColumn,
        Formation::AttackColumn,
        Formation::Line,
    ];
    let mut events = 0;
    let mut step = 0usize;
    while events < 5_000 {
        let active = battle.state().turn.active;
        let phase = battle.state().turn.phase;
        let pieces: Vec<_> = battle
            .state()
            .pieces
            .values()
            .filter(|p| p.id.side() == active && p.formation.is_some())
            .map(|p| p.id)
            .collect();
        let mut acted = false;
        if matches!(
            phase,
            powderhorn::rules::Phase::Initiative | powderhorn::rules::Phase::Command
        ) {
            for piece in pieces {
                let a = Action::Deploy {
                    piece,
                    formation: cycle[step % cycle.len()],
                };
                if let Ok(ev) = battle.perform(a.clone()) {
                    events += ev.len();
                    actions.push(a);
                    acted = true;
                }
            }
            step += 1;
        }
        if !acted || step.is_multiple_of(2) {
            match battle.perform(Action::EndPhase) {
                Ok(ev) => {
                    events += ev.len();
                    actions.push(Action::EndPhase);
                }
                Err(_) => break, // the turn limit ended the battle
            }
        }
    }
    (battle, actions)
}

fn bench_replay(c: &mut Criterion) {
    let (battle, actions) = build();
    let n: usize = battle.entries().iter().map(|e| e.events.len()).sum();
    assert!(n >= 5_000, "the log has {n} events");
    eprintln!("replay log: {} actions, {n} events", actions.len());
    c.bench_function("replay_events_5000", |b| {
        b.iter(|| black_box(battle.replay_events()))
    });
    let scenario = battle.scenario().clone();
    let lists = battle.lists().to_vec();
    c.bench_function("replay_actions_5000", |b| {
        b.iter(|| {
            let mut again = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(1809), 0)
                .expect("setup");
            for a in &actions {
                let _ = again.perform(a.clone());
            }
            black_box(again.state().turn)
        })
    });
}

/// Issue #16 item 10: a stored battle session. `session_resume_5000_events`: rebuild the
/// 5,000-event battle above from its stored log in SQLite (read the rows, fold undo/redo,
/// apply the events): target ≤ 100 ms. `session_perform_and_commit`: one action of a real
/// autoplayed Ebelsberg battle (orders, moves, fire, charges, phase ends, in its own order)
/// performed and committed to a WAL database file in its own transaction: target ≤ 2 ms.
fn bench_session(c: &mut Criterion) {
    use powderhorn::ai::{autoplay, Limits};
    use powderhorn::session::{NewBattle, Session};
    use powderhorn::store::{Actor, PlayMode, Store};
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = Store::open(&dir.path().join("bench.sqlite")).expect("store");
    let (battle, actions) = build();
    let new = |dice, orders| NewBattle {
        dice,
        orders,
        first_player: Some(0),
        mode: PlayMode::Hotseat,
        go_ahead: true,
        fog: false,
    };
    let mut s = Session::start(
        &mut store,
        battle.scenario().clone(),
        battle.lists(),
        &new(
            DiceSource::Seed(1809),
            powderhorn::rules::command::OrdersMode::Free,
        ),
    )
    .expect("session");
    for a in &actions {
        s.perform(&mut store, a.clone(), Actor::Player)
            .expect("the log's actions replay");
    }
    let id = s.id();
    let n: usize = s.battle().entries().iter().map(|e| e.events.len()).sum();
    assert!(n >= 5_000, "the stored log has {n} events");
    c.bench_function("session_resume_5000_events", |b| {
        b.iter(|| {
            black_box(
                Session::resume(&store, id)
                    .expect("resumes")
                    .battle()
                    .state()
                    .turn,
            )
        })
    });

    // A real game's actions, performed again one by one in a fresh session when used up.
    let scenario = samples::scenarios().expect("sample")[0].clone();
    let lists = shipped_lists().expect("lists");
    let mut game =
        Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(1809), 0).expect("setup");
    autoplay(&mut game, &Limits::default());
    let played: Vec<Action> = game.entries().iter().map(|e| e.action.clone()).collect();
    eprintln!("perform-and-commit sequence: {} actions", played.len());
    let start = |store: &mut Store| {
        Session::start(
            store,
            scenario.clone(),
            &lists,
            &new(
                DiceSource::Seed(1809),
                powderhorn::rules::command::OrdersMode::Full,
            ),
        )
        .expect("session")
    };
    let mut s = start(&mut store);
    let mut next = 0usize;
    c.bench_function("session_perform_and_commit", |b| {
        b.iter_custom(|iters| {
            let mut total = std::time::Duration::ZERO;
            for _ in 0..iters {
                if next == played.len() {
                    s = start(&mut store);
                    next = 0;
                }
                let a = played[next].clone();
                next += 1;
                let t = std::time::Instant::now();
                let _ = black_box(s.perform(&mut store, a, Actor::Player));
                total += t.elapsed();
            }
            total
        })
    });
}

criterion_group!(benches, bench_replay, bench_session);
criterion_main!(benches);
