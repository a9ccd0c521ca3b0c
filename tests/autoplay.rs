//! Autoplay (issue 4 items 8 and 9): the solo opponent plays the sample scenario (Ebelsberg,
//! `campaigns/danube-1809/ebelsberg.json`) to its end, 1,000 times with seeds 0..1000, and every
//! game keeps the rules' invariants:
//!
//! * stands never go below zero and never increase (END-01 only removes them);
//! * every End phase leaves no hits on the table (END-01, GEN-11);
//! * each side's VPs earned are the points of what the other side lost — units, command units
//!   and field defences (VP-01, DEF-06, `src/rules/victory.rs`);
//! * every battle ends (END-03) within its turn limit;
//! * the log replays: its actions re-performed with the same seed give the same events, event
//!   for event, and folding the events gives the same state.
//!
//! The games run on all cores (`std::thread::scope`), each seed on its own battle, so the
//! results do not depend on the thread count.

#[path = "support/builder.rs"]
mod builder;
use builder::ebelsberg;

use powderhorn::ai::{autoplay, AutoplayRun, Limits};
use powderhorn::model::army::{shipped_lists, ArmyList};
use powderhorn::model::scenario::Scenario;
use powderhorn::rules::apply::apply;
use powderhorn::rules::event::EndReason;
use powderhorn::rules::state::Phase;
use powderhorn::rules::victory::piece_points;
use powderhorn::rules::{Battle, BattleState, DiceSource, Event};
use std::collections::BTreeMap;

#[path = "support/every_option.rs"]
mod every_option;

/// The "battles, not parades" floor: at least this many of the 1,000 games lose a stand
/// (measured 2026-11-26: 823 of 1,000; 2026-12-07: 431). The old figure leaned on a defect:
/// a unit inside a town or a wood whose quarter-speed move was shorter than the opponent's
/// sampling found no destination and stood frozen, and the French skirmishers stood so at the
/// bridge's end under the Austrian guns, losing a stand in most games. They now move on into
/// the town; the opponent's assault over the bridge is still #20's open item.
const PARADE_FLOOR: usize = 350;

fn lists() -> Vec<ArmyList> {
    shipped_lists().expect("the shipped army lists parse")
}

fn play(scenario: &Scenario, lists: &[ArmyList], seed: u64) -> (Battle, AutoplayRun) {
    let mut b = Battle::new(scenario.clone(), lists.to_vec(), DiceSource::Seed(seed), 0)
        .expect("the sample sets up");
    let run = autoplay(&mut b, &Limits::default());
    (b, run)
}

/// Every invariant of one finished game; the problems found, empty when none.
fn check_game(scenario: &Scenario, lists: &[ArmyList], seed: u64) -> (AutoplayRun, Vec<String>) {
    let (battle, run) = play(scenario, lists, seed);
    let mut bad = Vec::new();
    // END-03: the battle ended, within its turn limit.
    if !run.finished || battle.state().turn.phase != Phase::Over {
        bad.push(format!("did not end: {:?}", run.stopped));
    }
    if run.game_turns > scenario.turn_limit {
        bad.push(format!(
            "ended in game turn {} past the limit {}",
            run.game_turns, scenario.turn_limit
        ));
    }
    let ended = battle
        .events()
        .filter(|e| matches!(e, Event::BattleEnded { .. }))
        .count();
    if ended != 1 {
        bad.push(format!("{ended} BattleEnded events"));
    }
    // Stands and hits, checked entry by entry on the folded state.
    let mut state: BattleState = battle.initial_state().clone();
    for (k, entry) in battle.entries().iter().enumerate() {
        let before: BTreeMap<_, u8> = state.pieces.iter().map(|(id, p)| (*id, p.stands)).collect();
        for e in &entry.events {
            apply(&mut state, e);
        }
        for (id, p) in &state.pieces {
            if before.get(id).is_some_and(|&s| p.stands > s) {
                bad.push(format!("entry {k}: {id} gained stands"));
            }
        }
        let end_phase_done = entry
            .events
            .iter()
            .any(|e| matches!(e, Event::PhaseEnded { phase: Phase::End }));
        if end_phase_done {
            // A knocked-out piece is off the table with whatever hits knocked it out.
            for (id, p) in state.pieces.iter().filter(|(_, p)| p.on_table()) {
                if p.hits != 0 {
                    bad.push(format!("entry {k}: {id} keeps {} hits after End", p.hits));
                }
            }
        }
    }
    // OPT-NATION-03: an allied army that broke has left the battle by the end of that turn.
    let ctx = battle.ctx();
    for brk in &battle.state().allegiance.broken {
        let still = battle.state().pieces.values().any(|p| {
            p.id.side() == brk.side
                && !p.knocked_out
                && powderhorn::rules::allegiance::army_of(&ctx, p.id) == brk.head
                && !powderhorn::rules::fao::is_fao(&ctx, p.id)
                && brk.player_turn < battle.state().turn.player_turn
        });
        if still {
            bad.push(format!(
                "a piece of the broken allied army {:?} is still in the battle",
                brk.head
            ));
        }
    }
    if &state != battle.state() || battle.replay_events() != *battle.state() {
        bad.push("folding the events does not give the state".into());
    }
    // VP-01, DEF-06: VPs earned are the points of the opponent's losses.
    if let Some(result) = &run.result {
        for side in 0..2 {
            let opponent = 1 - side;
            let pieces: i64 = battle
                .state()
                .pieces
                .values()
                .filter(|p| p.id.side() == opponent && p.knocked_out)
                .map(|p| piece_points(&ctx, p.id))
                .sum();
            let defences: i64 = battle
                .events()
                .filter_map(|e| match e {
                    Event::DefenseKnockedOut {
                        side: s, defense, ..
                    } if *s == opponent => scenario.sides[opponent]
                        .field_defenses
                        .iter()
                        .find(|d| d.id == *defense)
                        .map(|d| i64::from(d.cost())),
                    _ => None,
                })
                .sum();
            if result.sides[side].vp_earned != pieces + defences {
                bad.push(format!(
                    "side {side} earned {} VPs, losses are worth {}",
                    result.sides[side].vp_earned,
                    pieces + defences
                ));
            }
        }
    } else {
        bad.push("no BattleResult".into());
    }
    // The log replays event for event.
    let mut again =
        Battle::new(scenario.clone(), lists.to_vec(), DiceSource::Seed(seed), 0).expect("setup");
    for (k, entry) in battle.entries().iter().enumerate() {
        match again.perform(entry.action.clone()) {
            Ok(events) if events == entry.events.as_slice() => {}
            Ok(_) => {
                bad.push(format!("entry {k}: replay gives other events"));
                break;
            }
            Err(e) => {
                bad.push(format!("entry {k}: replay refused: {e}"));
                break;
            }
        }
    }
    if again.state() != battle.state() {
        bad.push("the replayed state differs".into());
    }
    (run, bad)
}

/// Runs `check_game` for every seed, spread over the machine's cores; results in seed order.
fn check_many(seeds: std::ops::Range<u64>) -> Vec<(u64, AutoplayRun, Vec<String>)> {
    check_many_of(&ebelsberg(), seeds)
}

/// As [`check_many`], for any scenario.
fn check_many_of(
    scenario: &Scenario,
    seeds: std::ops::Range<u64>,
) -> Vec<(u64, AutoplayRun, Vec<String>)> {
    let lists = lists();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let all: Vec<u64> = seeds.collect();
    let mut out: Vec<(u64, AutoplayRun, Vec<String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let mine: Vec<u64> = all.iter().copied().skip(t).step_by(threads).collect();
                let (scenario, lists) = (scenario, &lists);
                scope.spawn(move || {
                    mine.into_iter()
                        .map(|seed| {
                            let (run, bad) = check_game(scenario, lists, seed);
                            (seed, run, bad)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a game thread panicked"))
            .collect()
    });
    out.sort_by_key(|(seed, _, _)| *seed);
    out
}

#[test]
fn end_03_vp_01_end_01_a_thousand_autoplayed_battles_keep_the_invariants_and_replay() {
    let started = std::time::Instant::now();
    let games = check_many(0..1_000);
    let failures: Vec<String> = games
        .iter()
        .filter(|(_, _, bad)| !bad.is_empty())
        .map(|(seed, _, bad)| format!("seed {seed}: {}", bad.join("; ")))
        .collect();
    let wins = games.iter().fold([0u32; 3], |mut w, (_, r, _)| {
        w[r.winner().map_or(2, |s| s.min(1))] += 1;
        w
    });
    let dice: usize = games.iter().map(|(_, r, _)| r.dice).sum();
    let bloody = games
        .iter()
        .filter(|(_, r, _)| r.stands_lost.iter().sum::<u32>() > 0)
        .count();
    eprintln!(
        "{} games in {:.1?}: wins {:?} (side 0, side 1, draws), {:.0} dice per game, {bloody} games lost a stand",
        games.len(),
        started.elapsed(),
        wins,
        dice as f64 / games.len() as f64
    );
    assert_eq!(games.len(), 1_000);
    assert!(
        failures.is_empty(),
        "{} games broke an invariant:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The games are battles, not parades: dice are rolled in every game, and many games cost
    // stands (not just one game in a thousand): 431 of 1,000 did when last measured.
    assert!(
        games.iter().all(|(_, r, _)| r.dice > 0),
        "a game rolled no dice"
    );
    assert!(
        bloody >= PARADE_FLOOR,
        "only {bloody} of 1,000 games lost a stand (floor {PARADE_FLOOR}): the solo opponent parades"
    );
}

/// #21 acceptance: with every optional rule switched on — and an allied army on each side, a
/// Hungarian brigade among the Austrians (OPT-NATION-01, OPT-NATION-03) — 1,000 autoplayed
/// battles keep every invariant above and replay.
#[test]
fn opt_nation_03_every_optional_rule_on_a_thousand_autoplayed_battles_keep_the_invariants() {
    let scenario = every_option::ebelsberg_every_option();
    let games = check_many_of(&scenario, 0..1_000);
    let failures: Vec<String> = games
        .iter()
        .filter(|(_, _, bad)| !bad.is_empty())
        .map(|(seed, _, bad)| format!("seed {seed}: {}", bad.join("; ")))
        .collect();
    assert_eq!(games.len(), 1_000);
    assert!(
        failures.is_empty(),
        "{} games broke an invariant:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        games.iter().all(|(_, r, _)| r.dice > 0),
        "a game rolled no dice"
    );
}

#[test]
fn autoplay_is_deterministic_per_seed() {
    let scenario = ebelsberg();
    let lists = lists();
    let (a, ra) = play(&scenario, &lists, 7);
    let (b, rb) = play(&scenario, &lists, 7);
    assert_eq!(ra, rb);
    assert_eq!(a.log(), b.log());
}

/// A fixed seed's game, so that a change of policy or rules shows here (update the numbers
/// deliberately when the policy changes).
#[test]
fn golden_seed_1809_autoplay_result() {
    let (_, run) = play(&ebelsberg(), &lists(), 1809);
    let summary = (
        run.winner(),
        run.reason,
        run.game_turns,
        run.dice,
        run.stands_lost,
        run.vps(),
    );
    eprintln!("{summary:?}");
    assert_eq!(
        summary,
        // Since the charge odds count the defender's cover (CHG-16) and the guns move up to
        // prepare the assault: the French no longer charge into the town at odds they cannot
        // win, and the Austrians win at the turn limit. Since a marching or firing band is
        // ordered again in succession (CMD-06, CMD-08): other dice at other moments; the one
        // Austrian stand lost before is not, and a French stand is. Since a move's legal
        // destinations include the last step its allowance reaches (TERR-04: a unit inside a
        // wood or a town moves on at quarter speed instead of standing frozen): the French
        // skirmishers leave the bridge's end into the town instead of standing under fire
        // there; an Austrian stand is lost, no French one. Since the opponent goes round slow
        // ground between it and its target (TERR-04, `policy::detour_round_slow_ground`):
        // other ways, other dice at other moments; no stand is lost on either side. Since a
        // unit takes the short step up to a wall it halted just short of (TERR-02, MOVE-03) and
        // an attacker steps onto its objective ground in the closing turns: the French come
        // over the bridge and onto the town's edge in the last turns, lose five stands and the
        // units they belonged to (240 VPs to the Austrians), and the Austrians, holding the
        // town, end it on their objective in the tenth turn.
        (
            Some(1),
            Some(EndReason::Objective),
            10,
            430,
            [5, 0],
            [0, 240]
        ),
        "the golden game changed"
    );
}

/// MOVE-01..MOVE-06: the battle's memo remembers the move checks asked of its own state until
/// the state changes. Stopped at points through a game, every unit's moves (straight, with a
/// waypoint, a wheel) checked through the battle — once to fill the memo, once from it — give
/// the very answers of a context without the memo, plan for plan and refusal for refusal.
#[test]
fn move_01_remembered_move_checks_match_fresh_ones_through_a_game() {
    use powderhorn::geom::Point;
    use powderhorn::rules::movement::check_move;
    use powderhorn::rules::{Ctx, Manoeuvre, Pose};
    let scenario = ebelsberg();
    let lists = lists();
    let mut checked = 0;
    let mut legal = 0;
    for stop in [0usize, 7, 40, 120] {
        let mut battle = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(3), 0)
            .expect("the sample sets up");
        let limits = Limits {
            max_actions: stop,
            ..Limits::default()
        };
        if stop > 0 {
            autoplay(&mut battle, &limits);
        }
        let state = battle.state().clone();
        let bare = Ctx::new(battle.scenario(), battle.lists(), &state);
        for (id, p) in &state.pieces {
            let Some(from) = p.pose else { continue };
            let ahead = |d: f64, turn: f64| {
                let f = (from.facing_deg + turn).to_radians();
                Point::new(from.at.x + d * f.sin(), from.at.y + d * f.cos())
            };
            let tries: [(Vec<Point>, Pose, Manoeuvre); 4] = [
                (
                    vec![],
                    Pose {
                        at: ahead(6.0, 0.0),
                        facing_deg: from.facing_deg,
                    },
                    Manoeuvre::Advance,
                ),
                (
                    vec![],
                    Pose {
                        at: ahead(25.0, 0.0),
                        facing_deg: from.facing_deg,
                    },
                    Manoeuvre::Advance,
                ),
                (
                    vec![ahead(5.0, 0.0)],
                    Pose {
                        at: ahead(9.0, 30.0),
                        facing_deg: from.facing_deg + 30.0,
                    },
                    Manoeuvre::Advance,
                ),
                (
                    vec![],
                    Pose {
                        at: from.at,
                        facing_deg: from.facing_deg + 40.0,
                    },
                    Manoeuvre::Wheel,
                ),
            ];
            for (via, to, m) in tries {
                let fresh = check_move(&bare, *id, &via, to, m);
                for _ in 0..2 {
                    let memo = check_move(&battle.ctx(), *id, &via, to, m);
                    assert_eq!(memo, fresh, "{id:?} at stop {stop}: {via:?} {to:?} {m:?}");
                }
                checked += 1;
                legal += usize::from(fresh.is_ok());
            }
        }
    }
    assert!(checked > 500, "only {checked} moves checked");
    assert!(
        legal > 20 && legal < checked,
        "{legal} of {checked} legal: both kinds must be met"
    );
}

/// VIS-01..VIS-17: what the battle's sight memo is told of each event is true
/// (`apply::changes_sight_of`). Every event of a few played games, applied to the state before
/// it, leaves the set of pieces and every piece it does not name with the sight fields they had;
/// one that names none (`leaves_sight_alone`) leaves the works and lost defences too.
#[test]
fn vis_01_events_change_the_sight_of_no_piece_but_those_they_name() {
    use powderhorn::rules::apply::{changes_sight_of, leaves_sight_alone};
    use powderhorn::rules::PieceState;
    fn seen(p: &PieceState) -> String {
        format!(
            "{:?} {:?}",
            (
                &p.name,
                p.pose,
                p.formation,
                p.stands,
                p.limbered,
                p.knocked_out,
                p.dug_in,
            ),
            (
                p.revealed,
                p.has_fired,
                &p.flank,
                &p.troop_type,
                p.arm,
                p.command,
            )
        )
    }
    fn terrain(s: &BattleState) -> String {
        format!("{:?} {:?}", s.engineering.works, s.ledger.sides)
    }
    let scenario = ebelsberg();
    let lists = lists();
    let (mut none, mut named, mut any) = (0, 0, 0);
    for seed in [1u64, 2, 5] {
        let (battle, _) = play(&scenario, &lists, seed);
        let mut state = battle.initial_state().clone();
        for e in battle.events() {
            let before = state.clone();
            apply(&mut state, e);
            let Some(ids) = changes_sight_of(e) else {
                any += 1;
                continue;
            };
            let keys = |s: &BattleState| s.pieces.keys().copied().collect::<Vec<_>>();
            assert_eq!(keys(&before), keys(&state), "{e:?}");
            for (id, p) in &state.pieces {
                if !ids.contains(id) {
                    assert_eq!(seen(&before.pieces[id]), seen(p), "{e:?}");
                }
            }
            if ids.is_empty() {
                assert!(leaves_sight_alone(e));
                none += 1;
                if !matches!(e, Event::ObjectiveDeclared { .. }) {
                    assert_eq!(terrain(&before), terrain(&state), "{e:?}");
                }
            } else {
                named += 1;
            }
        }
    }
    assert!(
        none > 1_000 && named > 100 && any > 10,
        "{none} change no piece, {named} named pieces, {any} any"
    );
}

/// VIS-01..VIS-17: the battle's own sight memo, carried from action to action (refreshed piece
/// by piece, or kept across actions that change nothing sight sees), answers as a fresh index
/// of the same state. A played game is re-performed action by action; after each, every
/// piece's visible enemies and a sample of pairs are asked of both.
#[test]
fn vis_01_the_battles_sight_memo_answers_as_a_fresh_index_after_every_action() {
    use powderhorn::rules::visibility::{sight_index, SightIndex};
    use powderhorn::rules::Ctx;
    use powderhorn::rules::PieceId;
    let scenario = ebelsberg();
    let lists = lists();
    let (played, _) = play(&scenario, &lists, 4);
    let mut battle = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(4), 0)
        .expect("the sample sets up");
    let mut compared = 0;
    for (step, entry) in played.entries().iter().enumerate() {
        battle
            .perform(entry.action.clone())
            .expect("the logged action performs again");
        if step % 3 != 0 {
            continue;
        }
        let memo = sight_index(&battle.ctx());
        let state = battle.state().clone();
        let fresh = SightIndex::new(&Ctx::new(battle.scenario(), battle.lists(), &state));
        let ids: Vec<PieceId> = state
            .pieces
            .iter()
            .filter(|(_, p)| p.on_table())
            .map(|(id, _)| *id)
            .collect();
        for (k, a) in ids.iter().enumerate() {
            assert_eq!(
                memo.visible_enemies(*a),
                fresh.visible_enemies(*a),
                "step {step}"
            );
            if let Some(b) = ids.get((k * 7 + step) % ids.len()) {
                assert_eq!(memo.sight(*a, *b), fresh.sight(*a, *b), "step {step}");
            }
            compared += 1;
        }
    }
    assert!(compared > 1_000, "only {compared} pieces compared");
}
