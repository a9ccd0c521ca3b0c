//! #21 item 3: the solo opponent uses the optional rules a scenario switches on — saber charges
//! (OPT-SABER-01), going prone and standing up (OPT-PRONE-01) and scouts (OPT-SCOUT-01,
//! OPT-SCOUT-02) — through the engine like any other action, and leaves them alone when they
//! are off.

use powderhorn::ai::{autoplay, Limits};
use powderhorn::model::army::shipped_lists;
use powderhorn::model::{samples, OptionalRule, Scenario};
use powderhorn::rules::{Action, Battle, DiceSource, Event};

fn sample(id: &str, rules: &[OptionalRule]) -> Scenario {
    let mut s = samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .find(|s| s.id.as_str() == id)
        .expect("a shipped sample");
    s.optional_rules = rules.to_vec();
    s
}

#[derive(Default, Debug)]
struct Used {
    saber: usize,
    prone: usize,
    stood_up: usize,
    scouts_out: usize,
    scouts_launched: usize,
    scout_moves: usize,
}

fn used_in(scenario: &Scenario, seeds: std::ops::Range<u64>) -> Used {
    let lists = shipped_lists().expect("lists");
    let mut u = Used::default();
    for seed in seeds {
        let mut b = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(seed), 0)
            .expect("sets up");
        let run = autoplay(&mut b, &Limits::default());
        assert!(run.finished, "seed {seed}: {:?}", run.stopped);
        let scouts: Vec<_> = b
            .log()
            .entries
            .iter()
            .flat_map(|e| &e.events)
            .filter_map(|ev| match ev {
                Event::ScoutDeployed { scout, .. } => Some(*scout),
                _ => None,
            })
            .collect();
        for e in &b.log().entries {
            match &e.action {
                Action::Charge { saber: true, .. } => u.saber += 1,
                Action::Prone { prone: true, .. } => u.prone += 1,
                Action::Prone { prone: false, .. } => u.stood_up += 1,
                Action::Move { piece, .. } if scouts.contains(piece) => u.scout_moves += 1,
                _ => {}
            }
            for ev in &e.events {
                match ev {
                    Event::ScoutDeployed { .. } => u.scouts_out += 1,
                    Event::ScoutLaunch { launched: true, .. } => u.scouts_launched += 1,
                    _ => {}
                }
            }
        }
    }
    u
}

#[test]
fn opt_saber_01_opt_prone_01_opt_scout_01_opt_scout_02_the_solo_opponent_uses_the_rules_switched_on(
) {
    let rules = [
        OptionalRule::SaberCharge,
        OptionalRule::Prone,
        OptionalRule::Scouting,
    ];
    let used = used_in(&sample("1809-ebelsberg", &rules), 0..8);
    eprintln!("Ebelsberg: {used:?}");
    assert!(used.scouts_out >= 8, "scouts sent out: {used:?}");
    assert!(used.scouts_launched >= 4, "scouts launched: {used:?}");
    assert!(used.scout_moves >= 4, "scouts moved: {used:?}");
    assert!(used.prone >= 1, "nobody lay down: {used:?}");
    assert!(used.stood_up >= 1, "nobody stood up again: {used:?}");
    // Aspern's open ground has the cavalry fights.
    let aspern = used_in(&sample("1809-aspern-essling-1", &rules), 0..4);
    eprintln!("Aspern: {aspern:?}");
    assert!(
        used.saber + aspern.saber >= 1,
        "no saber charge: {used:?} {aspern:?}"
    );

    let off = used_in(&sample("1809-ebelsberg", &[]), 0..3);
    assert_eq!(
        (off.saber, off.prone, off.stood_up, off.scouts_out),
        (0, 0, 0, 0),
        "with the rules off the opponent plays the standard rules: {off:?}"
    );
}
