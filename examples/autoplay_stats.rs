//! Plays the sample battle (Ebelsberg) with the autoplay policy over a range of seeds and prints
//! win rates, mean turns and stands lost: `cargo run --example autoplay_stats -- 0 100`.

use powderhorn::ai::{autoplay, Limits};
use powderhorn::model::army::shipped_lists;
use powderhorn::model::samples;
use powderhorn::rules::{Battle, DiceSource};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let from = args.first().copied().unwrap_or(0);
    let to = args.get(1).copied().unwrap_or(from + 100);
    let Ok(lists) = shipped_lists() else { return };
    let Some(scenario) = samples::scenarios()
        .ok()
        .and_then(|v| v.into_iter().find(|s| s.id.as_str() == "1809-ebelsberg"))
    else {
        return;
    };
    let (mut wins, mut turns, mut lost, mut dice, mut n) = ([0u32; 3], 0u64, [0u64; 2], 0u64, 0u64);
    let (mut charges, mut orders, mut rolled) = (0u64, 0u64, 0u64);
    let mut reasons = std::collections::BTreeMap::new();
    let mut refused = std::collections::BTreeMap::new();
    for seed in from..to {
        let Ok(mut b) = Battle::new(scenario.clone(), lists.clone(), DiceSource::Seed(seed), 0)
        else {
            return;
        };
        let run = autoplay(&mut b, &Limits::default());
        charges += b
            .events()
            .filter(|e| matches!(e, powderhorn::rules::Event::ChargeDeclared { .. }))
            .count() as u64;
        orders += b
            .events()
            .filter(|e| matches!(e, powderhorn::rules::Event::OrderRolled(r) if r.outcome.issued()))
            .count() as u64;
        rolled += b
            .events()
            .filter(|e| matches!(e, powderhorn::rules::Event::OrderRolled(_)))
            .count() as u64;
        wins[run.winner().map_or(2, |s| s.min(1))] += 1;
        turns += u64::from(run.game_turns);
        lost[0] += u64::from(run.stands_lost[0]);
        lost[1] += u64::from(run.stands_lost[1]);
        dice += run.dice as u64;
        n += 1;
        *reasons.entry(format!("{:?}", run.reason)).or_insert(0u32) += 1;
        for r in &run.refusals {
            let id = r.error.split(':').next().unwrap_or("").to_string();
            *refused.entry(id).or_insert(0u32) += 1;
        }
        if to - from <= 2 {
            for p in b.state().pieces.values().filter(|p| p.on_table()) {
                println!(
                    "  {} {:?} {:?} stands {}",
                    p.id,
                    p.pose.map(|q| (q.at.x.round(), q.at.y.round())),
                    p.formation,
                    p.stands
                );
            }
        }
        if to - from <= 5 {
            println!(
                "seed {seed}: {:?} {:?} turns {} lost {:?} vps {:?} dice {} actions {}",
                run.winner(),
                run.reason,
                run.game_turns,
                run.stands_lost,
                run.vps(),
                run.dice,
                run.actions
            );
        }
    }
    let n = n.max(1) as f64;
    println!(
        "{} games: wins side0 {} side1 {} none {}; mean turns {:.2}; mean stands lost {:.2} / {:.2}; mean dice {:.0}",
        n, wins[0], wins[1], wins[2], turns as f64 / n, lost[0] as f64 / n, lost[1] as f64 / n, dice as f64 / n
    );
    println!(
        "end reasons: {reasons:?}; charges per game {:.2}; orders per game {:.1} ({:.0}% issued)",
        charges as f64 / n,
        rolled as f64 / n,
        100.0 * orders as f64 / rolled.max(1) as f64
    );
    let mut r: Vec<_> = refused.into_iter().collect();
    r.sort_by_key(|x| std::cmp::Reverse(x.1));
    println!(
        "refusals (first word): {:?}",
        r.into_iter().take(12).collect::<Vec<_>>()
    );
}
