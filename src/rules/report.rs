//! The result of a battle as a report: who won, in what category and why; each side's victory
//! points item by item; each side's strength at the end of every game turn; the losses of
//! every unit. The result page (`ui::battle_result`), the printed result (`export::result`)
//! and the command line's autoplay "why" all read it from here.
//!
//! Everything comes from the battle's log: the verdict is the `Event::BattleResult` the engine
//! wrote when the battle ended (OBJ-01, OBJ-02, VP-01..VP-04), the reason its
//! `Event::BattleEnded` (END-03, BRK-03); the VP items are the `Event::UnitKnockedOut` and
//! `Event::DefenseKnockedOut` events, priced like the verdict prices them
//! ([`victory::loss_points`]), so the items of a side add up to the VPs it earned; the strength
//! over turns folds the events over the initial state with [`apply`] and reads the state at
//! each `Event::GameTurnEnded`. Nothing is rolled or changed.
//!
//! Layering: part of `rules`; pure (no egui, file system, clock or thread RNG).

use super::apply::apply;
use super::battle::{Battle, Ctx};
use super::event::{EndReason, Event};
use super::state::{BattleState, PieceId};
use super::victory::{self, BattleResult, DefenseLossCause, Loss, ObjectiveLevel, Outcome};
use std::collections::BTreeMap;

/// What a VP item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A unit knocked out (VP-01 (a): its full purchase cost).
    Unit,
    /// A command unit knocked out (VP-01 (c): each time, CMD-28).
    Command,
    /// A field defence knocked out (DEF-06).
    Defence,
}

/// One thing the opponent lost, worth VPs to this side.
#[derive(Debug, Clone, PartialEq)]
pub struct VpItem {
    pub kind: ItemKind,
    /// The unit's or the defence's name.
    pub name: String,
    /// The game turn it was lost in (0: before play began).
    pub game_turn: u32,
    /// How it was lost, in words.
    pub how: String,
    /// The rule that knocked it out (GEN-12, FIRE-26, END-01, DEF-06, …).
    pub cause_rule: String,
    pub points: i64,
}

/// One side's line of the tally: the VPs it earned from the opponent's losses and every step
/// of the verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct SideTally {
    pub name: String,
    /// What the opponent lost, in order (VP-01, DEF-06).
    pub items: Vec<VpItem>,
    /// The sum of the items (VP-01): what the verdict counted as earned.
    pub earned: i64,
    /// VP-04: the multiplier (1.0: none) and the VPs after it.
    pub modifier: f64,
    pub modified: i64,
    /// The final VPs (after VP-02).
    pub vp: i64,
    /// VP-02: the side withdrew or conceded and its VPs were lowered to the opponent's.
    pub capped: bool,
    /// Broke (BRK-02) or conceded.
    pub withdrew: bool,
    /// OBJ-01: what was declared, and what counts.
    pub declared: ObjectiveLevel,
    pub objective: ObjectiveLevel,
    /// OBJ-01: the result from the objectives alone.
    pub objective_result: Outcome,
    /// VP-03: this side earned at least twice the opponent's VPs.
    pub upgraded: bool,
    /// The final result on the OBJ-02 ladder.
    pub result: Outcome,
}

/// Each side's strength at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StrengthPoint {
    /// The game turn just completed (0: the start of the battle).
    pub game_turn: u32,
    /// False for the last point of a battle that ended before its game turn was complete (a
    /// break or a concession).
    pub complete: bool,
    /// Stands of the units not knocked out (command units not counted).
    pub stands: [u32; 2],
    /// The points value of every piece not knocked out (VP-01 (a) prices: what the opponent
    /// could still earn).
    pub points: [i64; 2],
}

/// What one unit lost.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitLoss {
    pub piece: PieceId,
    pub name: String,
    pub stands_at_start: u8,
    /// Stands out of the fight: all of them once knocked out.
    pub stands_lost: u8,
    pub knocked_out: bool,
    /// The game turn it was (last) knocked out in.
    pub knocked_out_turn: Option<u32>,
}

impl UnitLoss {
    pub fn side(&self) -> usize {
        self.piece.side()
    }
}

/// The result of a battle, ready to show or print.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultReport {
    pub title: String,
    pub side_names: [String; 2],
    /// The verdict (none until the battle has ended).
    pub result: Option<BattleResult>,
    pub reason: Option<EndReason>,
    /// "French wins: Decisive Victory", "A draw", "The battle is not over".
    pub headline: String,
    /// Why it ended as it did, with the rules that decided it.
    pub why: String,
    /// Per side, in side order.
    pub sides: [SideTally; 2],
    /// The start, then the end of every game turn played.
    pub strength: Vec<StrengthPoint>,
    /// Every unit that lost stands or was knocked out, in the order of the pieces.
    pub losses: Vec<UnitLoss>,
    /// Game turns begun.
    pub game_turns: u32,
}

impl ResultReport {
    /// The report of a battle as it stands (complete once the battle has ended).
    pub fn of(battle: &Battle) -> ResultReport {
        let scenario = battle.scenario();
        let name = |i: usize| {
            scenario
                .sides
                .get(i)
                .map_or_else(|| format!("Side {}", i + 1), |s| s.name.clone())
        };
        let side_names = [name(0), name(1)];
        let initial = battle.initial_state();
        let ctx = Ctx::new(scenario, battle.lists(), initial);
        let price: BTreeMap<PieceId, i64> = initial
            .pieces
            .keys()
            .map(|id| (*id, victory::piece_points(&ctx, *id)))
            .collect();

        let mut state = initial.clone();
        let mut strength = vec![strength_of(&state, &price, 0, true)];
        let mut items: [Vec<VpItem>; 2] = [Vec::new(), Vec::new()];
        let mut knocked_turn: BTreeMap<PieceId, u32> = BTreeMap::new();
        let mut turn = 0u32;
        let mut reason = None;
        let mut result = None;
        let mut last_complete = true;
        for e in battle.events() {
            match e {
                Event::TurnBegan { game_turn, .. } => turn = *game_turn,
                Event::UnitKnockedOut { piece, cause } => {
                    knocked_turn.insert(*piece, turn);
                    let owner = piece.side().min(1);
                    let name = state
                        .pieces
                        .get(piece)
                        .map_or_else(|| format!("{piece:?}"), |p| p.name.clone());
                    items_of(&mut items, 1 - owner).push(VpItem {
                        kind: if piece.is_command() {
                            ItemKind::Command
                        } else {
                            ItemKind::Unit
                        },
                        name,
                        game_turn: turn,
                        how: cause_words(cause),
                        cause_rule: cause.rule().to_string(),
                        points: price.get(piece).copied().unwrap_or(0),
                    });
                }
                Event::DefenseKnockedOut {
                    side,
                    defense,
                    cause,
                } => {
                    let owner = (*side).min(1);
                    let loss = Loss::Defense {
                        defense: *defense,
                        cause: *cause,
                    };
                    let d = scenario
                        .sides
                        .get(owner)
                        .and_then(|s| s.field_defenses.iter().find(|d| d.id == *defense));
                    items_of(&mut items, 1 - owner).push(VpItem {
                        kind: ItemKind::Defence,
                        name: d.map_or_else(
                            || format!("field defence {}", defense.0),
                            |d| format!("{} {}", d.kind.label(), defense.0),
                        ),
                        game_turn: turn,
                        how: defence_cause_words(*cause).to_string(),
                        cause_rule: "DEF-06".to_string(),
                        points: victory::loss_points(&ctx, owner, &loss),
                    });
                }
                Event::BattleEnded { reason: r, .. } => reason = Some(*r),
                Event::BattleResult(r) => result = Some(r.clone()),
                _ => {}
            }
            apply(&mut state, e);
            match e {
                Event::GameTurnEnded { game_turn } => {
                    strength.push(strength_of(&state, &price, *game_turn, true));
                    last_complete = true;
                }
                Event::TurnBegan { .. } => last_complete = false,
                _ => {}
            }
        }
        if reason.is_some() && !last_complete {
            strength.push(strength_of(&state, &price, turn, false));
        }

        let losses = initial
            .pieces
            .values()
            .filter_map(|p0| {
                let now = state.pieces.get(&p0.id)?;
                let lost = if now.knocked_out {
                    p0.stands
                } else {
                    p0.stands.saturating_sub(now.stands)
                };
                (lost > 0 || now.knocked_out).then(|| UnitLoss {
                    piece: p0.id,
                    name: p0.name.clone(),
                    stands_at_start: p0.stands,
                    stands_lost: lost,
                    knocked_out: now.knocked_out,
                    knocked_out_turn: knocked_turn.get(&p0.id).copied(),
                })
            })
            .collect();

        let [items0, items1] = items;
        let tally = |i: usize, items: Vec<VpItem>| {
            let earned = items.iter().map(|x| x.points).sum();
            let line = result.as_ref().and_then(|r: &BattleResult| r.sides.get(i));
            SideTally {
                name: side_names.get(i).cloned().unwrap_or_default(),
                earned,
                modifier: line.map_or(1.0, |l| l.points_modifier),
                modified: line.map_or(earned, |l| l.vp_modified),
                vp: line.map_or(earned, |l| l.vp),
                capped: line.is_some_and(|l| l.capped),
                withdrew: line.is_some_and(|l| l.withdrew),
                declared: line.map_or(ObjectiveLevel::None, |l| l.declared),
                objective: line.map_or(ObjectiveLevel::None, |l| l.objective),
                objective_result: line.map_or(Outcome::Draw, |l| l.objective_result),
                upgraded: line.is_some_and(|l| l.upgraded),
                result: line.map_or(Outcome::Draw, |l| l.result),
                items,
            }
        };
        let sides = [tally(0, items0), tally(1, items1)];
        let headline = match &result {
            Some(r) => headline_words(r, &side_names),
            None => "The battle is not over".to_string(),
        };
        let why = match (&result, reason) {
            (Some(r), Some(reason)) => why_words(reason, r, &side_names),
            _ => String::new(),
        };
        ResultReport {
            title: scenario.name.clone(),
            side_names,
            result,
            reason,
            headline,
            why,
            sides,
            strength,
            losses,
            game_turns: battle.state().turn.game_turn,
        }
    }

    pub fn ended(&self) -> bool {
        self.result.is_some()
    }

    pub fn winner(&self) -> Option<usize> {
        self.result.as_ref().and_then(|r| r.winner)
    }

    /// The lines that explain one side's VP total beyond its items: the VP-04 modifier, the
    /// VP-02 cap and the VP-03 upgrade, each only when it applied.
    pub fn adjustments(&self, side: usize) -> Vec<String> {
        let Some(s) = self.sides.get(side) else {
            return Vec::new();
        };
        let other = self.sides.get(1 - side.min(1));
        let mut out = Vec::new();
        if s.modified != s.earned {
            out.push(format!(
                "Points modifier ×{}: {} → {} VPs (VP-04)",
                s.modifier, s.earned, s.modified
            ));
        }
        if s.capped {
            out.push(format!(
                "Capped at the opponent's {} VPs: a side that withdrew or conceded cannot \
                 finish ahead on points (VP-02)",
                s.vp
            ));
        }
        if s.upgraded {
            let theirs = other.map_or(0, |o| o.vp);
            out.push(format!(
                "×2: {} VPs is at least twice the opponent's {theirs}, so the result rises \
                 one step, from {} to {} (VP-03)",
                s.vp,
                s.objective_result.label(),
                s.result.label()
            ));
        }
        out
    }
}

/// The strength of both sides in `state`.
fn strength_of(
    state: &BattleState,
    price: &BTreeMap<PieceId, i64>,
    game_turn: u32,
    complete: bool,
) -> StrengthPoint {
    let mut stands = [0u32; 2];
    let mut points = [0i64; 2];
    for p in state.pieces.values().filter(|p| !p.knocked_out) {
        let s = p.id.side();
        if let (Some(st), Some(pt)) = (stands.get_mut(s), points.get_mut(s)) {
            if !p.id.is_command() {
                *st += u32::from(p.stands);
            }
            *pt += price.get(&p.id).copied().unwrap_or(0);
        }
    }
    StrengthPoint {
        game_turn,
        complete,
        stands,
        points,
    }
}

fn cause_words(cause: &super::event::KnockOutCause) -> String {
    use super::event::KnockOutCause as K;
    match cause {
        K::Hits => "hits".to_string(),
        K::Rout { distance_cm } => format!("routed ({distance_cm} cm fall-back)"),
        K::RoutInPlace { distance_cm } => format!("broke where it stood ({distance_cm} cm)"),
        K::FallBackBlocked { .. } => "could not fall back".to_string(),
        K::GatlingJam => "the gun jammed".to_string(),
        K::StandsLost => "no stands left".to_string(),
        K::Referee => "removed by the referee".to_string(),
        K::Overrun => "overrun".to_string(),
        K::Charge { .. } => "lost a charge".to_string(),
        K::AllyWithdrew => "left with its broken allied army".to_string(),
    }
}

fn defence_cause_words(cause: DefenseLossCause) -> &'static str {
    match cause {
        DefenseLossCause::Cleared => "cleared",
        DefenseLossCause::Demolished => "demolished",
        DefenseLossCause::Collapsed => "collapsed",
        DefenseLossCause::OccupantKnockedOut => "its garrison was knocked out in it",
        DefenseLossCause::Referee => "removed by the referee",
    }
}

/// Each side's name as a line can carry it: the part before a colon ("French" of "French:
/// Masséna's advance guard"), unless that leaves the two alike or empty.
pub fn short_names(sides: &[String; 2]) -> [String; 2] {
    let cut = |s: &str| s.split(':').next().unwrap_or(s).trim().to_string();
    let short = [cut(&sides[0]), cut(&sides[1])];
    if short[0].is_empty() || short[1].is_empty() || short[0] == short[1] {
        sides.clone()
    } else {
        short
    }
}

/// The sides (by index) whose line of the verdict passes `test`.
fn sides_where(r: &BattleResult, test: impl Fn(&victory::SideResult) -> bool) -> Vec<usize> {
    r.sides
        .iter()
        .enumerate()
        .filter(|(_, s)| test(s))
        .map(|(i, _)| i)
        .collect()
}

/// The list of VP items of `side` (0 or 1; anything else is taken as 1).
fn items_of(items: &mut [Vec<VpItem>; 2], side: usize) -> &mut Vec<VpItem> {
    let [a, b] = items;
    if side == 0 {
        a
    } else {
        b
    }
}

/// "French wins: Decisive Victory" or "A draw".
pub fn headline_words(r: &BattleResult, names: &[String; 2]) -> String {
    match r.winner {
        Some(w) => format!(
            "{} wins: {}",
            names.get(w).cloned().unwrap_or_default(),
            r.category.label()
        ),
        None => "A draw".to_string(),
    }
}

/// Why a battle ended as it did, in words, with the rule that decided it (END-03, OBJ-01,
/// BRK-03, VP-03). `names`: each side's name as the text should carry it.
pub fn why_words(reason: EndReason, r: &BattleResult, names: &[String; 2]) -> String {
    let name = |i: usize| names.get(i).cloned().unwrap_or_default();
    let mut text = match reason {
        EndReason::Objective => {
            let takers: Vec<String> = sides_where(r, |s| s.declared == ObjectiveLevel::Major)
                .into_iter()
                .map(name)
                .collect();
            format!(
                "{} reached a major objective (OBJ-01)",
                takers.join(" and ")
            )
        }
        EndReason::Break => {
            let broke: Vec<String> = sides_where(r, |s| s.withdrew)
                .into_iter()
                .map(name)
                .collect();
            format!("{} broke and withdrew (BRK-03)", broke.join(" and "))
        }
        EndReason::Concession => {
            let gave: Vec<String> = sides_where(r, |s| s.withdrew)
                .into_iter()
                .map(name)
                .collect();
            if gave.is_empty() {
                "a side conceded (END-03)".to_string()
            } else {
                format!("{} conceded (END-03)", gave.join(" and "))
            }
        }
        EndReason::TurnLimit => format!(
            "turn limit; objectives: {} {}, {} {} (OBJ-01)",
            name(0),
            r.sides[0].objective.label(),
            name(1),
            r.sides[1].objective.label()
        ),
    };
    if let Some(i) = sides_where(r, |s| s.upgraded).first().copied() {
        text.push_str(&format!(
            "; raised a step: {} earned at least twice the VPs (VP-03)",
            name(i)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::victory::{decide, SideInput};

    fn input(objective: ObjectiveLevel, withdrew: bool, vp: i64) -> SideInput {
        SideInput {
            objective,
            withdrew,
            vp_earned: vp,
            points_modifier: 1.0,
        }
    }

    #[test]
    fn obj_01_vp_03_why_words_name_the_objective_and_the_upgrade() {
        // WE-14: Austrians (side 1) major, French minor → Austrian Minor Victory; 970 ≥ 2 × 395
        // raises it to a Decisive Victory.
        let r = decide([
            input(ObjectiveLevel::Minor, false, 395),
            input(ObjectiveLevel::Major, false, 970),
        ]);
        let names = ["French".to_string(), "Austrians".to_string()];
        assert_eq!(
            headline_words(&r, &names),
            "Austrians wins: Decisive Victory"
        );
        assert_eq!(
            why_words(EndReason::Objective, &r, &names),
            "Austrians reached a major objective (OBJ-01); raised a step: Austrians earned at \
             least twice the VPs (VP-03)"
        );
    }

    #[test]
    fn brk_03_why_words_name_the_side_that_broke() {
        // WE-14 cap variant: the French broke with 1,000 against 800: capped, no upgrade.
        let r = decide([
            input(ObjectiveLevel::None, true, 1000),
            input(ObjectiveLevel::None, false, 800),
        ]);
        let names = ["French".to_string(), "Austrians".to_string()];
        assert_eq!(
            why_words(EndReason::Break, &r, &names),
            "French broke and withdrew (BRK-03)"
        );
        assert_eq!(headline_words(&r, &names), "A draw");
    }

    #[test]
    fn short_names_cut_at_the_colon_unless_that_makes_them_alike() {
        let s = |a: &str, b: &str| short_names(&[a.to_string(), b.to_string()]);
        assert_eq!(
            s(
                "French: Masséna's advance guard",
                "Austrian: Hiller's rearguard"
            ),
            ["French".to_string(), "Austrian".to_string()]
        );
        assert_eq!(
            s("French: left", "French: right"),
            ["French: left".to_string(), "French: right".to_string()]
        );
    }
}
