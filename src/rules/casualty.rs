//! The casualty pipeline (catalogue GEN-16, the canonical one, with GEN-10..GEN-15 and the
//! Firing chapter FIRE-08..FIRE-29): attack dice → hits → saves → hits taken → knock-out →
//! suppression or fall-back.
//!
//! Every step is a pure function over explicit inputs: the dice-modifier table
//! ([`fire_dice`], FIRE-08/11/12), the score to hit ([`score_to_hit`], FIRE-14..16), the save
//! ([`save_plan`], FIRE-17..19), the knock-out threshold ([`ko_threshold`], GEN-12, FIRE-20,
//! FIRE-28/29), the fall-back dice and limits ([`fall_back_dice`], [`fall_back_outcome`],
//! FIRE-24..27) and the whole pipeline ([`resolve_attack`]), which draws its dice from the
//! [`Dice`] trait and answers with the events to record. The engine ([`super::firing`]) works
//! out the inputs from the table; charges will feed the same pipeline later.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::artillery::gatling_jammed;
use super::dice::{Dice, DiceError};
use super::event::{Event, KnockOutCause, Modifier};
use super::state::{Formation, PieceId};
use crate::model::{Cover, Grade};

fn m(rule: &str, label: impl Into<String>, value: i32) -> Modifier {
    Modifier {
        rule: rule.to_string(),
        label: label.into(),
        value,
    }
}

fn i(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------------------------
// Steps 1–2: attack dice.

/// FIRE-11: the square bonus, which counts differently for small arms and guns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SquareBonus {
    /// The target is not in square (or the firer gets no bonus: cavalry).
    #[default]
    None,
    /// Infantry (small arms) firing at a square: +1 per firing unit.
    PerUnit,
    /// Artillery firing at a square: +1 per firing stand.
    PerStand,
}

/// Everything the dice-modifier table (FIRE-08, FIRE-11, FIRE-12) needs about one firing unit
/// against one target.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiceSituation {
    /// Stands eligible to fire (FIRE-05).
    pub stands: u32,
    /// Attack dice per stand (the number before "/").
    pub dice_per_stand: u32,
    /// FIRE-11: −1, the target is in extended line.
    pub target_extended_line: bool,
    /// FIRE-11: +1, the target is within half the firer's range (already false for howitzers
    /// and mortars, ART-05/07).
    pub within_half_range: bool,
    /// FIRE-11: +2, a flank or rear shot (FIRE-10).
    pub flank_or_rear: bool,
    /// FIRE-11: the target is in square.
    pub square: SquareBonus,
    /// FIRE-12 / MOVE-12: −1, the firer is in extended line.
    pub firer_extended_line: bool,
    /// FIRE-12 / CMD-21: command presence dice.
    pub presence_dice: u32,
    /// FIRE-12 / FIRE-28: −2, the firer is disordered.
    pub firer_disordered: bool,
    /// FIRE-12 / SKIR-03: −1, the target brigade is screened by skirmishers.
    pub skirmish_screen: bool,
    /// FIRE-12 / ART-03: +1 per firing stand, shrapnel shell after 1845.
    pub shrapnel: bool,
    /// FIRE-12 / OPT-AIRBURST-01: −1, air burst.
    pub air_burst: bool,
    /// FIRE-12 / §5 (Napoleonic note 22): +1 attack die in every attack.
    pub extra_attack_die: bool,
    /// Further dice a rule adds to this unit's attack (ART-02 (d): round shot through more
    /// stands of the target).
    pub extra: Vec<Modifier>,
}

/// A unit's attack dice and every modifier that made them, for the dice log.
#[derive(Debug, Clone, PartialEq)]
pub struct AttackDice {
    pub dice: u32,
    pub modifiers: Vec<Modifier>,
}

/// FIRE-08, FIRE-11, FIRE-12: the one place the firing dice table lives. Raw firepower is dice
/// per stand × eligible stands (FIRE-08); the modifiers follow in table order; after all of
/// them a unit allowed to attack rolls at least one die (FIRE-12 floor). A unit with no
/// eligible stand is not allowed to attack and rolls nothing.
pub fn fire_dice(s: &DiceSituation) -> AttackDice {
    let base = s.stands * s.dice_per_stand;
    let mut mods = vec![m(
        "FIRE-08",
        format!(
            "{} stand{} × {} di{}",
            s.stands,
            if s.stands == 1 { "" } else { "s" },
            s.dice_per_stand,
            if s.dice_per_stand == 1 { "e" } else { "ce" }
        ),
        i(base),
    )];
    if s.target_extended_line {
        mods.push(m("FIRE-11", "target in extended line", -1));
    }
    if s.within_half_range {
        mods.push(m("FIRE-11", "target within half range", 1));
    }
    if s.flank_or_rear {
        mods.push(m("FIRE-11", "shot at the flank or rear", 2));
    }
    match s.square {
        SquareBonus::None => {}
        SquareBonus::PerUnit => mods.push(m("FIRE-11", "infantry firing at a square", 1)),
        SquareBonus::PerStand => mods.push(m(
            "FIRE-11",
            "artillery firing at a square: +1 per stand",
            i(s.stands),
        )),
    }
    if s.firer_extended_line {
        mods.push(m("MOVE-12", "firer in extended line", -1));
    }
    if s.presence_dice > 0 {
        mods.push(m("CMD-21", "command presence", i(s.presence_dice)));
    }
    if s.firer_disordered {
        mods.push(m("FIRE-28", "firer disordered", -2));
    }
    if s.skirmish_screen {
        mods.push(m("SKIR-03", "target screened by skirmishers", -1));
    }
    if s.shrapnel {
        mods.push(m(
            "ART-03",
            "shrapnel shell (after 1845): +1 per stand",
            i(s.stands),
        ));
    }
    if s.air_burst {
        mods.push(m("OPT-AIRBURST-01", "air burst", -1));
    }
    if s.extra_attack_die {
        mods.push(m("FIRE-12", "+1 attack die (list note)", 1));
    }
    mods.extend(s.extra.iter().cloned());
    let total: i32 = mods.iter().map(|x| x.value).sum();
    if base == 0 && s.extra.is_empty() {
        return AttackDice {
            dice: 0,
            modifiers: mods,
        };
    }
    if total < 1 {
        mods.push(m(
            "FIRE-12",
            "a unit that attacks rolls at least 1 die",
            1 - total,
        ));
    }
    AttackDice {
        dice: u32::try_from(total.max(1)).unwrap_or(1),
        modifiers: mods,
    }
}

// ---------------------------------------------------------------------------------------------
// Step 4: the score to hit.

/// FIRE-16: the artillery cover shift — one step down the ladder (soft → open, hard → soft);
/// full cover stays full.
pub fn shift_cover(c: Cover) -> Cover {
    match c {
        Cover::Open | Cover::Soft => Cover::Open,
        Cover::Hard => Cover::Soft,
        Cover::Full => Cover::Full,
    }
}

/// FIRE-14, FIRE-15: the cover ladder's words, for the dice log.
pub fn cover_label(c: Cover) -> &'static str {
    match c {
        Cover::Open => "open",
        Cover::Soft => "soft cover",
        Cover::Hard => "hard cover",
        Cover::Full => "full cover",
    }
}

/// The score a to-hit die needs, the cover it was judged by and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ToHit {
    pub needed: u8,
    /// After the air burst and the artillery shift.
    pub cover: Cover,
    pub modifiers: Vec<Modifier>,
}

/// FIRE-14, FIRE-15, FIRE-16 (and OPT-AIRBURST-01): open 4+, soft 5+, hard and full 6; any
/// command unit 6. Air burst treats every target as in the open; artillery with the list's
/// cover shift steps the cover down one level.
pub fn score_to_hit(
    cover: Cover,
    artillery_shift: bool,
    command_target: bool,
    air_burst: bool,
) -> ToHit {
    let mut mods = Vec::new();
    let mut c = cover;
    if air_burst && c != Cover::Open {
        mods.push(m(
            "OPT-AIRBURST-01",
            format!("air burst: {} counts as open", cover_label(c)),
            0,
        ));
        c = Cover::Open;
    }
    if artillery_shift && shift_cover(c) != c {
        let s = shift_cover(c);
        mods.push(m(
            "FIRE-16",
            format!("artillery: {} counts as {}", cover_label(c), cover_label(s)),
            -1,
        ));
        c = s;
    }
    let needed = if command_target {
        6
    } else {
        match c {
            Cover::Open => 4,
            Cover::Soft => 5,
            Cover::Hard | Cover::Full => 6,
        }
    };
    let label = if command_target {
        "hit on 6: a command unit".to_string()
    } else {
        format!("hit on {needed}+: {}", cover_label(c))
    };
    mods.push(m("FIRE-14", label, i32::from(needed)));
    ToHit {
        needed,
        cover: c,
        modifiers: mods,
    }
}

// ---------------------------------------------------------------------------------------------
// Step 5: saves.

/// What decides a target's save against one attack (FIRE-17, FIRE-19, ART-07).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveSituation {
    /// The row's save (FIRE-18: None, "0", "-" are no save).
    pub save: Option<u8>,
    /// A replacement save and the rule giving it (ART-07 mortar wall save 4+, OPT-CONSTR-02),
    /// used if better than the unit's own.
    pub replacement: Option<(u8, &'static str)>,
    /// FIRE-19: a flank or rear hit makes the save one worse (6 stays 6).
    pub flank_or_rear: bool,
    pub formation: Option<Formation>,
    /// Ranged fire (squares save only in charges).
    pub ranged: bool,
}

/// The label [`save_plan`] gives a replacement save ("saves on 4+ instead").
const REPLACED: &str = " instead";
/// The label [`save_plan`] gives FIRE-19's flank or rear step.
const FLANK_WORSE: &str = "flank or rear: save one worse";

/// The score a logged save roll needed, read back from the modifiers [`save_plan`] logged with
/// it (FIRE-17 the save, a replacement save, FIRE-19 one worse from the flank or rear), so the
/// dice log can say "needs 5+" without a second copy of the save rules. `None` where the
/// modifiers hold no save.
pub fn save_needed(mods: &[Modifier]) -> Option<u8> {
    let mut save: Option<i32> = None;
    for md in mods {
        if md.label.starts_with("saves on ")
            && (md.rule == "FIRE-17" || md.label.ends_with(REPLACED))
        {
            save = Some(md.value);
        } else if md.rule == "FIRE-19" && md.label == FLANK_WORSE {
            save = save.map(|v| v + md.value);
        }
    }
    save.and_then(|v| u8::try_from(v).ok())
}

/// The save roll to make: the score (None: no save) and the bonus dice.
#[derive(Debug, Clone, PartialEq)]
pub struct SavePlan {
    pub target: Option<u8>,
    pub bonus_dice: u32,
    pub modifiers: Vec<Modifier>,
}

/// FIRE-17..FIRE-19 in the ruling's order: replacement saves first, then the flank penalty,
/// then the line bonus die (only for a unit that has a save), then the zero-save rules (attack
/// column always, square against ranged fire), which override everything.
pub fn save_plan(s: &SaveSituation) -> SavePlan {
    let mut mods = Vec::new();
    let mut save = s.save;
    if let Some(v) = save {
        mods.push(m("FIRE-17", format!("saves on {v}+"), i32::from(v)));
    }
    if let Some((r, rule)) = s.replacement {
        if save.is_none_or(|own| r < own) {
            mods.push(m(rule, format!("saves on {r}+{REPLACED}"), i32::from(r)));
            save = Some(r);
        }
    }
    if s.flank_or_rear {
        if let Some(v) = save.filter(|v| *v < 6) {
            mods.push(m("FIRE-19", FLANK_WORSE, 1));
            save = Some(v + 1);
        }
    }
    let mut bonus = 0;
    if save.is_some() && s.formation == Some(Formation::Line) {
        mods.push(m("FIRE-19", "line: +1 save die", 1));
        bonus = 1;
    }
    let zero = match s.formation {
        Some(Formation::AttackColumn) => Some("attack column: no saves"),
        Some(Formation::Square) if s.ranged => Some("square: no saves against ranged fire"),
        _ => None,
    };
    if let Some(why) = zero {
        return SavePlan {
            target: None,
            bonus_dice: 0,
            modifiers: vec![m("FIRE-19", why, 0)],
        };
    }
    SavePlan {
        target: save,
        bonus_dice: bonus,
        modifiers: mods,
    }
}

// ---------------------------------------------------------------------------------------------
// Step 6: knock-out.

/// GEN-12, FIRE-20, FIRE-28 (a), FIRE-29: the KO threshold — the sum of the stands' Hits (elite
/// +1 per stand, list notes), less 1 while disordered and 1 more while exhausted, never below 1.
pub fn ko_threshold(
    stands: u32,
    hits_per_stand: u32,
    elite: bool,
    disordered: bool,
    exhausted: bool,
) -> u32 {
    let total = stands * (hits_per_stand + u32::from(elite));
    let less = u32::from(disordered) + u32::from(disordered && exhausted);
    total.saturating_sub(less).max(1)
}

// ---------------------------------------------------------------------------------------------
// Steps 7–8: suppression and fall-back.

/// OPT-MORALE-01 (OPTIONAL): a morale grade replaces the suppression score and the rout
/// distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoraleRule {
    pub suppress_on: u8,
    pub rout_over_cm: u32,
}

impl MoraleRule {
    /// OPT-MORALE-01 (d): units without a declared grade are Regular: 5+, 10 cm.
    pub const REGULAR: MoraleRule = MoraleRule {
        suppress_on: 5,
        rout_over_cm: 10,
    };
}

/// FIRE-26: a fall-back of more than 20 cm routs.
pub const ROUT_OVER_CM: u32 = 20;
/// FIRE-26: dug-in troops and unlimbered guns are knocked out only beyond 10 cm.
pub const IN_PLACE_ROUT_OVER_CM: u32 = 10;

/// FIRE-24, FIRE-27: one die per hit taken, one fewer for elite (never below 0), one more for
/// poor troops.
pub fn fall_back_dice(hits: u32, grade: Grade) -> (u32, Vec<Modifier>) {
    let mut mods = vec![m("FIRE-24", "1 die per hit taken", i(hits))];
    let n = match grade {
        Grade::Regular => hits,
        Grade::Elite => {
            mods.push(m("FIRE-27", "elite: one die fewer", -1));
            hits.saturating_sub(1)
        }
        Grade::Poor => {
            mods.push(m("FIRE-27", "poor: one die more", 1));
            hits + 1
        }
    };
    (n, mods)
}

/// What a fall-back roll does (FIRE-26, OPT-MORALE-01).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FallBackOutcome {
    /// Falls back this many cm (at measure scale 1).
    Moves(u32),
    /// More than the rout distance: knocked out.
    Routs(u32),
    /// Dug in or an unlimbered gun: does not move.
    StandsFast(u32),
    /// Dug in or an unlimbered gun beyond the in-place limit: knocked out.
    RoutsInPlace(u32),
}

/// FIRE-26 (with OPT-MORALE-01 (c)): the consequence of a fall-back of `distance` cm.
pub fn fall_back_outcome(
    distance: u32,
    stays_put: bool,
    morale: Option<MoraleRule>,
) -> FallBackOutcome {
    let (rout, in_place) = match morale {
        Some(g) => (g.rout_over_cm, g.rout_over_cm),
        None => (ROUT_OVER_CM, IN_PLACE_ROUT_OVER_CM),
    };
    match (stays_put, distance) {
        (true, d) if d > in_place => FallBackOutcome::RoutsInPlace(d),
        (true, d) => FallBackOutcome::StandsFast(d),
        (false, d) if d > rout => FallBackOutcome::Routs(d),
        (false, d) => FallBackOutcome::Moves(d),
    }
}

// ---------------------------------------------------------------------------------------------
// The pipeline.

/// Dice rolled together at one score (FIRE-09 ruling: groups needing different scores roll
/// separately and add their hits).
#[derive(Debug, Clone, PartialEq)]
pub struct DiceGroup {
    pub firers: Vec<PieceId>,
    pub dice: u32,
    /// How the count and the score were reached (dice modifiers and the FIRE-14 score).
    pub modifiers: Vec<Modifier>,
    /// Score to hit, before the first-fire bonus.
    pub needed: u8,
    /// FIRE-13: +1 on each die (the firers' first ranged attack of the game).
    pub first_fire: bool,
    /// ACW rule 12: the Gatling's dice, rolled on their own.
    pub jams_on_double: bool,
    pub purpose: String,
    pub rule: String,
}

/// The target of one attack, as the pipeline needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetProfile {
    pub piece: PieceId,
    pub save: SaveSituation,
    /// Hits already taken this player turn (GEN-11).
    pub hits_before: u32,
    pub ko_threshold: u32,
    /// Carries a suppression marker now.
    pub suppressed: bool,
    /// FIRE-25: the marker was placed by the current order.
    pub suppressed_by_this_order: bool,
    pub grade: Grade,
    /// FIRE-26: dug in or an unlimbered gun: does not move when falling back.
    pub stays_put: bool,
}

/// One attack on one target (GEN-16).
#[derive(Debug, Clone, PartialEq)]
pub struct Attack {
    pub target: TargetProfile,
    pub groups: Vec<DiceGroup>,
    /// The nearest unit that fired (FIRE-24: fall back directly away from it).
    pub away_from: Option<PieceId>,
    /// The player turn, for the suppression marker (FIRE-22).
    pub player_turn: u32,
    /// OPT-MORALE-01 when in use.
    pub morale: Option<MoraleRule>,
}

/// What an attack did: the events to record and the numbers, for the caller and for tests.
#[derive(Debug, Clone, PartialEq)]
pub struct AttackOutcome {
    pub events: Vec<Event>,
    pub raw_hits: u32,
    pub saved: u32,
    /// Hits taken after saves.
    pub hits: u32,
    /// Hits accumulated this player turn after this attack.
    pub total_hits: u32,
    pub knocked_out: bool,
    pub suppressed: bool,
    /// The fall-back the engine must now carry out (FIRE-24), cm at measure scale 1.
    pub fall_back_cm: Option<u32>,
    /// Gatlings that jammed (ACW rule 12) and are knocked out.
    pub jammed: Vec<PieceId>,
}

/// GEN-16 steps 3–8 (with FIRE-13, FIRE-17..FIRE-27, ACW rule 12): rolls the groups' dice, the
/// saves, then the suppression or fall-back dice, and returns every roll and result as events.
/// The first-fire +1 counts on to-hit dice only, never on save or suppression dice; the
/// suppression score of a combined attack is the lowest score any group needed (FIRE-09).
pub fn resolve_attack(a: &Attack, dice: &mut dyn Dice) -> Result<AttackOutcome, DiceError> {
    resolve_attack_with(a, &|h| (Vec::new(), h), dice)
}

/// [`resolve_attack`] with a step between the saves and the hits taken: `absorb` takes the hits
/// after saves and returns the events of whatever took some of them first and the hits left
/// for the target (SKIR-03: a brigade's skirmisher screen; `skirmish::absorb`). When nothing is
/// left, the target takes no hits and makes no test.
pub fn resolve_attack_with(
    a: &Attack,
    absorb: &dyn Fn(u32) -> (Vec<Event>, u32),
    dice: &mut dyn Dice,
) -> Result<AttackOutcome, DiceError> {
    let t = &a.target;
    let mut ev = Vec::new();
    let mut raw = 0u32;
    let mut jammed = Vec::new();
    let mut lowest: Option<u8> = None;
    for g in &a.groups {
        if g.dice == 0 {
            continue;
        }
        let n = usize::try_from(g.dice).unwrap_or(usize::MAX);
        let rolled = dice.roll(n, &g.purpose)?;
        let mut mods = g.modifiers.clone();
        if g.first_fire {
            mods.push(m("FIRE-13", "first fire of the game: +1 on each die", 1));
        }
        ev.push(Event::DiceRolled {
            piece: match g.firers.as_slice() {
                [one] => Some(*one),
                _ => None,
            },
            purpose: g.purpose.clone(),
            rule: g.rule.clone(),
            dice: rolled.clone(),
            modifiers: mods,
        });
        lowest = Some(lowest.map_or(g.needed, |l| l.min(g.needed)));
        if g.jams_on_double && gatling_jammed(&rolled) {
            for f in &g.firers {
                ev.push(Event::UnitKnockedOut {
                    piece: *f,
                    cause: KnockOutCause::GatlingJam,
                });
                jammed.push(*f);
            }
            continue;
        }
        let bonus = u8::from(g.first_fire);
        raw += count(
            rolled
                .iter()
                .filter(|d| d.saturating_add(bonus) >= g.needed)
                .count(),
        );
    }
    let mut out = AttackOutcome {
        events: Vec::new(),
        raw_hits: raw,
        saved: 0,
        hits: 0,
        total_hits: t.hits_before,
        knocked_out: false,
        suppressed: false,
        fall_back_cm: None,
        jammed,
    };
    let Some(needed) = lowest else {
        out.events = ev;
        return Ok(out);
    };
    ev.push(Event::HitsScored {
        target: t.piece,
        hits: raw,
        needed,
    });
    // Step 5: saves.
    let plan = save_plan(&t.save);
    let mut saved = 0;
    if raw > 0 {
        if let Some(sv) = plan.target {
            let n = raw + plan.bonus_dice;
            let rolled = dice.roll(usize::try_from(n).unwrap_or(usize::MAX), "save")?;
            saved = count(rolled.iter().filter(|d| **d >= sv).count()).min(raw);
            ev.push(Event::DiceRolled {
                piece: Some(t.piece),
                purpose: "save".into(),
                rule: "FIRE-17".into(),
                dice: rolled,
                modifiers: plan.modifiers.clone(),
            });
            ev.push(Event::Saved {
                target: t.piece,
                saved,
            });
        }
    }
    // SKIR-03 (b): a screen in the way takes its share first.
    let (screened, hits) = absorb(raw - saved);
    ev.extend(screened);
    let total = t.hits_before + hits;
    out.saved = saved;
    out.hits = hits;
    out.total_hits = total;
    if hits == 0 {
        out.events = ev;
        return Ok(out);
    }
    // Step 6: hits and knock-out.
    ev.push(Event::HitsTaken {
        piece: t.piece,
        hits,
        total,
    });
    if total >= t.ko_threshold {
        ev.push(Event::UnitKnockedOut {
            piece: t.piece,
            cause: KnockOutCause::Hits,
        });
        out.knocked_out = true;
        out.events = ev;
        return Ok(out);
    }
    // Steps 7–8: suppression or fall-back.
    let n = usize::try_from(hits).unwrap_or(usize::MAX);
    if !t.suppressed {
        let (thr, why) = match a.morale {
            Some(g) => (g.suppress_on, ("OPT-MORALE-01", "morale grade")),
            None => (needed, ("FIRE-22", "the score needed to hit")),
        };
        let rolled = dice.roll(n, "suppression")?;
        let hit = rolled.iter().any(|d| *d >= thr);
        ev.push(Event::DiceRolled {
            piece: Some(t.piece),
            purpose: "suppression".into(),
            rule: "FIRE-22".into(),
            dice: rolled,
            modifiers: vec![m(
                why.0,
                format!("suppressed on {thr}+ ({})", why.1),
                i32::from(thr),
            )],
        });
        if hit {
            ev.push(Event::Suppressed {
                piece: t.piece,
                player_turn: a.player_turn,
            });
            out.suppressed = true;
        }
    } else if t.suppressed_by_this_order {
        ev.push(Event::NoEffect {
            piece: t.piece,
            rule: "FIRE-25".into(),
            reason: "suppressed by this same order: no fall-back test".into(),
        });
    } else {
        let (n, mods) = fall_back_dice(hits, t.grade);
        if n == 0 {
            ev.push(Event::NoEffect {
                piece: t.piece,
                rule: "FIRE-27".into(),
                reason: "no fall-back dice to roll: it does not move".into(),
            });
        } else {
            let rolled = dice.roll(usize::try_from(n).unwrap_or(usize::MAX), "fall-back")?;
            let distance: u32 = rolled.iter().map(|d| u32::from(*d)).sum();
            ev.push(Event::DiceRolled {
                piece: Some(t.piece),
                purpose: "fall-back".into(),
                rule: "FIRE-24".into(),
                dice: rolled,
                modifiers: mods,
            });
            match fall_back_outcome(distance, t.stays_put, a.morale) {
                FallBackOutcome::Moves(d) => {
                    ev.push(Event::FallBackRequired {
                        piece: t.piece,
                        distance_cm: d,
                        away_from: a.away_from,
                        in_place: false,
                    });
                    out.fall_back_cm = Some(d);
                }
                FallBackOutcome::StandsFast(d) => ev.push(Event::FallBackRequired {
                    piece: t.piece,
                    distance_cm: d,
                    away_from: a.away_from,
                    in_place: true,
                }),
                FallBackOutcome::Routs(d) => {
                    ev.push(Event::UnitKnockedOut {
                        piece: t.piece,
                        cause: KnockOutCause::Rout { distance_cm: d },
                    });
                    out.knocked_out = true;
                }
                FallBackOutcome::RoutsInPlace(d) => {
                    ev.push(Event::UnitKnockedOut {
                        piece: t.piece,
                        cause: KnockOutCause::RoutInPlace { distance_cm: d },
                    });
                    out.knocked_out = true;
                }
            }
        }
    }
    out.events = ev;
    Ok(out)
}

#[cfg(test)]
mod save_tests {
    use super::*;

    /// The log reads back exactly the score `save_plan` made, in every situation.
    #[test]
    fn fire_17_fire_19_save_needed_reads_back_the_planned_score() {
        let formations = [
            None,
            Some(Formation::Line),
            Some(Formation::AttackColumn),
            Some(Formation::Square),
            Some(Formation::MarchColumn),
        ];
        let mut checked = 0;
        for save in [None, Some(2), Some(3), Some(4), Some(5), Some(6)] {
            for replacement in [None, Some((4, "ART-07")), Some((6, "OPT-CONSTR-02"))] {
                for flank_or_rear in [false, true] {
                    for formation in formations {
                        for ranged in [false, true] {
                            let plan = save_plan(&SaveSituation {
                                save,
                                replacement,
                                flank_or_rear,
                                formation,
                                ranged,
                            });
                            assert_eq!(
                                save_needed(&plan.modifiers),
                                plan.target,
                                "{save:?} {replacement:?} {flank_or_rear} {formation:?} {ranged}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(checked, 6 * 3 * 2 * 5 * 2);
        // Worked by hand: a 4+ save hit in the flank needs 5+ (FIRE-19).
        let plan = save_plan(&SaveSituation {
            save: Some(4),
            replacement: None,
            flank_or_rear: true,
            formation: Some(Formation::Line),
            ranged: true,
        });
        assert_eq!(save_needed(&plan.modifiers), Some(5));
    }
}
