//! Army lists: troop charts, command charts and special rules (catalogue §4.6 ARMY, §5 COL).
//!
//! The shipped lists live in `assets/armies/*.json`, one file per section of the rulebook (a
//! "book": ACW, Napoleonic, Franco-Prussian, 18th Century, Colonial). A book carries what its
//! lists share (the command chart, the special rules) and the lists themselves; [`ListBook::resolve`]
//! turns it into self-contained [`ArmyList`]s. Numbers are as printed in the rulebook unless a
//! [`Correction`] on the row says otherwise and cites the catalogue entry that makes it.

use super::ids::{ListId, TroopTypeId};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The branch of service (COL-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arm {
    Infantry,
    Cavalry,
    Artillery,
    Engineers,
    /// Limbers, wagons, bicycles, trucks (COL-02 ruling: a "Cav" limber row is transport).
    Transport,
    /// The Colonial armoured car (§5.5 ruling: a vehicle that fires as small arms).
    Armour,
}

impl Arm {
    pub const ALL: [Arm; 6] = [
        Arm::Infantry,
        Arm::Cavalry,
        Arm::Artillery,
        Arm::Engineers,
        Arm::Transport,
        Arm::Armour,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Arm::Infantry => "Infantry",
            Arm::Cavalry => "Cavalry",
            Arm::Artillery => "Artillery",
            Arm::Engineers => "Engineers",
            Arm::Transport => "Transport",
            Arm::Armour => "Armour",
        }
    }

    /// ARMY-04: the Limit column counts units for infantry and cavalry, stands for the rest.
    pub fn limit_counts_units(self) -> bool {
        matches!(self, Arm::Infantry | Arm::Cavalry)
    }
}

/// The Move column (COL-03). The "a/b" form means different things by row kind, so each
/// meaning is its own variant rather than a pair of numbers to be guessed at later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Move {
    /// A single number: centimetres per Move action.
    Cm(u32),
    /// "0" or "-": cannot move without transport (siege, fortress and Colonial guns).
    Immobile,
    /// Gun rows "3/10": manhandle distance / prolonge distance.
    Gun { manhandle: u32, prolonge: u32 },
    /// Limbered Artillery "15/30": foot-artillery / horse-artillery limber speed.
    Limber { foot: u32, horse: u32 },
    /// Command rows "10/30": dismounted / mounted.
    Command { dismounted: u32, mounted: u32 },
}

impl Move {
    /// The distance an ordinary Move action covers, for display and sorting: the single number,
    /// the manhandle distance, the foot limber speed or the mounted command speed.
    pub fn primary_cm(self) -> u32 {
        match self {
            Move::Cm(c) => c,
            Move::Immobile => 0,
            Move::Gun { manhandle, .. } => manhandle,
            Move::Limber { foot, .. } => foot,
            Move::Command { mounted, .. } => mounted,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Move::Cm(c) => write!(f, "{c}"),
            Move::Immobile => f.write_str("-"),
            Move::Gun {
                manhandle,
                prolonge,
            } => write!(f, "{manhandle}/{prolonge}"),
            Move::Limber { foot, horse } => write!(f, "{foot}/{horse}"),
            Move::Command {
                dismounted,
                mounted,
            } => write!(f, "{dismounted}/{mounted}"),
        }
    }
}

/// The Attack column of a troop row (COL-04).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Attack {
    /// "n/r": n dice per stand at range r cm (battalion scale, GEN-07).
    Ranged { dice: u8, range_cm: u32 },
    /// Colonial "CC only": no ranged attack; fights only in charges.
    CloseCombatOnly,
}

impl fmt::Display for Attack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Attack::Ranged { dice, range_cm } => write!(f, "{dice}/{range_cm}"),
            Attack::CloseCombatOnly => f.write_str("CC only"),
        }
    }
}

/// A save roll "n+" (FIRE-18): 2 to 6. `None` in an `Option<Save>` means no save.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Save(u8);

impl Save {
    pub fn new(n: u8) -> Result<Self, String> {
        if (2..=6).contains(&n) {
            Ok(Save(n))
        } else {
            Err(format!("a save must be 2+ to 6+, not {n}+"))
        }
    }
    pub fn target(self) -> u8 {
        self.0
    }
}

impl TryFrom<u8> for Save {
    type Error = String;
    fn try_from(n: u8) -> Result<Self, String> {
        Save::new(n)
    }
}

impl From<Save> for u8 {
    fn from(s: Save) -> u8 {
        s.0
    }
}

impl fmt::Display for Save {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}+", self.0)
    }
}

/// Formats an optional save as the charts do.
pub fn save_label(save: Option<Save>) -> String {
    save.map_or_else(|| "None".to_string(), |s| s.to_string())
}

/// The "min/max" Limit column (COL-08, ARMY-04): per full 1,500 points; `None` = "-".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Limit {
    #[serde(default)]
    pub min: Option<u32>,
    #[serde(default)]
    pub max: Option<u32>,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: Option<u32>| v.map_or_else(|| "-".to_string(), |n| n.to_string());
        write!(f, "{}/{}", show(self.min), show(self.max))
    }
}

/// Years a row is available in (ARMY-12), from labels such as "(05-07)" or "1863+".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Years {
    pub from: u16,
    /// `None`: open-ended ("1863+").
    #[serde(default)]
    pub to: Option<u16>,
}

impl Years {
    pub fn contains(&self, year: u16) -> bool {
        year >= self.from && self.to.is_none_or(|t| year <= t)
    }
}

/// What a troop row is for (ARMY-10): only `Unit` rows are bought on their own.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowRole {
    /// Bought as units (or stands) at its Points value.
    #[default]
    Unit,
    /// Skirmishing Infantry: the profile of brigade skirmisher screens (SKIR-01); not bought.
    SkirmishProfile,
    /// The dismounted mode of purchased cavalry; printed points are ignored (ARMY-10 b).
    DismountedMode,
    /// Limbered Artillery: free, one per gun stand (ARMY-10 c).
    Limber,
}

/// Elite/poor status fixed by a row's notes (Napoleonic, FPW, 18C) (ARMY-09).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowGrade {
    #[default]
    Regular,
    Elite,
    Poor,
}

/// A value changed from what the transcription prints, with the catalogue entry that makes the
/// change (§5.6, or a column ruling such as COL-02 / COL-12).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    pub field: String,
    pub printed: String,
    pub adopted: String,
    pub rule: String,
}

/// One row of a troop chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TroopType {
    pub id: TroopTypeId,
    /// The Troop Stand label as printed (years in brackets kept).
    pub name: String,
    pub arm: Arm,
    #[serde(rename = "move")]
    pub movement: Move,
    /// `None`: the row does not attack (limbers, transport).
    #[serde(default)]
    pub attack: Option<Attack>,
    /// Hits per stand (COL-05).
    pub hits: u8,
    #[serde(default)]
    pub save: Option<Save>,
    /// Cost per stand (COL-07); `None` when blank or "-".
    #[serde(default)]
    pub points: Option<u32>,
    /// `None` when the Limit cell is blank.
    #[serde(default)]
    pub limit: Option<Limit>,
    /// Numbers into this list's special rules (COL-09).
    #[serde(default)]
    pub notes: Vec<u32>,
    #[serde(default)]
    pub role: RowRole,
    #[serde(default)]
    pub grade: RowGrade,
    /// ACW rule 1: a unit of this row may be bought Elite or Poor (ARMY-09).
    #[serde(default)]
    pub grade_optional: bool,
    #[serde(default)]
    pub years: Option<Years>,
    #[serde(default)]
    pub corrections: Vec<Correction>,
}

impl TroopType {
    /// ARMY-10: can a unit of this row be bought on its own?
    pub fn purchasable(&self) -> bool {
        self.role == RowRole::Unit && self.points.is_some()
    }

    /// The compact stat line used on screens and labels: "M10 A1/10 H3 S5+ 75pt".
    pub fn stat_line(&self) -> String {
        let mut s = format!("M{}", self.movement);
        if let Some(a) = self.attack {
            s.push_str(&format!(" A{a}"));
        }
        s.push_str(&format!(" H{}", self.hits));
        s.push_str(&format!(
            " S{}",
            self.save.map_or_else(|| "-".to_string(), |v| v.to_string())
        ));
        if let Some(p) = self.points {
            s.push_str(&format!(" {p}pt"));
        }
        s
    }
}

/// Command levels (COL-10). Colonial charts have the single level `Hq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandLevel {
    Brigade,
    Division,
    Corps,
    Army,
    Hq,
}

impl CommandLevel {
    pub const ALL: [CommandLevel; 5] = [
        CommandLevel::Brigade,
        CommandLevel::Division,
        CommandLevel::Corps,
        CommandLevel::Army,
        CommandLevel::Hq,
    ];

    pub fn label(self) -> &'static str {
        match self {
            CommandLevel::Brigade => "Brigade HQ",
            CommandLevel::Division => "Division HQ",
            CommandLevel::Corps => "Corps HQ",
            CommandLevel::Army => "Army HQ",
            CommandLevel::Hq => "HQ",
        }
    }

    /// Rank for the chain of command (ARMY-08): a parent must rank higher than its child.
    /// Colonial `Hq` ranks with brigades.
    pub fn rank(self) -> u8 {
        match self {
            CommandLevel::Brigade | CommandLevel::Hq => 1,
            CommandLevel::Division => 2,
            CommandLevel::Corps => 3,
            CommandLevel::Army => 4,
        }
    }
}

/// Commander quality (ARMY-14). The Colonial chart has all six; the others three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quality {
    Uninspiring,
    Inspiring,
    Average,
    Good,
    VeryGood,
    Exceptional,
}

impl Quality {
    pub const ALL: [Quality; 6] = [
        Quality::Uninspiring,
        Quality::Inspiring,
        Quality::Average,
        Quality::Good,
        Quality::VeryGood,
        Quality::Exceptional,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Quality::Uninspiring => "Uninspiring",
            Quality::Inspiring => "Inspiring",
            Quality::Average => "Average",
            Quality::Good => "Good",
            Quality::VeryGood => "Very Good",
            Quality::Exceptional => "Exceptional",
        }
    }
}

/// The Limit column of a command row (ARMY-06).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HqLimit {
    /// "1 per N Inf": at most ceil(I / N) HQs of this level.
    PerInfantry { units: u32 },
    /// "1": one per game (Army HQ).
    One,
    /// "*", "*9", "*26": the nation's range text, in [`ArmyList::hq_ranges`].
    Nation,
    /// Blank (Colonial).
    Unlimited,
}

impl fmt::Display for HqLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HqLimit::PerInfantry { units } => write!(f, "1 per {units} Inf"),
            HqLimit::One => f.write_str("1"),
            HqLimit::Nation => f.write_str("*"),
            HqLimit::Unlimited => f.write_str(""),
        }
    }
}

/// One row of a command chart (COL-10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandType {
    pub level: CommandLevel,
    pub quality: Quality,
    /// Command value: the 2D6 target and the cap on orders per turn (CMD-01).
    pub command: u8,
    #[serde(rename = "move")]
    pub movement: Move,
    /// The Attack column of an HQ: command-presence dice "+n" (COL-04, CMD-21).
    pub presence_dice: u8,
    pub hits: u8,
    #[serde(default)]
    pub save: Option<Save>,
    pub points: u32,
    pub limit: HqLimit,
    #[serde(default)]
    pub notes: Vec<u32>,
    #[serde(default)]
    pub corrections: Vec<Correction>,
}

impl CommandType {
    pub fn label(&self) -> String {
        format!("{} ({})", self.level.label(), self.quality.label())
    }
}

/// A machine-readable effect of a special rule, so that the engine is driven by data where the
/// rule is a number (issue: per-list special rules). Rules with no mechanical effect, or whose
/// effect the engine reads from elsewhere, carry no effects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "effect")]
pub enum RuleEffect {
    /// +1 Hit per stand, one fall-back die fewer.
    Elite,
    /// One fall-back die more.
    Poor,
    /// Light infantry / sharpshooters: 5+ save where the row prints none (COL-12), move when alone.
    LightTroops { save: u8, solo_move_cm: u32 },
    /// Mounted cavalry attack range override.
    MountedRange { cm: u32 },
    /// May dismount by a Deploy action; dismounted save.
    Dismount {
        #[serde(default)]
        dismounted_save: Option<u8>,
    },
    /// The row is the dismounted mode of purchased cavalry.
    DismountedMode,
    /// Change limber mode before or after a move, not both; no initiative charge when limbered.
    Limbers,
    /// Horse artillery: surcharge per stand (0 when the row already includes it) and limber speed.
    HorseArtillery { surcharge: u32, limber_cm: u32 },
    /// Artillery steps the target's cover down one level (FIRE-16).
    ArtilleryCoverShift,
    /// Round shot penetrates this far beyond the first stand (ART-02).
    RoundShotPenetration { cm: u32 },
    /// Canister when charged: attacks per stand and range (ART-04).
    Canister { attacks: u8, range_cm: u32 },
    /// Howitzer: range and open-only targets.
    Howitzer {
        range_cm: u32,
        #[serde(default)]
        open_targets_only: bool,
    },
    /// Never moves (siege and fortress guns).
    NeverMoves,
    /// May not charge on initiative.
    NoInitiativeCharge,
    /// High-angle fire over walls; a target behind a wall saves on this.
    HighAngle { wall_save: u8 },
    /// Gatling: range override; jams on any double.
    GatlingJam { range_cm: u32 },
    /// One engineer stand converts an infantry unit into an engineer unit.
    Engineer,
    /// +1 attack die on the initial charge attack (may be designated per unit, COL-13).
    Lancers,
    /// +1 attack die during the charge.
    HeavyCavalry,
    /// May not charge infantry in square.
    Irregular,
    /// May scout in single stands (OPTIONAL scouting).
    Scouts,
    /// +1 attack die in every attack.
    ExtraAttackDie,
    /// Must charge in attack column.
    MustChargeInAttackColumn,
    /// May not form square; defends against cavalry as in open ground.
    NoSquare,
    /// Ordered by HQs of another nation as well (OPT-NATION-01).
    TrainedBy { nation: String },
    /// At most this many Exceptional HQs per command level (ARMY-07).
    ExceptionalCap { per_level: u32 },
    /// Only one Army HQ per game (ARMY-06 e).
    OneArmyHq,
    /// Must close to close combat to fight.
    CloseCombatOnly,
    /// Colonial 21 (§5.5 ruling): may fire shell high-angle (ART-08) at a target it cannot see
    /// but a friendly unit can, with the +1 deviation die.
    IndirectFire,
}

/// One numbered special rule of a list, with our own one-line gist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecialRule {
    pub no: u32,
    pub title: String,
    pub gist: String,
    #[serde(default)]
    pub effects: Vec<RuleEffect>,
}

/// A nation's HQ range text: an HQ of `level` commands `min_inf`..=`max_inf` infantry units
/// (ARMY-06 b).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HqRange {
    pub level: CommandLevel,
    pub min_inf: u32,
    pub max_inf: u32,
}

/// ARMY-09: a cap on elite units of an arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EliteCap {
    pub arm: Arm,
    /// At most one elite unit per this many points (floor), at least one from 1,500 points.
    pub per_points: u32,
    /// The cap is lifted when every unit of the arm is elite ("unless the whole force is elite").
    #[serde(default)]
    pub unless_all_elite: bool,
}

/// ACW rule 1 / ARMY-09, ARMY-15: optional grades bought per unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GradeCosts {
    pub elite_per_stand: i32,
    pub poor_per_stand: i32,
}

/// List-wide caps and costs used by validation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ListCaps {
    /// ARMY-07: Exceptional HQs allowed per command level; `None` = no cap (Colonial).
    #[serde(default)]
    pub exceptional_per_level: Option<u32>,
    /// ARMY-09.
    #[serde(default)]
    pub elite: Vec<EliteCap>,
    /// ACW optional Elite/Poor costs; `None` where grades come from rows.
    #[serde(default)]
    pub grade_costs: Option<GradeCosts>,
    /// ACW rule 13: at most this many lancer units per Command.
    #[serde(default)]
    pub lancer_units_max: Option<u32>,
    /// ARMY-06 d: Colonial natives: at most one HQ per this many troop stands, plus the CO.
    #[serde(default)]
    pub hq_per_stands: Option<u32>,
    /// ART-10 (Austrian ruling): no FAOs, no grand batteries.
    #[serde(default)]
    pub no_grand_batteries: bool,
}

/// The period a book covers; drives period-wide rules (square, skirmishers, first fire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    Acw,
    Napoleonic,
    FrancoPrussian,
    EighteenthCentury,
    Colonial,
    /// A user list not tied to a book.
    Other,
}

impl Period {
    pub fn label(self) -> &'static str {
        match self {
            Period::Acw => "American Civil War",
            Period::Napoleonic => "Napoleonic",
            Period::FrancoPrussian => "Franco-Prussian War",
            Period::EighteenthCentury => "18th Century",
            Period::Colonial => "Colonial",
            Period::Other => "Other",
        }
    }
}

/// Where in the source a list was transcribed from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SourceRef {
    pub seed: String,
    /// Seed line range, e.g. "1231-1275".
    pub lines: String,
}

/// A complete, self-contained army list, as the rest of the program sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmyList {
    pub id: ListId,
    pub name: String,
    pub period: Period,
    /// False when the source lacks the troop chart (Napoleonic British and Prussian).
    pub complete: bool,
    #[serde(default)]
    pub incomplete_reason: Option<String>,
    /// True for lists made in the app (stored only in the database).
    #[serde(default)]
    pub user: bool,
    #[serde(default)]
    pub source: SourceRef,
    /// Our short summary of the list's organisation text.
    #[serde(default)]
    pub organisation: String,
    /// Every unit gets +1 to hit the first time it fires (FIRE-13): ACW, Napoleonic, FPW.
    #[serde(default)]
    pub first_fire_bonus: bool,
    /// GEN-07: army-list ranges scale with the representation scale (false for Colonial).
    #[serde(default = "yes")]
    pub ranges_scale: bool,
    #[serde(default)]
    pub hq_ranges: Vec<HqRange>,
    #[serde(default)]
    pub caps: ListCaps,
    pub troop_types: Vec<TroopType>,
    pub command_types: Vec<CommandType>,
    pub special_rules: Vec<SpecialRule>,
    /// Note numbers rows cite but the source does not contain (e.g. 18C 11–13).
    #[serde(default)]
    pub missing_rules: Vec<u32>,
}

fn yes() -> bool {
    true
}

impl ArmyList {
    pub fn troop_type(&self, id: &TroopTypeId) -> Option<&TroopType> {
        self.troop_types.iter().find(|t| &t.id == id)
    }

    pub fn command_type(&self, level: CommandLevel, quality: Quality) -> Option<&CommandType> {
        self.command_types
            .iter()
            .find(|c| c.level == level && c.quality == quality)
    }

    pub fn special_rule(&self, no: u32) -> Option<&SpecialRule> {
        self.special_rules.iter().find(|r| r.no == no)
    }

    /// Every effect a row has through its notes.
    pub fn row_effects<'a>(&'a self, row: &'a TroopType) -> impl Iterator<Item = &'a RuleEffect> {
        row.notes
            .iter()
            .filter_map(|n| self.special_rule(*n))
            .flat_map(|r| r.effects.iter())
    }

    /// OPT-SCOUT-01 ruling: may a unit of this row send single stands out as scouts? Cavalry
    /// rows whose notes allow scouting in single stands (the `scouts` effect: Napoleonic note
    /// 12, FPW note 16, 18C note 21), or any cavalry row in an ACW list.
    pub fn can_scout(&self, row: &TroopType) -> bool {
        row.arm == Arm::Cavalry
            && (self.period == Period::Acw
                || self
                    .row_effects(row)
                    .any(|e| matches!(e, RuleEffect::Scouts)))
    }

    /// The command levels this list's chart offers, in rank order.
    pub fn levels(&self) -> Vec<CommandLevel> {
        let mut v: Vec<CommandLevel> = self.command_types.iter().map(|c| c.level).collect();
        v.sort();
        v.dedup();
        v
    }

    /// The one-line gists of a row's notes, for rosters and tooltips.
    pub fn note_gists(&self, row: &TroopType) -> Vec<String> {
        row.notes
            .iter()
            .map(|n| match self.special_rule(*n) {
                Some(r) => format!("{n}. {}: {}", r.title, r.gist),
                None => format!("{n}. (not in the source)"),
            })
            .collect()
    }
}

/// A list inside a book file: what is not shared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BookList {
    pub id: ListId,
    pub name: String,
    pub complete: bool,
    #[serde(default)]
    pub incomplete_reason: Option<String>,
    #[serde(default)]
    pub source: SourceRef,
    #[serde(default)]
    pub organisation: String,
    #[serde(default)]
    pub hq_ranges: Vec<HqRange>,
    #[serde(default)]
    pub caps: Option<ListCaps>,
    pub troop_types: Vec<TroopType>,
    /// Absent when the book's shared chart applies.
    #[serde(default)]
    pub command_types: Option<Vec<CommandType>>,
}

/// One section of the rulebook's army lists, as stored in `assets/armies/<book>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListBook {
    pub book: String,
    pub period: Period,
    #[serde(default)]
    pub source: SourceRef,
    #[serde(default)]
    pub first_fire_bonus: bool,
    #[serde(default = "yes")]
    pub ranges_scale: bool,
    #[serde(default)]
    pub caps: ListCaps,
    /// The shared command chart, where the book has one.
    #[serde(default)]
    pub command_types: Vec<CommandType>,
    pub special_rules: Vec<SpecialRule>,
    #[serde(default)]
    pub missing_rules: Vec<u32>,
    pub lists: Vec<BookList>,
}

impl ListBook {
    /// Turns a book into self-contained lists: a list's own chart and caps win over the book's.
    pub fn resolve(&self) -> Vec<ArmyList> {
        self.lists
            .iter()
            .map(|l| ArmyList {
                id: l.id.clone(),
                name: l.name.clone(),
                period: self.period,
                complete: l.complete,
                incomplete_reason: l.incomplete_reason.clone(),
                user: false,
                source: l.source.clone(),
                organisation: l.organisation.clone(),
                first_fire_bonus: self.first_fire_bonus,
                ranges_scale: self.ranges_scale,
                hq_ranges: l.hq_ranges.clone(),
                caps: l.caps.clone().unwrap_or_else(|| self.caps.clone()),
                troop_types: l.troop_types.clone(),
                command_types: l
                    .command_types
                    .clone()
                    .unwrap_or_else(|| self.command_types.clone()),
                special_rules: self.special_rules.clone(),
                missing_rules: self.missing_rules.clone(),
            })
            .collect()
    }
}

/// The shipped books, embedded at compile time so the app needs no files beside the binary.
pub const SHIPPED_BOOKS: [(&str, &str); 5] = [
    ("acw.json", include_str!("../../assets/armies/acw.json")),
    (
        "napoleonic.json",
        include_str!("../../assets/armies/napoleonic.json"),
    ),
    (
        "franco-prussian.json",
        include_str!("../../assets/armies/franco-prussian.json"),
    ),
    (
        "eighteenth-century.json",
        include_str!("../../assets/armies/eighteenth-century.json"),
    ),
    (
        "colonial.json",
        include_str!("../../assets/armies/colonial.json"),
    ),
];

/// A shipped book that failed to parse: only possible if the assets were edited badly, and
/// reported by name rather than panicking.
#[derive(Debug, thiserror::Error)]
#[error("assets/armies/{file}: {source}")]
pub struct BookError {
    pub file: String,
    #[source]
    pub source: serde_json::Error,
}

/// Parses one book file.
pub fn parse_book(file: &str, text: &str) -> Result<ListBook, BookError> {
    serde_json::from_str(text).map_err(|source| BookError {
        file: file.to_string(),
        source,
    })
}

/// Every shipped army list, in book order.
pub fn shipped_lists() -> Result<Vec<ArmyList>, BookError> {
    let mut out = Vec::new();
    for (file, text) in SHIPPED_BOOKS {
        out.extend(parse_book(file, text)?.resolve());
    }
    Ok(out)
}
