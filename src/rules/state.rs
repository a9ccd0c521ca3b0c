//! Battle state: what is on the table now. Built once from a scenario ([`BattleState::setup`])
//! and afterwards changed only by [`super::apply::apply`], one event at a time.

use super::battle::Ctx;
use crate::geom::footprint::{heading, rect_corners, rect_of, right_of, ring_polygon};
use crate::geom::{Point, Rect};
use crate::model::validate::{geometry_violations, Subject, Violation};
use crate::model::{
    Arm, ArmyList, CommandLevel, Grade, HqId, ListId, Quality, Scenario, TroopTypeId, UnitId,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A piece on the table: a troop unit or a command unit, of a side (0 or 1). Shown as
/// `0:u3` (side 0, unit 3) or `1:hq2`, the same ids battle files use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PieceId {
    Unit { side: usize, unit: UnitId },
    Hq { side: usize, hq: HqId },
}

impl PieceId {
    pub fn side(self) -> usize {
        match self {
            PieceId::Unit { side, .. } | PieceId::Hq { side, .. } => side,
        }
    }
    pub fn is_command(self) -> bool {
        matches!(self, PieceId::Hq { .. })
    }
}

impl fmt::Display for PieceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PieceId::Unit { side, unit } => write!(f, "{side}:u{unit}"),
            PieceId::Hq { side, hq } => write!(f, "{side}:hq{hq}"),
        }
    }
}

/// Where a piece stands: the centre of its unit command stand's front edge, and its facing in
/// degrees (0 = towards +y, clockwise).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub at: Point,
    pub facing_deg: f64,
}

/// Movement formations (MOVE-09). Artillery, transport and command units have none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Formation {
    Line,
    ExtendedLine,
    MarchColumn,
    AttackColumn,
    Square,
    Disordered,
}

impl Formation {
    pub const ALL: [Formation; 6] = [
        Formation::Line,
        Formation::ExtendedLine,
        Formation::MarchColumn,
        Formation::AttackColumn,
        Formation::Square,
        Formation::Disordered,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Formation::Line => "line",
            Formation::ExtendedLine => "extended line",
            Formation::MarchColumn => "march column",
            Formation::AttackColumn => "attack column",
            Formation::Square => "square",
            Formation::Disordered => "disordered",
        }
    }
}

/// Player-turn phases (SEQ-03), with deployment before the first and `Over` after the last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Deployment,
    Initiative,
    Command,
    Charge,
    End,
    Over,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Deployment => "Deployment",
            Phase::Initiative => "Initiative",
            Phase::Command => "Command",
            Phase::Charge => "Charge",
            Phase::End => "End",
            Phase::Over => "Over",
        }
    }

    /// SEQ-03: the phase after this one within a player turn (`None` after End).
    pub fn next_in_turn(self) -> Option<Phase> {
        match self {
            Phase::Deployment => Some(Phase::Initiative),
            Phase::Initiative => Some(Phase::Command),
            Phase::Command => Some(Phase::Charge),
            Phase::Charge => Some(Phase::End),
            Phase::End | Phase::Over => None,
        }
    }
}

/// Where the battle is in its sequence of play (SEQ-02).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnState {
    /// 1-based game turn; 0 during deployment.
    pub game_turn: u32,
    /// 1-based count of player turns; game_turn = ceil(player_turn / 2).
    pub player_turn: u32,
    /// The side whose player turn it is.
    pub active: usize,
    pub first_player: usize,
    pub phase: Phase,
}

/// One troop unit or command unit on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceState {
    pub id: PieceId,
    pub name: String,
    /// Troop row (units) — `None` for command units.
    #[serde(default)]
    pub troop_type: Option<TroopTypeId>,
    pub arm: Option<Arm>,
    /// Command level and quality (command units).
    #[serde(default)]
    pub command: Option<(CommandLevel, Quality)>,
    /// `None`: not on the table (reserves, or removed).
    pub pose: Option<Pose>,
    pub formation: Option<Formation>,
    /// Artillery: hooked to its limber (MOVE-20).
    #[serde(default)]
    pub limbered: bool,
    /// Combat stands left (units) — command units count 1.
    pub stands: u8,
    /// Hits taken this player turn (GEN-11).
    pub hits: u32,
    /// Player turn in which the suppression marker was placed (FIRE-22).
    #[serde(default)]
    pub suppressed_at: Option<u32>,
    /// Disordered until the end of the initiative phase of this player turn (FIRE-28).
    #[serde(default)]
    pub disordered_until: Option<u32>,
    #[serde(default)]
    pub knocked_out: bool,
    #[serde(default)]
    pub grade: Grade,
    /// Starts the battle in a Trench or Dug-Out (VIS-16, DEF-04).
    #[serde(default)]
    pub dug_in: bool,
    /// A dug-in unit has given its position away (VIS-17): permanent once set.
    #[serde(default)]
    pub revealed: bool,
    /// Has fired at least once this game: reveals hidden guns (VIS-08) and dug-in units
    /// (VIS-17), and is the first-fire bonus's memory (FIRE-13).
    #[serde(default)]
    pub has_fired: bool,
    /// Orders, initiative and command-unit records (INIT, CMD, FIRE-30..33; `command`).
    #[serde(default)]
    pub orders: super::command::UnitOrders,
    /// Refused flank stands (MOVE-30; `flank`).
    #[serde(default, skip_serializing_if = "super::flank::FlankState::is_straight")]
    pub flank: super::flank::FlankState,
    /// OPTIONAL prone (OPT-PRONE-01): the unit lies down ("P" counter; `prone`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prone: bool,
}

impl PieceState {
    pub fn on_table(&self) -> bool {
        self.pose.is_some() && !self.knocked_out
    }
}

/// Per-side totals the rules keep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideState {
    pub name: String,
    pub list: ListId,
    /// BRK-01, counted at setup.
    pub breakpoint: u32,
    pub units_lost: u32,
    pub broken: bool,
    pub conceded: bool,
}

/// Everything on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BattleState {
    pub turn: TurnState,
    pub pieces: BTreeMap<PieceId, PieceState>,
    pub sides: Vec<SideState>,
    /// Losses, declared objectives and lost engineer stands (END, BRK, OBJ, VP; `victory`).
    #[serde(default)]
    pub ledger: super::victory::Ledger,
    /// The orders mode and the current order (CMD; `command`).
    #[serde(default)]
    pub command: super::command::CommandState,
    /// Charges under way, supports made and consolidations owed (CHG, INIT-09; `charge`).
    #[serde(default)]
    pub charges: super::charge::ChargeState,
    /// Works engineers made (ENG-03..ENG-06) and the tasks taken (ENG-02).
    #[serde(default)]
    pub engineering: super::engineering::EngineeringState,
    /// The weather of the moment (OPT-WEATHER-02, OPT-WEATHER-04; `weather`).
    #[serde(default)]
    pub weather: super::weather::WeatherState,
    /// Scouting stands (OPT-SCOUT-01..03; `scouting`).
    #[serde(default, skip_serializing_if = "super::scouting::ScoutState::is_empty")]
    pub scouts: super::scouting::ScoutState,
    /// Communication rolls made (OPT-MULTI-02; `comms`).
    #[serde(default, skip_serializing_if = "super::comms::CommsState::is_empty")]
    pub comms: super::comms::CommsState,
    /// OPTIONAL constructions: permanent hits and collapses (OPT-CONSTR-03; `construction`).
    #[serde(default)]
    pub constructions: super::construction::ConstructionState,
    /// Transfers between fixed formations and broken allied armies (OPT-FIXED-03,
    /// OPT-NATION-03; `allegiance`).
    #[serde(default)]
    pub allegiance: super::allegiance::AllegianceState,
}

/// The battle cannot be set up from this scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("a battle needs two sides; the scenario has {0}")]
    Sides(usize),
    #[error("side '{side}' uses army list '{list}', which is not installed")]
    List { side: String, list: String },
    #[error("the dice source cannot be used: {0}")]
    Dice(String),
    #[error("unit '{unit}' uses troop type '{troop}' not in list '{list}'")]
    Troop {
        unit: String,
        troop: String,
        list: String,
    },
    /// DATA-04..DATA-12: the table, its terrain or the pieces' placement cannot be played on
    /// (`model::validate::geometry_violations`, [`placement_violations`]); every problem found.
    #[error("the battle cannot start on this table: {}", list_violations(.0))]
    Table(Vec<Violation>),
}

fn list_violations(v: &[Violation]) -> String {
    let shown: Vec<String> = v.iter().take(20).map(|v| v.to_string()).collect();
    let more = v.len().saturating_sub(shown.len());
    let mut s = shown.join("; ");
    if more > 0 {
        s.push_str(&format!("; and {more} more"));
    }
    s
}

/// The default formation a unit starts in: line for foot and horse, none for the rest.
fn starting_formation(arm: Arm) -> Option<Formation> {
    match arm {
        Arm::Infantry | Arm::Cavalry | Arm::Engineers => Some(Formation::Line),
        Arm::Artillery | Arm::Transport | Arm::Armour => None,
    }
}

impl BattleState {
    /// The table at the start of deployment: every placed unit and HQ of both sides. SEQ-01:
    /// the scenario or a roll-off decides the first player, so it is given here.
    ///
    /// Refused ([`SetupError::Table`]) when the table or its shapes are unusable (DATA-04..09)
    /// or a piece is placed off the table, on another or on ground impassable to it
    /// (DATA-10..12): no battle starts on them. Army-building violations do not refuse a start
    /// (`model::validate::start_warnings` lists them for the caller to show).
    pub fn setup(
        scenario: &Scenario,
        lists: &[ArmyList],
        first_player: usize,
    ) -> Result<BattleState, SetupError> {
        let geometry = geometry_violations(scenario);
        if !geometry.is_empty() {
            return Err(SetupError::Table(geometry));
        }
        let state = Self::lay_out(scenario, lists, first_player)?;
        let placement = placement_in(&Ctx::new(scenario, lists, &state));
        if !placement.is_empty() {
            return Err(SetupError::Table(placement));
        }
        Ok(state)
    }

    /// [`BattleState::setup`] without the table checks: every piece where the scenario puts it,
    /// even off the table or on another (the table editor draws and measures what is placed
    /// while the designer is still fixing it; `placement_violations` says what is wrong).
    pub fn lay_out(
        scenario: &Scenario,
        lists: &[ArmyList],
        first_player: usize,
    ) -> Result<BattleState, SetupError> {
        if scenario.sides.len() != 2 {
            return Err(SetupError::Sides(scenario.sides.len()));
        }
        let mut pieces = BTreeMap::new();
        let mut sides = Vec::new();
        for (si, side) in scenario.sides.iter().enumerate() {
            let Some(list) = lists.iter().find(|l| l.id == side.army_list) else {
                return Err(SetupError::List {
                    side: side.name.clone(),
                    list: side.army_list.to_string(),
                });
            };
            for u in &side.units {
                let Some(row) = list.troop_type(&u.troop_type) else {
                    return Err(SetupError::Troop {
                        unit: u.name.clone(),
                        troop: u.troop_type.to_string(),
                        list: list.name.clone(),
                    });
                };
                let id = PieceId::Unit {
                    side: si,
                    unit: u.id,
                };
                pieces.insert(
                    id,
                    PieceState {
                        id,
                        name: u.name.clone(),
                        troop_type: Some(u.troop_type.clone()),
                        arm: Some(row.arm),
                        command: None,
                        pose: u.position.map(|p| Pose {
                            at: p.at,
                            facing_deg: p.facing_deg,
                        }),
                        formation: starting_formation(row.arm),
                        limbered: false,
                        stands: u.stands,
                        hits: 0,
                        suppressed_at: None,
                        disordered_until: None,
                        knocked_out: false,
                        grade: crate::model::validate::effective_grade(u, row),
                        dug_in: side.field_defenses.iter().any(|d| d.occupant == Some(u.id)),
                        revealed: false,
                        has_fired: false,
                        orders: Default::default(),
                        flank: Default::default(),
                        prone: false,
                    },
                );
            }
            for h in &side.hqs {
                let id = PieceId::Hq { side: si, hq: h.id };
                pieces.insert(
                    id,
                    PieceState {
                        id,
                        name: h.name.clone(),
                        troop_type: None,
                        arm: None,
                        command: Some(h.stat_line()), // ART-10: an FAO on the Brigade HQ line
                        pose: h.position.map(|p| Pose {
                            at: p.at,
                            facing_deg: p.facing_deg,
                        }),
                        formation: None,
                        limbered: false,
                        stands: 1,
                        hits: 0,
                        suppressed_at: None,
                        disordered_until: None,
                        knocked_out: false,
                        grade: Grade::Regular,
                        dug_in: false,
                        revealed: false,
                        has_fired: false,
                        orders: Default::default(),
                        flank: Default::default(),
                        prone: false,
                    },
                );
            }
            sides.push(SideState {
                name: side.name.clone(),
                list: side.army_list.clone(),
                breakpoint: crate::model::points::breakpoint(side),
                units_lost: 0,
                broken: false,
                conceded: false,
            });
        }
        let first = first_player.min(1);
        Ok(BattleState {
            turn: TurnState {
                game_turn: 0,
                player_turn: 0,
                active: first,
                first_player: first,
                phase: Phase::Deployment,
            },
            pieces,
            sides,
            ledger: super::victory::Ledger::default(),
            command: Default::default(),
            charges: super::charge::ChargeState::default(),
            engineering: Default::default(),
            weather: Default::default(),
            scouts: Default::default(),
            comms: Default::default(),
            constructions: Default::default(),
            allegiance: Default::default(),
        })
    }

    pub fn piece(&self, id: PieceId) -> Option<&PieceState> {
        self.pieces.get(&id)
    }
}

// --- placement: DATA-10..DATA-12 ---------------------------------------------------------------

/// DATA-10..DATA-12: pieces the scenario places where no piece can stand, judged on the bases as
/// the engine lays them out (`geometry::footprint_of`) and the engine's own terrain answers
/// (`terrain::mover_of`, `TerrainMap`, `feature_going` / `defense_going`), so that a battle never
/// starts in a position its first move would be refused from.
///
/// * DATA-10 — a piece whose bases lie partly off the table (or whose position is not a
///   number). MOVE-02's table edge holds from the start.
/// * DATA-11 — a unit whose bases overlap an enemy unit's: no move may end so (CHG-01), and a
///   battle cannot start in a melee nobody charged into. BAS-02: command units take no table
///   space for calculation purposes, so an HQ on any piece is not refused. Friendly units on
///   each other are not refused here either: MOVE-06 forbids a move to end so, and the engine
///   lets them move apart; the test builders (and the large test battle) stand them so on
///   purpose.
/// * DATA-12 — a piece on terrain or a field defence impassable to it (TERR-02/06/07/12/13,
///   TERR-14 for command units; a road through it is the way through, as in movement).
/// * SEQ-01 — a piece with a base outside its side's deployment zone (when the side has one;
///   [`zone_in`]). Reported here only: `setup` does not refuse a start for it.
///
/// Bases that only touch do not overlap (they are shrunk by `movement::SHRINK_CM`, as movement
/// judges them). Shapes [`geometry_violations`] refuses are left out of the terrain asked (they
/// are reported there), and nothing is judged on an unusable table. Pieces of a side whose list
/// or troop type is missing are reported by `validate_scenario` (DATA-01, DATA-02), not here.
pub fn placement_violations(scenario: &Scenario, lists: &[ArmyList]) -> Vec<Violation> {
    let geometry = geometry_violations(scenario);
    if geometry.iter().any(|v| v.subject == Subject::Scenario) {
        return Vec::new(); // DATA-04: no table to place on
    }
    let mut usable;
    let scenario = if geometry.is_empty() {
        scenario
    } else {
        let bad: BTreeSet<Subject> = geometry.iter().map(|v| v.subject).collect();
        usable = scenario.clone();
        usable
            .terrain
            .retain(|f| !bad.contains(&Subject::Feature(f.id)));
        for (si, side) in usable.sides.iter_mut().enumerate() {
            side.field_defenses
                .retain(|d| !bad.contains(&Subject::Defense(si, d.id)));
        }
        &usable
    };
    let mut trimmed;
    let scenario = {
        // Units whose row is missing cannot be laid out; DATA-02 reports them.
        let missing = |si: usize, u: &crate::model::Unit| {
            scenario
                .sides
                .get(si)
                .and_then(|s| lists.iter().find(|l| l.id == s.army_list))
                .is_none_or(|l| l.troop_type(&u.troop_type).is_none())
        };
        if scenario
            .sides
            .iter()
            .enumerate()
            .any(|(si, s)| s.units.iter().any(|u| missing(si, u)))
        {
            trimmed = scenario.clone();
            for (si, side) in trimmed.sides.iter_mut().enumerate() {
                let keep: Vec<bool> = side.units.iter().map(|u| !missing(si, u)).collect();
                let mut k = keep.iter();
                side.units.retain(|_| k.next().copied().unwrap_or(false));
            }
            &trimmed
        } else {
            scenario
        }
    };
    if scenario.sides.len() != 2
        || scenario
            .sides
            .iter()
            .any(|s| !lists.iter().any(|l| l.id == s.army_list))
    {
        return Vec::new(); // GEN-01, DATA-01
    }
    match BattleState::lay_out(scenario, lists, 0) {
        Ok(state) => {
            let ctx = Ctx::new(scenario, lists, &state);
            let mut out = placement_in(&ctx);
            // A piece off the table (DATA-10) is not told again that it is off its zone.
            let off: BTreeSet<Subject> = out
                .iter()
                .filter(|v| v.rule == "DATA-10")
                .map(|v| v.subject)
                .collect();
            out.extend(
                zone_in(&ctx)
                    .into_iter()
                    .filter(|v| !off.contains(&v.subject)),
            );
            out
        }
        Err(_) => Vec::new(),
    }
}

/// SEQ-01 (play starts once both Commands are deployed; the scenario says where each
/// deploys): a unit or HQ with a base outside its side's deployment zone, when the side has
/// one. Judged on the bases as the engine lays them out, each shrunk by a hair (a base on the
/// zone's edge is inside). Pieces with no position are not placed yet and are not judged.
/// Reported by [`placement_violations`] (so by `scenario validate`, exit 1, and the table
/// editor) but not a reason for `setup` to refuse a start: the table is playable, the scenario
/// is not as its designer drew it.
pub(crate) fn zone_in(ctx: &Ctx) -> Vec<Violation> {
    let shrink = super::movement::SHRINK_CM;
    let mut out = Vec::new();
    for piece in ctx.state.pieces.values() {
        let Some(pose) = piece.pose else {
            continue;
        };
        let Some(side) = ctx.scenario.sides.get(piece.id.side()) else {
            continue;
        };
        let zone = &side.deployment_zone;
        if zone.len() < 3 {
            continue;
        }
        let Some(fp) = super::geometry::footprint_of(ctx, piece) else {
            continue;
        };
        let outside = fp.stands.iter().find_map(|s| {
            rect_corners(
                s.centre,
                (s.width - 2.0 * shrink).max(shrink),
                (s.depth - 2.0 * shrink).max(shrink),
                heading(s.facing_deg),
                right_of(s.facing_deg),
            )
            .into_iter()
            .find(|c| !crate::geom::ring_contains(zone, *c))
        });
        if let Some(c) = outside {
            out.push(Violation {
                rule: "SEQ-01",
                subject: subject_of(piece.id),
                message: format!(
                    "{} at {} has a base outside {}'s deployment zone (a corner at {}): move \
                     it into the zone, or redraw the zone",
                    describe(ctx, piece),
                    at_cm(pose.at),
                    side.name,
                    at_cm(c)
                ),
            });
        }
    }
    out
}

/// One placed piece as the placement checks see it.
struct Placed<'a> {
    piece: &'a PieceState,
    /// Each base shrunk by a hair, as a polygon, with its box.
    bases: Vec<(geo::Polygon<f64>, Rect)>,
    corners: Vec<Point>,
    rect: Rect,
}

fn describe(ctx: &Ctx, piece: &PieceState) -> String {
    let side = ctx
        .scenario
        .sides
        .get(piece.id.side())
        .map_or("?", |s| s.name.as_str());
    match piece.id {
        PieceId::Unit { unit, .. } => format!("unit '{}' (id {unit}, {side})", piece.name),
        PieceId::Hq { hq, .. } => format!("HQ '{}' (id {hq}, {side})", piece.name),
    }
}

fn subject_of(id: PieceId) -> Subject {
    match id {
        PieceId::Unit { side, unit } => Subject::Unit(side, unit),
        PieceId::Hq { side, hq } => Subject::Hq(side, hq),
    }
}

fn at_cm(p: Point) -> String {
    format!("({:.1}, {:.1}) cm", p.x, p.y)
}

/// [`placement_violations`] on a laid-out state whose scenario passed the geometry checks.
pub(crate) fn placement_in(ctx: &Ctx) -> Vec<Violation> {
    use super::terrain::{mover_of, Going, TerrainMap};
    use geo::Intersects;
    let shrink = super::movement::SHRINK_CM;
    let t = ctx.scenario.table;
    let (w, d) = (t.width_cm, t.depth_cm);
    let mut out = Vec::new();
    let mut placed: Vec<Placed> = Vec::new();
    for piece in ctx.state.pieces.values() {
        let Some(pose) = piece.pose else {
            continue;
        };
        let finite = pose.at.x.is_finite() && pose.at.y.is_finite() && pose.facing_deg.is_finite();
        let far = pose.at.x.abs() > 1e6 || pose.at.y.abs() > 1e6;
        if !finite || far {
            out.push(Violation {
                rule: "DATA-10",
                subject: subject_of(piece.id),
                message: format!(
                    "{} is placed at x {}, y {} facing {}°, not on the {w} × {d} cm table: give \
                     it a position on the table in cm",
                    describe(ctx, piece),
                    pose.at.x,
                    pose.at.y,
                    pose.facing_deg
                ),
            });
            continue;
        }
        let Some(fp) = super::geometry::footprint_of(ctx, piece) else {
            continue;
        };
        let mut bases = Vec::with_capacity(fp.stands.len());
        let mut corners = Vec::with_capacity(fp.stands.len() * 4);
        for s in &fp.stands {
            let c = rect_corners(
                s.centre,
                (s.width - 2.0 * shrink).max(shrink),
                (s.depth - 2.0 * shrink).max(shrink),
                heading(s.facing_deg),
                right_of(s.facing_deg),
            );
            corners.extend(c);
            bases.push((ring_polygon(&c), rect_of(c)));
        }
        let rect = rect_of(corners.iter().copied());
        if let Some(off) = corners
            .iter()
            .find(|p| p.x < 0.0 || p.y < 0.0 || p.x > w || p.y > d)
        {
            out.push(Violation {
                rule: "DATA-10",
                subject: subject_of(piece.id),
                message: format!(
                    "{} at {} stands partly off the {w} × {d} cm table (a base reaches {}): \
                     move it onto the table",
                    describe(ctx, piece),
                    at_cm(pose.at),
                    at_cm(*off)
                ),
            });
        }
        let map = TerrainMap::around(ctx, mover_of(ctx, piece), Some(rect));
        let mut seen = BTreeSet::new();
        for (_, patch) in map.near(&rect) {
            let Going::Impassable { rule } = patch.going else {
                continue;
            };
            let on = bases.iter().any(|(poly, r)| {
                crate::geom::segment::rects_overlap(r, &patch.rect) && patch.shape.meets(poly)
            });
            // One message per feature, however many pieces a road cut it into.
            if on && seen.insert(patch.name.clone()) {
                out.push(Violation {
                    rule: "DATA-12",
                    subject: subject_of(piece.id),
                    message: format!(
                        "{} at {} stands on {}, which is impassable to it ({rule}): move it off",
                        describe(ctx, piece),
                        at_cm(pose.at),
                        patch.name
                    ),
                });
            }
        }
        placed.push(Placed {
            piece,
            bases,
            corners,
            rect,
        });
    }
    // DATA-11: overlapping bases, the pairs found by a sweep along x over the pieces' boxes.
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by(|&a, &b| {
        let ra = placed.get(a).map_or(0.0, |p| p.rect.min.x);
        let rb = placed.get(b).map_or(0.0, |p| p.rect.min.x);
        ra.total_cmp(&rb)
    });
    let mut pairs: Vec<(PieceId, PieceId, Point)> = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let Some(a) = placed.get(i) else { continue };
        for &j in order.iter().skip(k + 1) {
            let Some(b) = placed.get(j) else { continue };
            if b.rect.min.x > a.rect.max.x {
                break;
            }
            if !crate::geom::segment::rects_overlap(&a.rect, &b.rect) {
                continue;
            }
            let (ia, ib) = (a.piece.id, b.piece.id);
            // BAS-02: command units take no table space; friends are MOVE-06's business.
            if ia.side() == ib.side() || ia.is_command() || ib.is_command() {
                continue;
            }
            let meet = a.bases.iter().any(|(pa, ra)| {
                b.bases.iter().any(|(pb, rb)| {
                    crate::geom::segment::rects_overlap(ra, rb) && pa.intersects(pb)
                })
            });
            if meet {
                let (first, second) = if ia < ib { (ia, ib) } else { (ib, ia) };
                let at = a.corners.first().copied().unwrap_or_default();
                pairs.push((first, second, at));
            }
        }
    }
    pairs.sort_by_key(|p| (p.0, p.1));
    for (a, b, _) in pairs {
        let (Some(pa), Some(pb)) = (ctx.state.pieces.get(&a), ctx.state.pieces.get(&b)) else {
            continue;
        };
        let (Some(posa), Some(posb)) = (pa.pose, pb.pose) else {
            continue;
        };
        out.push(Violation {
            rule: "DATA-11",
            subject: subject_of(a),
            message: format!(
                "{} at {} overlaps {} at {}: bases may touch but not overlap; move one of them",
                describe(ctx, pa),
                at_cm(posa.at),
                describe(ctx, pb),
                at_cm(posb.at)
            ),
        });
    }
    out
}
