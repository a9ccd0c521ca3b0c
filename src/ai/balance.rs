//! The scenario balance report: from the results of many games the solo opponent played of one
//! scenario, who is favoured and why.
//!
//! Each game is boiled down to a [`GameRecord`] (who won or a draw, each side's VPs (VP-01,
//! VP-02), stands lost, game turns played, why it ended (END-03), each side's objective as the
//! verdict counted it (OBJ-01), and what became of every unit), read from the battle's final
//! state and the verdict the engine wrote ([`GameRecord::of`]). [`BalanceReport::from_games`]
//! turns a list of records into rates with 95% Wilson score intervals, spreads (min, quartiles,
//! max, mean and histogram bins), objective and unit survival rates, and a verdict in words.
//!
//! The report depends only on the records and their order, never on how or where they were
//! played: the runner (`session::balance`) plays them on as many threads as it likes and hands
//! them over in game order, so the report is the same whatever the thread count. A report of
//! the games finished before a Stop is as valid as a full one, just wider in its intervals.
//!
//! Each game's dice seed is [`game_seed`] of the base seed and the game's index: game k of
//! base seed s is the game `battle autoplay --seed s+k` plays (with the same `--policy`).
//!
//! The setup and the report name the [`Policy`] each side was played with: the standard
//! opponent, or the `hold` baseline it is measured against (`battle balance --policy`).
//!
//! Layering: pure like the rest of `ai` — no threads, no clock, no file system.

use super::autoplay::{AutoplayRun, Policy};
use crate::model::scenario::Scenario;
use crate::rules::battle::Battle;
use crate::rules::event::EndReason;
use crate::rules::report::short_names;
use crate::rules::state::PieceId;
use crate::rules::victory::ObjectiveLevel;
use serde::{Deserialize, Serialize};

/// The z value of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Histograms have at most about this many bins.
pub const MAX_BINS: usize = 12;

/// The dice seed of game `index` of a run started from `base`: `base + index` (wrapping), so
/// game k is the game `battle autoplay --seed base+k` plays, whatever thread plays it.
pub fn game_seed(base: u64, index: u64) -> u64 {
    base.wrapping_add(index)
}

/// A piece as the report names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitInfo {
    pub piece: PieceId,
    pub side: usize,
    pub name: String,
    /// Stands at the start of the battle.
    pub stands: u8,
    /// A command unit (HQ) rather than a troop unit.
    pub command: bool,
}

/// What the report needs to know of the scenario: the sides, their objectives and the pieces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BalanceSetup {
    pub scenario: String,
    pub sides: [String; 2],
    /// Per side, the descriptions of its major and minor objective (OBJ-01).
    pub objectives: [[String; 2]; 2],
    /// Every piece at the start, in id order.
    pub units: Vec<UnitInfo>,
    /// How each side is played (both standard in a report written before sides had a choice).
    #[serde(default)]
    pub policies: [Policy; 2],
}

impl BalanceSetup {
    /// The setup of a battle just created from its scenario, each side played by `policies`.
    pub fn of(battle: &Battle, policies: [Policy; 2]) -> BalanceSetup {
        let scenario: &Scenario = battle.scenario();
        let side = |i: usize| scenario.sides.get(i);
        let name = |i: usize| side(i).map_or_else(|| format!("Side {}", i + 1), |s| s.name.clone());
        let objectives = |i: usize| {
            side(i).map_or_else(
                || [String::new(), String::new()],
                |s| {
                    [
                        s.objectives.major.description.clone(),
                        s.objectives.minor.description.clone(),
                    ]
                },
            )
        };
        let units = battle
            .initial_state()
            .pieces
            .values()
            .map(|p| UnitInfo {
                piece: p.id,
                side: p.id.side().min(1),
                name: p.name.clone(),
                stands: p.stands,
                command: p.id.is_command(),
            })
            .collect();
        BalanceSetup {
            scenario: scenario.name.clone(),
            sides: [name(0), name(1)],
            objectives: [objectives(0), objectives(1)],
            units,
            policies,
        }
    }
}

/// What became of one piece in one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitOutcome {
    pub knocked_out: bool,
    /// Stands lost (all of them once knocked out).
    pub stands_lost: u8,
}

/// One game, as the report counts it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's index in the run (its seed is [`game_seed`] of it).
    pub index: u64,
    /// The battle reached its end (false: the driver had to stop it; counted as no winner).
    pub finished: bool,
    /// The winning side (none: a draw or unfinished).
    pub winner: Option<usize>,
    pub reason: Option<EndReason>,
    /// Final VPs per side (VP-01, VP-02).
    pub vps: [i64; 2],
    /// Stands lost per side.
    pub stands_lost: [u32; 2],
    /// Game turns begun.
    pub turns: u32,
    /// The objective each side reached as the verdict counted it (OBJ-01 ruling (b)).
    pub objectives: [ObjectiveLevel; 2],
    /// Per piece of [`BalanceSetup::units`], in the same order.
    pub units: Vec<UnitOutcome>,
    /// SEQ-01: the side that moved first (named by the scenario, or its roll-off's winner).
    #[serde(default)]
    pub first_player: usize,
}

impl GameRecord {
    /// The record of a game the opponent played: `battle` as the run left it, `setup` the
    /// pieces at the start.
    pub fn of(index: u64, setup: &BalanceSetup, battle: &Battle, run: &AutoplayRun) -> GameRecord {
        let state = battle.state();
        let units = setup
            .units
            .iter()
            .map(|u| match state.pieces.get(&u.piece) {
                Some(p) if p.knocked_out => UnitOutcome {
                    knocked_out: true,
                    stands_lost: u.stands,
                },
                Some(p) => UnitOutcome {
                    knocked_out: false,
                    stands_lost: u.stands.saturating_sub(p.stands),
                },
                None => UnitOutcome {
                    knocked_out: false,
                    stands_lost: 0,
                },
            })
            .collect();
        let objectives = run.result.as_ref().map_or([ObjectiveLevel::None; 2], |r| {
            [r.sides[0].objective, r.sides[1].objective]
        });
        GameRecord {
            index,
            finished: run.finished && run.stopped.is_none(),
            winner: run.winner().map(|w| w.min(1)),
            reason: run.reason,
            vps: run.vps(),
            stands_lost: run.stands_lost,
            turns: run.game_turns,
            objectives,
            units,
            first_player: battle.log().first_player.min(1),
        }
    }
}

/// How often something happened: `count` of `games`, with its 95% Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub count: usize,
    pub games: usize,
    /// count / games (0 when there are no games).
    pub rate: f64,
    pub low: f64,
    pub high: f64,
}

impl Rate {
    /// `count` of `games` with the Wilson score interval at 95%: centre
    /// (p + z²/2n) / (1 + z²/n), half-width z/(1 + z²/n) · √(p(1−p)/n + z²/4n²). No games:
    /// everything 0 and the interval 0–1 (nothing is known).
    pub fn new(count: usize, games: usize) -> Rate {
        if games == 0 {
            return Rate {
                count,
                games,
                rate: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let count = count.min(games);
        let n = games as f64;
        let p = count as f64 / n;
        let z2 = Z95 * Z95;
        let denom = 1.0 + z2 / n;
        let centre = (p + z2 / (2.0 * n)) / denom;
        let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        Rate {
            count,
            games,
            rate: p,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }

    /// "62% (57–67%)".
    pub fn words(&self) -> String {
        format!(
            "{} ({}–{}%)",
            percent(self.rate),
            (self.low * 100.0).round(),
            (self.high * 100.0).round()
        )
    }
}

/// "62%".
pub fn percent(x: f64) -> String {
    format!("{}%", (x * 100.0).round())
}

/// One bar of a histogram: the values `from` ≤ v < `to`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bin {
    pub from: i64,
    pub to: i64,
    pub count: usize,
}

/// The spread of a whole-number measure over the games.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub min: f64,
    /// Quartiles by linear interpolation between the sorted values (value at position
    /// q·(n−1), counted from 0).
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
    pub mean: f64,
    /// Equal-width bins from a multiple of the width (1, 2, 5, 10, 20, 50 …, the smallest
    /// giving at most [`MAX_BINS`] bins) up to the maximum.
    pub bins: Vec<Bin>,
}

impl Spread {
    pub fn of(values: &[i64]) -> Spread {
        let mut v = values.to_vec();
        v.sort_unstable();
        let (Some(&lo), Some(&hi)) = (v.first(), v.last()) else {
            return Spread {
                min: 0.0,
                q1: 0.0,
                median: 0.0,
                q3: 0.0,
                max: 0.0,
                mean: 0.0,
                bins: Vec::new(),
            };
        };
        let quantile = |q: f64| {
            let pos = q * (v.len() - 1) as f64;
            let i = pos.floor() as usize;
            let frac = pos - i as f64;
            let a = v.get(i).copied().unwrap_or(hi) as f64;
            let b = v.get(i + 1).copied().unwrap_or(hi) as f64;
            a + (b - a) * frac
        };
        let width = bin_width(lo, hi);
        let start = lo.div_euclid(width) * width;
        let count = usize::try_from((hi - start) / width + 1).unwrap_or(1);
        let mut bins: Vec<Bin> = (0..count)
            .map(|k| {
                let from = start + width * k as i64;
                Bin {
                    from,
                    to: from + width,
                    count: 0,
                }
            })
            .collect();
        for x in &v {
            let k = usize::try_from((x - start) / width).unwrap_or(0);
            if let Some(b) = bins.get_mut(k) {
                b.count += 1;
            }
        }
        Spread {
            min: lo as f64,
            q1: quantile(0.25),
            median: quantile(0.5),
            q3: quantile(0.75),
            max: hi as f64,
            mean: v.iter().map(|x| *x as f64).sum::<f64>() / v.len() as f64,
            bins,
        }
    }
}

/// The smallest of 1, 2, 5, 10, 20, 50 … that covers lo..=hi in at most [`MAX_BINS`] bins.
fn bin_width(lo: i64, hi: i64) -> i64 {
    let mut width = 1i64;
    loop {
        for m in [1, 2, 5] {
            let w = width.saturating_mul(m);
            let start = lo.div_euclid(w) * w;
            if (hi - start) / w < MAX_BINS as i64 || w == i64::MAX {
                return w;
            }
        }
        width = width.saturating_mul(10);
    }
}

/// How often one side reached one of its objectives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectiveRate {
    pub side: usize,
    /// Major or minor (a major objective reached counts as the minor too, OBJ-01 ruling (a)).
    pub level: ObjectiveLevel,
    pub description: String,
    pub rate: Rate,
}

/// How often one piece came through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitSurvival {
    pub unit: UnitInfo,
    /// Games it was not knocked out in.
    pub survived: Rate,
    /// Mean stands lost per game.
    pub mean_stands_lost: f64,
}

/// Why the games ended (END-03).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndShare {
    /// `None`: the driver stopped the game before the end.
    pub reason: Option<EndReason>,
    pub label: String,
    pub rate: Rate,
}

/// The balance of a scenario over the games played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BalanceReport {
    pub scenario: String,
    pub sides: [String; 2],
    /// How each side was played (both standard in a report written before sides had a choice).
    #[serde(default)]
    pub policies: [Policy; 2],
    /// Games counted.
    pub games: usize,
    /// Games the driver had to stop before the end (counted, with no winner).
    pub unfinished: usize,
    pub wins: [Rate; 2],
    pub draws: Rate,
    pub vps: [Spread; 2],
    pub stands_lost: [Spread; 2],
    pub turns: Spread,
    pub ends: Vec<EndShare>,
    /// Per side, major then minor.
    pub objectives: Vec<ObjectiveRate>,
    /// Every piece, in id order.
    pub units: Vec<UnitSurvival>,
    /// SEQ-01: the games in which each side moved first.
    #[serde(default)]
    pub moved_first: [usize; 2],
    /// SEQ-01: of the games with a winner, those the side that moved first won; `None` unless
    /// each side moved first in some game (a roll-off), as only then does it say anything.
    #[serde(default)]
    pub first_mover_won: Option<Rate>,
    /// Who is favoured and why, in one paragraph.
    pub verdict: String,
}

/// END-03 reasons in the order the report lists them.
const ENDS: [(EndReason, &str); 4] = [
    (EndReason::TurnLimit, "at the turn limit"),
    (EndReason::Objective, "on a major objective"),
    (EndReason::Break, "on an army breaking"),
    (EndReason::Concession, "on a concession"),
];

impl BalanceReport {
    /// The report of `games` (any order of finishing; they are counted as given).
    pub fn from_games(setup: &BalanceSetup, games: &[GameRecord]) -> BalanceReport {
        let n = games.len();
        let count = |f: &dyn Fn(&GameRecord) -> bool| games.iter().filter(|g| f(g)).count();
        let wins = [
            Rate::new(count(&|g| g.winner == Some(0)), n),
            Rate::new(count(&|g| g.winner == Some(1)), n),
        ];
        let draws = Rate::new(count(&|g| g.finished && g.winner.is_none()), n);
        let unfinished = count(&|g| !g.finished);
        let spread =
            |f: &dyn Fn(&GameRecord) -> i64| Spread::of(&games.iter().map(f).collect::<Vec<i64>>());
        let vps = [spread(&|g| g.vps[0]), spread(&|g| g.vps[1])];
        let stands_lost = [
            spread(&|g| i64::from(g.stands_lost[0])),
            spread(&|g| i64::from(g.stands_lost[1])),
        ];
        let turns = spread(&|g| i64::from(g.turns));
        let mut ends: Vec<EndShare> = ENDS
            .iter()
            .map(|(r, label)| EndShare {
                reason: Some(*r),
                label: (*label).to_string(),
                rate: Rate::new(count(&|g| g.reason == Some(*r)), n),
            })
            .collect();
        let not_ended = count(&|g| g.reason.is_none());
        if not_ended > 0 {
            ends.push(EndShare {
                reason: None,
                label: "stopped before the end".to_string(),
                rate: Rate::new(not_ended, n),
            });
        }
        let mut objectives = Vec::new();
        for side in 0..2 {
            for (k, level) in [ObjectiveLevel::Major, ObjectiveLevel::Minor]
                .into_iter()
                .enumerate()
            {
                let reached = count(&|g| g.objectives[side] >= level);
                objectives.push(ObjectiveRate {
                    side,
                    level,
                    description: setup.objectives[side][k].clone(),
                    rate: Rate::new(reached, n),
                });
            }
        }
        let units = setup
            .units
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let outcome = |g: &GameRecord| g.units.get(i).copied();
                let survived = count(&|g| outcome(g).is_some_and(|o| !o.knocked_out));
                let lost: u64 = games
                    .iter()
                    .filter_map(outcome)
                    .map(|o| u64::from(o.stands_lost))
                    .sum();
                UnitSurvival {
                    unit: u.clone(),
                    survived: Rate::new(survived, n),
                    mean_stands_lost: if n == 0 { 0.0 } else { lost as f64 / n as f64 },
                }
            })
            .collect();
        let moved_first = [
            count(&|g| g.first_player == 0),
            count(&|g| g.first_player == 1),
        ];
        let first_mover_won = (moved_first[0] > 0 && moved_first[1] > 0).then(|| {
            Rate::new(
                count(&|g| g.winner == Some(g.first_player)),
                count(&|g| g.winner.is_some()),
            )
        });
        let mut report = BalanceReport {
            scenario: setup.scenario.clone(),
            sides: setup.sides.clone(),
            policies: setup.policies,
            games: n,
            unfinished,
            wins,
            draws,
            vps,
            stands_lost,
            turns,
            ends,
            objectives,
            units,
            moved_first,
            first_mover_won,
            verdict: String::new(),
        };
        report.verdict = verdict(&report);
        report
    }

    /// The side whose win interval lies wholly above the other's, if one does.
    pub fn favoured(&self) -> Option<usize> {
        let [a, b] = self.wins;
        if self.games == 0 {
            None
        } else if a.low > b.high {
            Some(0)
        } else if b.low > a.high {
            Some(1)
        } else {
            None
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{grouped} {}", if n == 1 { one } else { many })
}

/// A policy as the report names it: "standard opponent", "hold baseline".
pub fn policy_label(p: Policy) -> &'static str {
    match p {
        Policy::Standard => "standard opponent",
        Policy::Hold => "hold baseline",
    }
}

/// The sentence saying which side was played otherwise than by the standard opponent; None
/// when both sides were (the verdict then reads as it always has).
pub fn policy_sentence(sides: &[String; 2], policies: [Policy; 2]) -> Option<String> {
    let short = short_names(sides);
    let phrase = |p: Policy| match p {
        Policy::Hold => "the hold baseline (it only fires from where it stands)".to_string(),
        _ => format!("the {}", policy_label(p)),
    };
    let [a, b] = policies;
    if a == b {
        (a != Policy::Standard).then(|| format!("Both sides were played by {}.", phrase(a)))
    } else {
        // The side not played by the standard opponent first.
        let [s0, s1] = &short;
        let ((first, p), (other, q)) = if a == Policy::Standard {
            ((s1, b), (s0, a))
        } else {
            ((s0, a), (s1, b))
        };
        Some(format!(
            "{first} side played by {}; {other} side by {}.",
            phrase(p),
            phrase(q)
        ))
    }
}

/// One paragraph: who is favoured, by how much, and what the games looked like (after the
/// side played by the hold baseline, if one was).
fn verdict(r: &BalanceReport) -> String {
    if r.games == 0 {
        return "No game has finished yet, so there is nothing to judge.".to_string();
    }
    let short = short_names(&r.sides);
    let games = plural(r.games, "game", "games");
    let mut out = policy_sentence(&r.sides, r.policies).map_or_else(String::new, |s| s + " ");
    out += &match r.favoured() {
        Some(s) => format!(
            "{} favoured: they win {} of {games}, the {} {}; {} drawn.",
            short[s],
            r.wins[s].words(),
            short[1 - s],
            r.wins[1 - s].words(),
            percent(r.draws.rate),
        ),
        None if r.draws.rate > 0.5 => format!(
            "Mostly drawn: {} of {games} end without a winner; the {} win {}, the {} {}.",
            r.draws.words(),
            short[0],
            r.wins[0].words(),
            short[1],
            r.wins[1].words(),
        ),
        None => format!(
            "No side clearly favoured: the {} win {} of {games}, the {} {}, and {} are drawn; more games would narrow the figures.",
            short[0],
            r.wins[0].words(),
            short[1],
            r.wins[1].words(),
            percent(r.draws.rate),
        ),
    };
    if let Some(won) = r.first_mover_won {
        out.push_str(&format!(
            " The sides rolled off for the first move: the {} moved first in {}, the {} in {}; \
             the side that moved first won {} of the games with a winner.",
            short[0],
            plural(r.moved_first[0], "game", "games"),
            short[1],
            plural(r.moved_first[1], "game", "games"),
            won.words(),
        ));
    }
    if let Some(end) = r
        .ends
        .iter()
        .filter(|e| e.rate.count > 0)
        .max_by(|a, b| a.rate.count.cmp(&b.rate.count).then(b.label.cmp(&a.label)))
    {
        out.push_str(&format!(
            " Most games end {} ({}), after {:.1} game turns on average.",
            end.label,
            percent(end.rate.rate),
            r.turns.mean
        ));
    }
    let objective = |side: usize, level: ObjectiveLevel| {
        r.objectives
            .iter()
            .find(|o| o.side == side && o.level == level)
            .map_or(0.0, |o| o.rate.rate)
    };
    out.push_str(&format!(
        " The {} reach their major objective in {} of games and at least the minor one in {}; the {} in {} and {}.",
        short[0],
        percent(objective(0, ObjectiveLevel::Major)),
        percent(objective(0, ObjectiveLevel::Minor)),
        short[1],
        percent(objective(1, ObjectiveLevel::Major)),
        percent(objective(1, ObjectiveLevel::Minor)),
    ));
    let start = |side: usize| -> u32 {
        r.units
            .iter()
            .filter(|u| u.unit.side == side && !u.unit.command)
            .map(|u| u32::from(u.unit.stands))
            .sum()
    };
    out.push_str(&format!(
        " Losses: the {} lose {:.1} of {} stands on average, the {} {:.1} of {}.",
        short[0],
        r.stands_lost[0].mean,
        start(0),
        short[1],
        r.stands_lost[1].mean,
        start(1),
    ));
    let weakest: Vec<String> = (0..2)
        .filter_map(|side| {
            r.units
                .iter()
                .filter(|u| u.unit.side == side && !u.unit.command)
                .min_by(|a, b| a.survived.count.cmp(&b.survived.count))
                .filter(|u| u.survived.count < r.games)
                .map(|u| {
                    format!(
                        "{} ({}, survives {})",
                        u.unit.name,
                        short[side],
                        percent(u.survived.rate)
                    )
                })
        })
        .collect();
    if !weakest.is_empty() {
        out.push_str(&format!(" Hardest hit: {}.", weakest.join("; ")));
    }
    if r.unfinished > 0 {
        out.push_str(&format!(
            " {} stopped before the end and count as no win for either side.",
            plural(r.unfinished, "game was", "games were")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ids::UnitId;

    fn unit(side: usize, n: u32, name: &str, stands: u8) -> UnitInfo {
        UnitInfo {
            piece: PieceId::Unit {
                side,
                unit: UnitId(n),
            },
            side,
            name: name.to_string(),
            stands,
            command: false,
        }
    }

    fn setup() -> BalanceSetup {
        BalanceSetup {
            scenario: "Test ford".into(),
            sides: ["French: the attack".into(), "Austrian: the ford".into()],
            objectives: [
                ["Take the village".into(), "Reach the ford".into()],
                ["Hold the village".into(), "Hold the mill".into()],
            ],
            units: vec![unit(0, 1, "1st Line", 4), unit(1, 1, "IR 4", 4)],
            policies: [Policy::Standard; 2],
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn game(
        index: u64,
        winner: Option<usize>,
        reason: EndReason,
        vps: [i64; 2],
        lost: [u32; 2],
        turns: u32,
        obj: [ObjectiveLevel; 2],
        units: [(bool, u8); 2],
    ) -> GameRecord {
        GameRecord {
            index,
            finished: true,
            winner,
            reason: Some(reason),
            vps,
            stands_lost: lost,
            turns,
            objectives: obj,
            units: units
                .iter()
                .map(|(k, s)| UnitOutcome {
                    knocked_out: *k,
                    stands_lost: *s,
                })
                .collect(),
            first_player: 0,
        }
    }

    /// Ten scripted games: French win 6, Austrians 3, one draw.
    fn ten() -> Vec<GameRecord> {
        use EndReason::*;
        use ObjectiveLevel::{Major as Ma, Minor as Mi, None as No};
        vec![
            game(
                0,
                Some(0),
                Objective,
                [40, 10],
                [2, 6],
                6,
                [Ma, No],
                [(false, 1), (true, 4)],
            ),
            game(
                1,
                Some(0),
                Objective,
                [30, 0],
                [0, 4],
                7,
                [Ma, No],
                [(false, 0), (true, 4)],
            ),
            game(
                2,
                Some(0),
                Break,
                [20, 10],
                [3, 8],
                5,
                [Mi, No],
                [(false, 2), (false, 2)],
            ),
            game(
                3,
                Some(0),
                Objective,
                [10, 0],
                [1, 2],
                8,
                [Ma, Mi],
                [(false, 0), (false, 1)],
            ),
            game(
                4,
                Some(0),
                TurnLimit,
                [0, 0],
                [0, 0],
                10,
                [Mi, No],
                [(false, 0), (false, 0)],
            ),
            game(
                5,
                Some(0),
                Break,
                [50, 20],
                [5, 9],
                4,
                [No, No],
                [(true, 4), (true, 4)],
            ),
            game(
                6,
                Some(1),
                TurnLimit,
                [0, 30],
                [6, 1],
                10,
                [No, Ma],
                [(true, 4), (false, 1)],
            ),
            game(
                7,
                Some(1),
                Break,
                [10, 40],
                [8, 2],
                6,
                [No, Mi],
                [(true, 4), (false, 0)],
            ),
            game(
                8,
                Some(1),
                TurnLimit,
                [0, 20],
                [4, 0],
                10,
                [No, Ma],
                [(false, 3), (false, 0)],
            ),
            game(
                9,
                None,
                TurnLimit,
                [10, 10],
                [2, 2],
                10,
                [No, No],
                [(false, 1), (false, 1)],
            ),
        ]
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    #[test]
    fn wilson_interval_worked_by_hand() {
        // 6 of 10: p = 0.6, z² = 3.84146, z²/n = 0.384146, 1 + z²/n = 1.384146.
        // centre = (0.6 + 0.192073) / 1.384146 = 0.572246.
        // half = 1.959964 / 1.384146 · √(0.024 + 0.0096037) = 1.416009 · 0.183313 = 0.259573.
        // → 0.312673 .. 0.831819.
        let r = Rate::new(6, 10);
        assert!(close(r.rate, 0.6));
        assert!(close(r.low, 0.312673), "{}", r.low);
        assert!(close(r.high, 0.831819), "{}", r.high);
        assert_eq!(r.words(), "60% (31–83%)");
        // 0 of 10: centre = 0.192073 / 1.384146 = 0.138766, half = 1.416009 · √0.0096037
        // = 1.416009 · 0.097998 = 0.138766 → 0 .. 0.277533 (the interval does not vanish).
        let z = Rate::new(0, 10);
        assert!(close(z.low, 0.0));
        assert!(close(z.high, 0.277533), "{}", z.high);
        // No games: nothing is known.
        let none = Rate::new(0, 0);
        assert_eq!((none.rate, none.low, none.high), (0.0, 0.0, 1.0));
    }

    #[test]
    fn spread_quartiles_and_bins_worked_by_hand() {
        // The French VPs of the ten games, sorted: 0,0,0,10,10,10,20,30,40,50. q1 at 0.25·9 = 2.25: 0 + 0.25·(10 − 0) = 2.5;
        // median at 4.5: 10; q3 at 6.75: 20 + 0.75·10 = 27.5; mean 170 / 10 = 17.
        let s = Spread::of(&[40, 30, 20, 10, 0, 50, 0, 10, 0, 10]);
        assert_eq!((s.min, s.max), (0.0, 50.0));
        assert!(close(s.q1, 2.5) && close(s.median, 10.0) && close(s.q3, 27.5));
        assert!(close(s.mean, 17.0));
        // Width: 1 needs 51 bins, 2 needs 26, 5 needs 11 (≤ 12): bins of 5 from 0 to 55.
        let counts: Vec<(i64, usize)> = s.bins.iter().map(|b| (b.from, b.count)).collect();
        assert_eq!(
            counts,
            vec![
                (0, 3),
                (5, 0),
                (10, 3),
                (15, 0),
                (20, 1),
                (25, 0),
                (30, 1),
                (35, 0),
                (40, 1),
                (45, 0),
                (50, 1)
            ]
        );
        // Game lengths 4..10: width 1 (7 bins).
        let t = Spread::of(&[6, 7, 5, 8, 10, 4, 10, 6, 10, 10]);
        assert_eq!(t.bins.len(), 7);
        assert_eq!(
            t.bins.first().map(|b| (b.from, b.to, b.count)),
            Some((4, 5, 1))
        );
        assert_eq!(t.bins.last().map(|b| (b.from, b.count)), Some((10, 4)));
        // Negative values start at a multiple of the width below them.
        let neg = Spread::of(&[-7, 3, 30]);
        assert_eq!(neg.bins.first().map(|b| b.from), Some(-10));
        assert_eq!(Spread::of(&[]).bins, Vec::<Bin>::new());
    }

    #[test]
    fn report_of_ten_scripted_games() {
        let r = BalanceReport::from_games(&setup(), &ten());
        assert_eq!(r.games, 10);
        assert_eq!(r.unfinished, 0);
        assert_eq!((r.wins[0].count, r.wins[1].count, r.draws.count), (6, 3, 1));
        // 3 of 10: p = 0.3, centre = (0.3 + 0.192073) / 1.384146 = 0.355506, half = 1.416009 ·
        // √(0.021 + 0.0096037) = 1.416009 · 0.174939 = 0.247715 → 0.107791 .. 0.603221.
        assert!(close(r.wins[1].low, 0.107791), "{}", r.wins[1].low);
        assert!(close(r.wins[1].high, 0.603221), "{}", r.wins[1].high);
        // 60% (31–83%) overlaps 30% (11–60%): no side clearly favoured.
        assert_eq!(r.favoured(), None);
        // Stands lost by the Austrians: 6,4,8,2,0,9,1,2,0,2 → sorted 0,0,1,2,2,2,4,6,8,9:
        // median (2 + 2) / 2 = 2, mean 34 / 10 = 3.4.
        assert!(close(r.stands_lost[1].median, 2.0) && close(r.stands_lost[1].mean, 3.4));
        // Lengths: 6+7+5+8+10+4+10+6+10+10 = 76 → 7.6.
        assert!(close(r.turns.mean, 7.6));
        // Ends: turn limit 4, objective 3, break 3, concession 0.
        let ends: Vec<(&str, usize)> = r
            .ends
            .iter()
            .map(|e| (e.label.as_str(), e.rate.count))
            .collect();
        assert_eq!(
            ends,
            vec![
                ("at the turn limit", 4),
                ("on a major objective", 3),
                ("on an army breaking", 3),
                ("on a concession", 0)
            ]
        );
        // OBJ-01: French major in games 0, 1, 3 (3); at least minor also in 2 and 4 (5).
        // Austrians major in 6 and 8 (2); at least minor also in 3 and 7 (4).
        let obj: Vec<(usize, ObjectiveLevel, usize)> = r
            .objectives
            .iter()
            .map(|o| (o.side, o.level, o.rate.count))
            .collect();
        assert_eq!(
            obj,
            vec![
                (0, ObjectiveLevel::Major, 3),
                (0, ObjectiveLevel::Minor, 5),
                (1, ObjectiveLevel::Major, 2),
                (1, ObjectiveLevel::Minor, 4),
            ]
        );
        assert_eq!(r.objectives[0].description, "Take the village");
        // 1st Line knocked out in games 5, 6, 7: survives 7 of 10; stands lost
        // 1+0+2+0+0+4+4+4+3+1 = 19 → 1.9. IR 4 knocked out in 0, 1, 5: survives 7 of 10.
        assert_eq!(r.units[0].survived.count, 7);
        assert!(close(r.units[0].mean_stands_lost, 1.9));
        assert_eq!(r.units[1].survived.count, 7);
        assert!(r.verdict.starts_with("No side clearly favoured: the French win 60% (31–83%) of 10 games, the Austrian 30% (11–60%), and 10% are drawn"), "{}", r.verdict);
        assert!(
            r.verdict
                .contains("Most games end at the turn limit (40%), after 7.6 game turns"),
            "{}",
            r.verdict
        );
        assert!(r.verdict.contains("The French reach their major objective in 30% of games and at least the minor one in 50%; the Austrian in 20% and 40%."), "{}", r.verdict);
        assert!(
            r.verdict
                .contains("the French lose 3.1 of 4 stands on average"),
            "{}",
            r.verdict
        );
    }

    #[test]
    fn a_clear_favourite_is_named() {
        // Twenty copies of the French wins and one Austrian win: 120 of 130 vs 9... use 60 of 70:
        // French 60 wins of 70 (p = 0.857), Austrians 10 (p = 0.143): intervals
        // far apart, so the French are favoured.
        let base = ten();
        let mut games = Vec::new();
        for k in 0..10u64 {
            for g in base.iter().take(6) {
                let mut g = g.clone();
                g.index = k;
                games.push(g);
            }
            let mut a = base[6].clone();
            a.index = k;
            games.push(a);
        }
        let r = BalanceReport::from_games(&setup(), &games);
        assert_eq!((r.wins[0].count, r.wins[1].count, r.games), (60, 10, 70));
        assert_eq!(r.favoured(), Some(0));
        assert!(
            r.verdict.starts_with("French favoured: they win 86% ("),
            "{}",
            r.verdict
        );
    }

    #[test]
    fn an_empty_and_a_partial_report_are_valid() {
        let r = BalanceReport::from_games(&setup(), &[]);
        assert_eq!(r.games, 0);
        assert_eq!(r.favoured(), None);
        assert!(r.verdict.contains("nothing to judge"));
        let mut games = ten();
        games.truncate(3);
        games[2].finished = false;
        games[2].winner = None;
        games[2].reason = None;
        let r = BalanceReport::from_games(&setup(), &games);
        assert_eq!((r.games, r.unfinished, r.draws.count), (3, 1, 0));
        assert_eq!(r.ends.last().map(|e| e.rate.count), Some(1));
        assert!(
            r.verdict.contains("1 game was stopped before the end"),
            "{}",
            r.verdict
        );
    }

    #[test]
    fn the_side_on_hold_is_named_before_the_verdict() {
        let mut s = setup();
        // Both standard: the verdict is as it always was.
        let plain = BalanceReport::from_games(&s, &ten());
        assert_eq!(plain.policies, [Policy::Standard; 2]);
        assert!(plain.verdict.starts_with("No side clearly favoured"));
        s.policies = [Policy::Standard, Policy::Hold];
        let r = BalanceReport::from_games(&s, &ten());
        assert_eq!(r.policies, [Policy::Standard, Policy::Hold]);
        assert_eq!(
            r.verdict,
            format!(
                "Austrian side played by the hold baseline (it only fires from where it \
                 stands); French side by the standard opponent. {}",
                plain.verdict
            )
        );
        s.policies = [Policy::Hold; 2];
        let r = BalanceReport::from_games(&s, &ten());
        assert!(r.verdict.starts_with(
            "Both sides were played by the hold baseline (it only fires from where it stands). No side"
        ));
        assert_eq!(policy_label(Policy::Hold), "hold baseline");
        // A report written before the sides had a choice reads back as both standard.
        let mut old = serde_json::to_value(&plain).expect("json");
        if let Some(o) = old.as_object_mut() {
            o.remove("policies");
        }
        let back: BalanceReport = serde_json::from_value(old).expect("reads back");
        assert_eq!(back, plain);
    }

    /// SEQ-01: with a roll-off each side moves first in some games, and the report says how
    /// often the side that moved first won. The ten games alternate: side 1 (index 0) first
    /// in the even ones. French wins 0–5, Austrian 6–8, 9 drawn: the mover won 0, 2, 4 and 7,
    /// 4 of the 9 with a winner. Wilson at 95%: centre (4/9 + 1.96²/18) / (1 + 1.96²/9) =
    /// 0.461, half-width 0.272, so 19–73%.
    #[test]
    fn seq_01_the_report_says_how_often_the_side_that_moved_first_won() {
        let s = setup();
        let named = BalanceReport::from_games(&s, &ten());
        assert_eq!(named.moved_first, [10, 0]);
        assert_eq!(
            named.first_mover_won, None,
            "one side always first: nothing to say"
        );
        assert!(!named.verdict.contains("first move"));
        let mut games = ten();
        for g in &mut games {
            g.first_player = (g.index % 2) as usize;
        }
        let r = BalanceReport::from_games(&s, &games);
        assert_eq!(r.moved_first, [5, 5]);
        let won = r.first_mover_won.expect("both sides moved first");
        assert_eq!((won.count, won.games), (4, 9));
        assert_eq!(won.words(), "44% (19–73%)");
        assert!(
            r.verdict.contains(
                "The sides rolled off for the first move: the French moved first in 5 games, the \
                 Austrian in 5 games; the side that moved first won 44% (19–73%) of the games \
                 with a winner."
            ),
            "{}",
            r.verdict
        );
    }

    #[test]
    fn game_seed_is_base_plus_index() {
        assert_eq!(game_seed(7, 0), 7);
        assert_eq!(game_seed(7, 993), 1000);
        assert_eq!(game_seed(u64::MAX, 1), 0);
    }
}
