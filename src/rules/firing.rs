//! Firing (catalogue §2.9 FIRE-01..FIRE-33, with INIT-04, CMD-16, CMD-21, CMD-23, CMD-24,
//! MOVE-17, MOVE-20 and the artillery of §2.10): the Fire action's check ([`check_fire`]) and
//! resolution ([`resolve_fire`]).
//!
//! `check_fire` reads the table: phase and side, who may fire (suppression, limbers, command
//! units), line of sight (`visibility`), firing over units (FIRE-07), range by weapon and scale
//! (FIRE-02, GEN-07, the list's range notes), the fire cone and the stands that fire (FIRE-04,
//! FIRE-05), the initiative target (INIT-04, ART-09) and the ammunition (ART-01). Every refusal
//! names its rule and changes nothing.
//!
//! `resolve_fire` works out each attack's inputs — dice situation, cover (FIRE-15), score,
//! save, KO threshold — and hands them to the casualty pipeline ([`super::casualty`]); round
//! shot then carries on through the corridor (ART-02), shell bursts in its zone after any
//! deviation (ART-03, ART-08), and a unit told to fall back is moved by the movement rules'
//! forced move (FIRE-24, FIRE-26, MOVE-07). Resolution works on a scratch copy of the state,
//! applying each event as it goes with [`super::apply::apply`], so later attacks of the same
//! action see earlier results; the events are what `Battle::perform` then records and applies.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * FIRE-25: a suppression placed by fire under a Command-phase order is marked with it
//!   (`command::suppressed_by_current_order`); every other attack is an order of its own.
//! * A combined attack is a flank attack for the save (FIRE-19) when any firer's shot is.
//! * Distances for half range are those at declaration, before a forced square forms (MOVE-17).
//! * "Infantry firing at a square" (+1 per unit) covers foot small arms and machine weapons
//!   (which fire like small arms, ART-01); guns, howitzers and mortars get +1 per stand.
//! * Shell is resolved unit by unit: a Fire action with shell has one firer (ART-03).
//! * Initiative fire does not count command units as the nearest enemy (CMD-24: they are no
//!   target).
//! * The elevation exception of FIRE-07 lets artillery fire over any unit standing lower than
//!   the gun (the ruling makes every unit a blocker for artillery "unless the elevation or
//!   high-angle exception applies").
//!
//! # Not yet
//!
//! Opportunity fire (FIRE-30..FIRE-33) and the orders and initiative checks are in
//! [`super::command`] (fire by the inactive side goes through [`check_fire_as`]), which also
//! lets a command unit share the fate of the unit it touches (CMD-22); canister (ART-04) is fired
//! by the charge rules (`charge`) as a charged gun's counter-initiative. A regimental gun fires
//! shell as its list's howitzer (ART-06, `gunnery::regimental_fire`). Skirmisher screens
//! (SKIR-03) are applied through `skirmish`; works engineers made (ENG-03..ENG-06) through
//! `engineering::defence_lines` and `engineering::in_sap`; a regimental gun's Hits through
//! `gunnery` (ART-06); grand batteries are checked by `gunnery::check_grand_battery` (ART-10).
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).
//!
//! [`casualty`]: super::casualty

use super::apply::apply;
use super::artillery::{self, Ammunition, Candidate, WeaponClass};
use super::battle::{check_may_act, formation_change_allowed, may_form_square, Ctx};
use super::casualty::{
    cover_label, fire_dice, ko_threshold, score_to_hit, Attack, AttackDice, DiceGroup,
    DiceSituation, MoraleRule, SaveSituation, SquareBonus, TargetProfile, ToHit,
};
use super::dice::Dice;
use super::error::{ActionError, RuleError};
use super::event::{Event, KnockOutCause, Modifier};
use super::geometry::{aspect, footprint_of, measure_scale, CONTACT_TOLERANCE_CM};
use super::movement::{forced_move, ForcedKind, ForcedOutcome};
use super::state::{BattleState, Formation, Phase, PieceId, PieceState};
use super::terrain::Shape;
use super::visibility::{check_dug_in, sight_index};
use crate::geom::footprint::bearing_deg;
use crate::geom::segment::{
    footprint_polyline_distance, inside_intervals, rect_gap, rects_overlap, segment_meets_polygon,
    segment_meets_polyline, Segment,
};
use crate::geom::{
    edge_distance, in_contact, ring_contains, Aspect, Footprint, FrontEdge, Point, Rect,
};
use crate::model::{
    Arm, Attack as AttackValue, Cover, DefenseKind, Geometry, OptionalRule, RowRole, RuleEffect,
    TerrainKind, TroopType,
};
use geo::{Intersects, LineString, Polygon};
use std::collections::BTreeMap;

/// INIT-01, INIT-04: initiative acts on the nearest visible enemy within 20 cm.
pub const INITIATIVE_CM: f64 = 20.0;
/// MOVE-17: enemy cavalry this close forces a square.
pub const FORCED_SQUARE_CM: f64 = 30.0;
/// A reach beyond any table, to close a fire cone into a polygon (FIRE-04 has no range of its
/// own; range is checked separately).
const CONE_REACH_CM: f64 = 10_000.0;

pub(crate) fn err(rule: &'static str, message: impl Into<String>) -> ActionError {
    RuleError::new(rule, message).into()
}

pub(crate) fn view<'b>(ctx: &Ctx<'b>, state: &'b BattleState) -> Ctx<'b> {
    ctx.with_state(state)
}

pub(crate) fn record(state: &mut BattleState, events: &mut Vec<Event>, e: Event) {
    apply(state, &e);
    events.push(e);
}

pub(crate) fn record_all(state: &mut BattleState, events: &mut Vec<Event>, es: Vec<Event>) {
    for e in es {
        record(state, events, e);
    }
}

// ---------------------------------------------------------------------------------------------
// Facts about pieces.

/// FIRE-28 (d): disordered until the end of the initiative phase of player turn `until`.
pub fn is_disordered(state: &BattleState, p: &PieceState) -> bool {
    let t = state.turn;
    p.disordered_until.is_some_and(|until| {
        t.player_turn < until || (t.player_turn == until && t.phase <= Phase::Initiative)
    })
}

/// COL-02, FIRE-29: mounted cavalry (a cavalry row that is not a dismounted mode).
pub fn is_mounted_cavalry(ctx: &Ctx, p: &PieceState) -> bool {
    ctx.row(p)
        .is_some_and(|r| r.arm == Arm::Cavalry && r.role != RowRole::DismountedMode)
}

/// FIRE-29 ruling: mounted cavalry that are disordered are also exhausted.
pub fn is_exhausted(ctx: &Ctx, p: &PieceState) -> bool {
    is_disordered(ctx.state, p) && is_mounted_cavalry(ctx, p)
}

/// MOVE-20 ruling: a limbered gun uses the list's Limbered Artillery row for Hits and Save.
pub fn stat_row<'a>(ctx: &Ctx<'a>, p: &PieceState) -> Option<&'a TroopType> {
    let row = ctx.row(p)?;
    if p.limbered && row.arm == Arm::Artillery {
        if let Some(limber) = ctx
            .list(p.id.side())
            .and_then(|l| l.troop_types.iter().find(|t| t.role == RowRole::Limber))
        {
            return Some(limber);
        }
    }
    Some(row)
}

/// GEN-12, FIRE-20, FIRE-28, FIRE-29: the piece's KO threshold now.
pub fn ko_threshold_of(ctx: &Ctx, p: &PieceState) -> u32 {
    let disordered = is_disordered(ctx.state, p);
    if let Some((level, quality)) = p.command {
        let hits = ctx
            .list(p.id.side())
            .and_then(|l| l.command_type(level, quality))
            .map_or(1, |c| u32::from(c.hits));
        return ko_threshold(1, hits, false, disordered, false);
    }
    let hits = stat_row(ctx, p).map_or(1, |r| u32::from(r.hits));
    ko_threshold(
        u32::from(p.stands),
        hits,
        p.grade == crate::model::Grade::Elite,
        disordered,
        is_exhausted(ctx, p),
    ) + super::gunnery::regimental_gun_hits(ctx, p) // ART-06: an attached gun's own Hits
        + super::endphase::engineer_stand_hits(ctx, p).unwrap_or(0) // ENG-01: the engineer stand's
}

/// FIRE-17, FIRE-18: the piece's own save (None: no save).
pub fn save_of(ctx: &Ctx, p: &PieceState) -> Option<u8> {
    if let Some((level, quality)) = p.command {
        return ctx
            .list(p.id.side())
            .and_then(|l| l.command_type(level, quality))
            .and_then(|c| c.save)
            .map(u8::from);
    }
    stat_row(ctx, p).and_then(|r| r.save).map(u8::from)
}

/// FIRE-26: dug-in troops (VIS-16 lawful) and unlimbered guns do not move when falling back.
pub fn stays_put(ctx: &Ctx, p: &PieceState) -> bool {
    let dug_in = p.dug_in && check_dug_in(ctx, p).is_ok();
    let gun = ctx.row(p).is_some_and(|r| r.arm == Arm::Artillery) && !p.limbered;
    dug_in || gun
}

/// GEN-07: the range factor of a side's list ranges (×2 company, ×1 battalion, ×0.5 brigade;
/// never for lists that declare their own scale, such as the Colonial list).
pub fn range_factor(ctx: &Ctx, side: usize) -> f64 {
    let scales = ctx.list(side).is_none_or(|l| l.ranges_scale);
    if scales {
        ctx.scenario.scale.range_factor()
    } else {
        1.0
    }
}

/// FIRE-02, GEN-07, §5 range notes: the weapon range in table cm — the Attack range, or the
/// list's override (Gatling 10 cm, mounted cavalry 1–2 cm, howitzers 20 cm), times the range
/// factor and the measure scale. `None` for a piece with no ranged attack.
pub fn weapon_range_cm(ctx: &Ctx, p: &PieceState) -> Option<f64> {
    let row = ctx.row(p)?;
    let Some(AttackValue::Ranged { range_cm, .. }) = row.attack else {
        return None;
    };
    let list = ctx.list(p.id.side())?;
    let mounted = row.arm == Arm::Cavalry && row.role != RowRole::DismountedMode;
    let mut range = range_cm;
    for e in list.row_effects(row) {
        match e {
            RuleEffect::GatlingJam { range_cm } => range = *range_cm,
            RuleEffect::MountedRange { cm } if mounted => range = *cm,
            // The weapon class is worked out only for a row with a howitzer effect.
            RuleEffect::Howitzer { range_cm, .. }
                if WeaponClass::of(list, row) == WeaponClass::Howitzer =>
            {
                range = *range_cm
            }
            _ => {}
        }
    }
    Some(f64::from(range) * range_factor(ctx, p.id.side()) * measure_scale(ctx))
}

fn cone_contains(edge: &FrontEdge, target: &Footprint) -> bool {
    let cone = edge.cone_polygon(CONE_REACH_CM);
    target.stands.iter().any(|s| s.polygon().intersects(&cone))
}

/// FIRE-04, FIRE-05, MOVE-15: how many stands fire at a target — 0 when no front's cone holds
/// any part of it. Line, extended line, disordered and artillery: all; march column: the lead
/// stand; attack column: the two front stands; square: the stands of each face whose cone holds
/// the target; a line with refused flank stands: its unrefused stands through the line's cone,
/// each refused stand through its own (MOVE-30).
pub fn eligible_stands(p: &PieceState, fp: &Footprint, target: &Footprint) -> u32 {
    let n = u32::from(p.stands);
    if p.formation == Some(Formation::Square) {
        let mut total = 0;
        for edge in fp.front_edges() {
            if cone_contains(edge, target) {
                let on_face = fp
                    .stands
                    .iter()
                    .filter(|s| {
                        crate::geom::footprint::normalize_deg(s.facing_deg - edge.facing_deg).abs()
                            < 1.0
                    })
                    .count();
                total += u32::try_from(on_face).unwrap_or(0);
            }
        }
        return total.min(n);
    }
    if fp.has_refused_stands() {
        return super::flank::eligible_stands(fp, target, cone_contains).min(n);
    }
    if !fp.front_edges().iter().any(|e| cone_contains(e, target)) {
        return 0;
    }
    match p.formation {
        Some(Formation::MarchColumn) => n.min(1),
        Some(Formation::AttackColumn) => n.min(2),
        _ => n,
    }
}

/// The cover a target has against fire from a point (FIRE-15), and the facts round shot and
/// mortars ask of it (ART-02 (f), ART-07).
#[derive(Debug, Clone, PartialEq)]
pub struct CoverFinding {
    pub cover: Cover,
    /// What gives the cover, for the dice log.
    pub why: String,
    /// Inside high area terrain (woods, built-up areas): round shot does not penetrate.
    pub in_high_area: bool,
    /// In contact behind a linear obstacle or a work the line of fire crosses.
    pub behind_obstacle: bool,
    /// In contact behind linear terrain (a wall, fence, hedge) the line crosses (ART-07).
    pub behind_wall: bool,
}

fn polyline(points: &[Point]) -> LineString<f64> {
    LineString::from(
        points
            .iter()
            .map(|p| geo::Coord { x: p.x, y: p.y })
            .collect::<Vec<_>>(),
    )
}

/// FIRE-15: the target's cover against fire from `from` (the firer's centre): inside woods
/// (soft) or a built-up area (hard) — judged by the footprint's centre, as sight does; in
/// contact behind a wall, fence or hedge the line of fire crosses (soft); in a trench or
/// dug-out it occupies (soft); in contact behind works the line crosses (breast works soft, log
/// and fortified works hard, fortification full). The best cover counts.
pub fn target_cover(ctx: &Ctx, from: Point, target: &PieceState, tfp: &Footprint) -> CoverFinding {
    let centre = tfp.centroid();
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
    let lof = Segment::new(from, centre);
    let mut f = CoverFinding {
        cover: Cover::Open,
        why: "in the open".into(),
        in_high_area: false,
        behind_obstacle: false,
        behind_wall: false,
    };
    let better = |f: &mut CoverFinding, c: Cover, why: String| {
        if c > f.cover {
            f.cover = c;
            f.why = why;
        }
    };
    // Whether the target's bases may come within `d` cm of a line: never when their boxes are
    // farther apart (bases are never nearer than their boxes, and both figures are rounded far
    // less than the slack), so most lines are set aside before the bases are measured.
    let target_box = std::cell::OnceCell::new();
    let may_touch = |points: &[Point], d: f64| {
        let tr = target_box.get_or_init(|| tfp.bounding_rect());
        rect_gap(tr, &crate::geom::footprint::rect_of(points.iter().copied())) <= d + 1e-9
    };
    for t in &ctx.scenario.terrain {
        match (&t.kind, &t.geometry) {
            (TerrainKind::HighArea, Geometry::Polygon(ring)) if ring_contains(ring, centre) => {
                f.in_high_area = true;
                better(&mut f, Cover::Soft, format!("inside {}", t.name));
            }
            (TerrainKind::BuiltUp, Geometry::Polygon(ring)) if ring_contains(ring, centre) => {
                f.in_high_area = true;
                better(&mut f, Cover::Hard, format!("inside {}", t.name));
            }
            (TerrainKind::Linear, g) => {
                let (points, width) = match g {
                    Geometry::Polyline { points, width_cm } => (points.as_slice(), *width_cm),
                    Geometry::Polygon(points) => (points.as_slice(), 0.0),
                };
                let line = polyline(points);
                let touching = may_touch(points, tol + width / 2.0)
                    && footprint_polyline_distance(tfp, &line) <= tol + width / 2.0;
                if touching && segment_meets_polyline(&line, &lof) {
                    f.behind_obstacle = true;
                    f.behind_wall = true;
                    better(&mut f, Cover::Soft, format!("behind {}", t.name));
                }
            }
            _ => {}
        }
    }
    if let PieceId::Unit { side, unit } = target.id {
        if target.dug_in {
            better(&mut f, Cover::Soft, "dug in".into());
        }
        // engineering (ENG-06): a sap is a strip of Trench, Soft cover.
        if super::engineering::in_sap(ctx.state, centre) {
            better(&mut f, Cover::Soft, "in a sap trench".into());
        }
        for (si, s) in ctx.scenario.sides.iter().enumerate() {
            for d in &s.field_defenses {
                let spec = d.kind.spec();
                match d.kind {
                    DefenseKind::Trench | DefenseKind::DugOut => {
                        if si == side && d.occupant == Some(unit) {
                            better(&mut f, spec.cover, format!("in a {}", spec.label));
                        }
                    }
                    DefenseKind::BreastWorks
                    | DefenseKind::LogWorks
                    | DefenseKind::FortifiedWorks
                    | DefenseKind::Fortification => {
                        // engineering (DEF-04, ENG-05): only the sections still standing; a
                        // Fortification protects from all directions.
                        let all_round = d.kind == DefenseKind::Fortification;
                        let inside = d.at.len() >= 3
                            && ring_contains(&d.at, centre)
                            && !super::engineering::defence_lines(ctx.state, si, d).is_empty();
                        let covered = super::engineering::defence_lines(ctx.state, si, d)
                            .iter()
                            .any(|run| {
                                let line = polyline(run);
                                may_touch(run, tol)
                                    && footprint_polyline_distance(tfp, &line) <= tol
                                    && (all_round || segment_meets_polyline(&line, &lof))
                            });
                        if inside || covered {
                            f.behind_obstacle = true;
                            better(&mut f, spec.cover, format!("behind {}", spec.label));
                        }
                    }
                    DefenseKind::Wire | DefenseKind::Ditch | DefenseKind::Stakes => {}
                }
            }
        }
    }
    f
}

/// VIS-06 ruling (visibility): the hill level under a point; mountains count as one level.
fn level_at(ctx: &Ctx, p: Point) -> u8 {
    ctx.scenario
        .terrain
        .iter()
        .filter_map(|f| {
            let level = match f.kind {
                TerrainKind::Hill { level } => level,
                TerrainKind::Mountain => 1,
                _ => return None,
            };
            match &f.geometry {
                Geometry::Polygon(ring) if ring_contains(ring, p) => Some(level),
                _ => None,
            }
        })
        .max()
        .unwrap_or(0)
}

struct Blocker {
    name: String,
    rect: Rect,
    polys: Vec<Polygon<f64>>,
}

/// FIRE-07: the unit the fire would pass over, if every segment from the firer's front edges
/// (ends and middle) to the target's sample points crosses another unit's bases. Artillery may
/// fire over units standing lower than the gun; high-angle fire is not asked.
fn fire_over(
    ctx: &Ctx,
    firer: &PieceState,
    ffp: &Footprint,
    target: &PieceState,
    tfp: &Footprint,
    artillery: bool,
) -> Option<String> {
    let my_level = level_at(ctx, ffp.centroid());
    let starts: Vec<Point> = ffp
        .front_edges()
        .iter()
        .flat_map(|e| [e.left, e.midpoint(), e.right])
        .collect();
    let ends = tfp.sample_points();
    let segments: Vec<(Segment, Rect)> = starts
        .iter()
        .flat_map(|s| ends.iter().map(move |e| Segment::new(*s, *e).trimmed(1e-3)))
        .map(|seg| {
            let r = seg.bounding_rect();
            (seg, r)
        })
        .collect();
    // Only a unit whose box meets some segment's box can be passed over; the box of every
    // segment lies within `reach`, so the others are left out before their bases are laid
    // out (the battle's sight index has every box, `footprint_of`'s, of this state).
    let reach = segments.iter().fold(
        Rect {
            min: Point::new(f64::INFINITY, f64::INFINITY),
            max: Point::new(f64::NEG_INFINITY, f64::NEG_INFINITY),
        },
        |a, (_, r)| Rect {
            min: Point::new(a.min.x.min(r.min.x), a.min.y.min(r.min.y)),
            max: Point::new(a.max.x.max(r.max.x), a.max.y.max(r.max.y)),
        },
    );
    let index = ctx.sight.map(|_| sight_index(ctx));
    let blockers: Vec<Blocker> = ctx
        .state
        .pieces
        .values()
        .filter(|p| p.id != firer.id && p.id != target.id && p.on_table())
        .filter(|p| {
            index
                .as_ref()
                .and_then(|i| i.base_hull(p.id))
                .is_none_or(|(_, r)| rects_overlap(&r, &reach))
        })
        .filter_map(|p| {
            let fp = footprint_of(ctx, p)?;
            if artillery && level_at(ctx, fp.centroid()) < my_level {
                return None;
            }
            Some(Blocker {
                name: p.name.clone(),
                rect: fp.bounding_rect(),
                polys: fp.stands.iter().map(|s| s.polygon()).collect(),
            })
        })
        .collect();
    if blockers.is_empty() {
        return None;
    }
    let mut first: Option<String> = None;
    for (seg, r) in &segments {
        let hit = blockers.iter().find(|b| {
            rects_overlap(&b.rect, r) && b.polys.iter().any(|p| segment_meets_polygon(p, seg))
        });
        match hit {
            None => return None,
            Some(b) => {
                if first.is_none() {
                    first = Some(b.name.clone());
                }
            }
        }
    }
    first
}

/// CMD-21 ruling: each friendly command unit in base contact with a firer it commands (the
/// firer's own HQ or one above it in the chain) adds its Attack value once to the attack, to
/// the first such firer. Returns the dice per firer.
pub fn presence_dice(ctx: &Ctx, firers: &[PieceId]) -> BTreeMap<PieceId, u32> {
    let mut out: BTreeMap<PieceId, u32> = BTreeMap::new();
    let ms = measure_scale(ctx);
    let hqs: Vec<&PieceState> = ctx
        .state
        .pieces
        .values()
        .filter(|p| p.id.is_command() && p.on_table())
        .collect();
    for hq in hqs {
        let PieceId::Hq { side, hq: hq_id } = hq.id else {
            continue;
        };
        let Some((level, quality)) = hq.command else {
            continue;
        };
        let dice = ctx
            .list(side)
            .and_then(|l| l.command_type(level, quality))
            .map_or(0, |c| u32::from(c.presence_dice));
        if dice == 0 {
            continue;
        }
        let Some(hfp) = footprint_of(ctx, hq) else {
            continue;
        };
        let Some(s) = ctx.scenario.sides.get(side) else {
            continue;
        };
        for f in firers {
            let PieceId::Unit { side: fs, unit } = *f else {
                continue;
            };
            if fs != side {
                continue;
            }
            // The firer's chain of command, from its own HQ upwards.
            let mut chain = Vec::new();
            let mut cur = s.unit(unit).map(|u| u.hq);
            while let Some(h) = cur {
                if chain.contains(&h) || chain.len() > s.hqs.len() {
                    break;
                }
                chain.push(h);
                cur = s.hq(h).and_then(|x| x.parent);
            }
            if !super::command::presence_counts(ctx, *f, hq.id, chain.contains(&hq_id)) {
                continue;
            }
            let touching = ctx
                .state
                .piece(*f)
                .and_then(|p| footprint_of(ctx, p))
                .is_some_and(|ffp| in_contact(&hfp, &ffp, CONTACT_TOLERANCE_CM * ms));
            if touching {
                *out.entry(*f).or_insert(0) += dice;
                break;
            }
        }
    }
    out
}

/// MOVE-17: the target must form square — infantry that may legally form square, with enemy
/// mounted cavalry within 30 cm and no friendly mounted cavalry within 30 cm.
pub fn forced_square_due(ctx: &Ctx, target: &PieceState) -> bool {
    let Some(from) = target.formation else {
        return false;
    };
    if from == Formation::Square
        || !formation_change_allowed(from, Formation::Square)
        || may_form_square(ctx, target).is_err()
    {
        return false;
    }
    let Some(tfp) = footprint_of(ctx, target) else {
        return false;
    };
    let reach = FORCED_SQUARE_CM * measure_scale(ctx);
    let cavalry_near = |friendly: bool| {
        ctx.state.pieces.values().any(|p| {
            (p.id.side() == target.id.side()) == friendly
                && p.on_table()
                && is_mounted_cavalry(ctx, p)
                && footprint_of(ctx, p).is_some_and(|fp| edge_distance(&fp, &tfp) <= reach + 1e-9)
        })
    };
    cavalry_near(false) && !cavalry_near(true)
}

// ---------------------------------------------------------------------------------------------
// The check.

/// One firing unit, as checked.
#[derive(Debug, Clone, PartialEq)]
pub struct FirerPlan {
    pub piece: PieceId,
    pub class: WeaponClass,
    /// Guns: the load fired (ART-01); `None` for small arms and machine weapons.
    pub ammunition: Option<Ammunition>,
    /// Weapon range in table cm (FIRE-02).
    pub range_cm: f64,
    /// Edge-to-edge distance to the target at declaration.
    pub distance_cm: f64,
    /// Stands that fire (FIRE-05).
    pub stands: u32,
    pub dice_per_stand: u32,
    /// The firer sees the target (false only for high-angle fire spotted by a friend, ART-08).
    pub seen: bool,
    /// FIRE-13: the list has the first-fire bonus and the unit has not fired yet.
    pub first_fire: bool,
}

/// A legal Fire action.
#[derive(Debug, Clone, PartialEq)]
pub struct FirePlan {
    pub firers: Vec<FirerPlan>,
    pub target: PieceId,
    /// MOVE-17: the target forms square before the dice.
    pub forced_square: bool,
    /// ART-03: shell (one firer).
    pub shell: bool,
}

/// FIRE-04, FIRE-05, FIRE-08, FIRE-13, ART-01, ART-06: what one firer brings to an attack on a
/// target footprint `distance` cm away within its `range`: the weapon class and load (the
/// default load when none is asked), the stands that bear (FIRE-05; a regimental gun's one
/// stand) and the dice per stand. `None` when the unit has no ranged attack or no stand bears.
/// [`check_fire_as`] builds every firer's plan with it after its legality checks, and the solo
/// opponent ranks the targets it sees with it (`ai::policy::fire_candidates`), so the two can
/// never disagree on the numbers.
#[allow(clippy::too_many_arguments)]
pub fn firer_plan(
    ctx: &Ctx,
    fp: &PieceState,
    ffp: &Footprint,
    tfp: &Footprint,
    ammunition: Option<Ammunition>,
    range: f64,
    distance: f64,
    seen: bool,
) -> Option<FirerPlan> {
    let (row, list) = (ctx.row(fp)?, ctx.list(fp.id.side())?);
    let Some(AttackValue::Ranged { dice, .. }) = row.attack else {
        return None;
    };
    let regimental = super::gunnery::regimental_fire(ctx, fp, ammunition);
    let class = regimental.map_or(WeaponClass::of(list, row), |r| r.class);
    let ammo = if class.is_ordnance() {
        ammunition.or(class.default_ammunition())
    } else {
        None
    };
    let mut stands = eligible_stands(fp, ffp, tfp);
    if regimental.is_some() {
        stands = stands.min(1); // ART-06: the one gun stand
    }
    if stands == 0 {
        return None;
    }
    Some(FirerPlan {
        piece: fp.id,
        class,
        ammunition: ammo,
        range_cm: range,
        distance_cm: distance,
        stands,
        dice_per_stand: regimental.map_or(u32::from(dice), |r| r.dice_per_stand),
        seen,
        first_fire: list.first_fire_bonus && !fp.has_fired,
    })
}

/// FIRE-01..FIRE-07, FIRE-09, INIT-03/04, CMD-16, CMD-23/24, MOVE-17, MOVE-20, ART-01..ART-09:
/// is this Fire action legal, and with what? The error names the rule that forbids it.
pub fn check_fire(
    ctx: &Ctx,
    firers: &[PieceId],
    target: PieceId,
    ammunition: Option<Ammunition>,
) -> Result<FirePlan, ActionError> {
    check_fire_as(ctx, firers, target, ammunition, FireOccasion::Action)
}

/// Why a unit fires: a Fire action of the active side, the inactive side's opportunity fire
/// (FIRE-30, allowed by `command`), or its response to a charge (INIT-12, CHG-09), which the
/// charge rules have already allowed (`charge`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FireOccasion {
    Action,
    /// FIRE-30..FIRE-32: the inactive side's fire at a unit that moved or fired under the
    /// current order; no initiative target rule (INIT-04). The caller checks the occasion.
    Opportunity,
    /// INIT-12 rulings: counter-initiative fire by the inactive side at a charger; no
    /// initiative target rule (INIT-04), no opportunity rules (INIT-12 d), no forced square
    /// for the charger (FIRE-33: charge reactions are their own system).
    ChargeResponse,
}

/// [`check_fire`] for a given occasion.
pub fn check_fire_as(
    ctx: &Ctx,
    firers: &[PieceId],
    target: PieceId,
    ammunition: Option<Ammunition>,
    occasion: FireOccasion,
) -> Result<FirePlan, ActionError> {
    let t = ctx.state.turn;
    let response = occasion == FireOccasion::ChargeResponse;
    if t.phase == Phase::Deployment {
        return Err(err(
            "FIRE-01",
            "no firing before the battle starts (deployment)",
        ));
    }
    if firers.is_empty() {
        return Err(err("FIRE-01", "name at least one firing unit"));
    }
    for (k, f) in firers.iter().enumerate() {
        if firers.iter().skip(k + 1).any(|g| g == f) {
            return Err(err("FIRE-09", format!("{f} is named twice in one attack")));
        }
    }
    let tp = ctx.piece(target)?;
    if tp.id.is_command() {
        return Err(err(
            "CMD-24",
            format!(
                "{} is a command unit and may not be chosen as a target",
                tp.name
            ),
        ));
    }
    if tp.knocked_out {
        return Err(err("GEN-12", format!("{} has been knocked out", tp.name)));
    }
    let Some(tfp) = footprint_of(ctx, tp) else {
        return Err(err("SEQ-01", format!("{} is not on the table", tp.name)));
    };
    if ammunition == Some(Ammunition::Canister) {
        return Err(err(
            "ART-04",
            "canister is fired only by a charged gun, as its counter-initiative (INIT-10), not by a Fire action",
        ));
    }
    if ammunition == Some(Ammunition::AirBurst) && !air_burst_in_use(ctx) {
        return Err(err(
            "OPT-AIRBURST-01",
            "air burst is an optional rule this scenario does not use",
        ));
    }
    let ms = measure_scale(ctx);
    let sight_index = sight_index(ctx);
    let mut plans = Vec::new();
    for f in firers {
        let fp = ctx.piece(*f)?;
        if fp.id.is_command() {
            return Err(err(
                "CMD-23",
                format!("{} is a command unit; command units never fire", fp.name),
            ));
        }
        if fp.id.side() == tp.id.side() {
            return Err(err(
                "FIRE-01",
                format!(
                    "{} may fire only at an enemy unit, not at {}",
                    fp.name, tp.name
                ),
            ));
        }
        match occasion {
            FireOccasion::ChargeResponse => {
                if fp.knocked_out || fp.pose.is_none() || fp.id.side() == t.active {
                    return Err(err(
                        "INIT-12",
                        format!("{} cannot respond to a charge", fp.name),
                    ));
                }
            }
            FireOccasion::Opportunity => {
                if !fp.on_table() {
                    return Err(err("GEN-12", format!("{} is not in play", fp.name)));
                }
                if fp.id.side() == t.active {
                    return Err(err(
                        "FIRE-30",
                        format!("{} belongs to the active side", fp.name),
                    ));
                }
            }
            FireOccasion::Action => {
                if t.phase == Phase::Command && fp.id.side() != t.active {
                    return Err(err(
                        "FIRE-30",
                        format!(
                            "{} belongs to the inactive side: it fires in this phase only as opportunity fire",
                            fp.name
                        ),
                    ));
                }
                check_may_act(ctx, fp)?;
            }
        }
        if fp.suppressed_at.is_some() {
            return Err(err(
                "FIRE-23",
                format!(
                    "{} is suppressed and can do nothing in its own turn",
                    fp.name
                ),
            ));
        }
        // OPT-PRONE-02: a prone unit in close order does not fire; OPT-SABER-01: nor does a
        // saber charger before its charge is fought.
        super::prone::check_may_fire(ctx, fp)?;
        super::charge::check_no_saber_fire(ctx, fp.id)?;
        let (Some(row), Some(list)) = (ctx.row(fp), ctx.list(fp.id.side())) else {
            return Err(err(
                "COL-04",
                format!("{} has no troop row to fire with", fp.name),
            ));
        };
        let Some(AttackValue::Ranged { .. }) = row.attack else {
            return Err(err(
                "COL-04",
                format!("{} has no ranged attack ({})", fp.name, row.name),
            ));
        };
        if fp.limbered {
            return Err(err(
                "MOVE-20",
                format!("{} is limbered and cannot fire; unlimber it first", fp.name),
            ));
        }
        // ART-06: shell asked of an infantry unit is its regimental gun's, as a howitzer.
        let regimental = super::gunnery::regimental_fire(ctx, fp, ammunition);
        let class = regimental.map_or(WeaponClass::of(list, row), |r| r.class);
        let ammo = if class.is_ordnance() {
            ammunition.or(class.default_ammunition())
        } else {
            None
        };
        if let Some(a) = ammo {
            if !class.allows(a) {
                return Err(err(
                    "ART-01",
                    format!("{} fires shell only; it cannot fire {}", fp.name, a.label()),
                ));
            }
        }
        let Some(ffp) = footprint_of(ctx, fp) else {
            return Err(err("SEQ-01", format!("{} is not on the table", fp.name)));
        };
        // VIS-01 / ART-08 (b): line of sight, or a friendly spotter for high-angle fire.
        let sight = sight_index.sight(*f, target);
        let seen = sight.visible;
        // Colonial 21: light modern artillery may fire indirectly, as high-angle shell.
        let indirect = !seen && ctx.has_effect(fp, |e| matches!(e, RuleEffect::IndirectFire));
        if indirect && !ammo.is_some_and(Ammunition::is_shell) {
            return Err(err(
                "ART-08",
                format!(
                    "{} cannot see {}: indirect fire is shell, fired high-angle",
                    fp.name, tp.name
                ),
            ));
        }
        if !seen {
            let spotted = (class.high_angle() || indirect)
                && ctx.state.pieces.values().any(|q| {
                    q.id != *f
                        && q.id.side() == fp.id.side()
                        && q.on_table()
                        && sight_index.sight(q.id, target).visible
                });
            if !spotted {
                return Err(RuleError::new(sight.rule, sight.detail).into());
            }
        }
        if !class.high_angle() && !indirect {
            if let Some(over) = fire_over(ctx, fp, &ffp, tp, &tfp, row.arm == Arm::Artillery) {
                return Err(err(
                    "FIRE-07",
                    format!("{} would fire over {}", fp.name, over),
                ));
            }
        }
        let Some(range) = regimental
            .map(|r| r.range_cm)
            .or_else(|| weapon_range_cm(ctx, fp))
        else {
            return Err(err("COL-04", format!("{} has no ranged attack", fp.name)));
        };
        let distance = edge_distance(&ffp, &tfp);
        if distance > range + 1e-9 {
            return Err(err(
                "FIRE-02",
                format!(
                    "{} is {:.1} cm from {}, beyond its range of {:.1} cm",
                    tp.name, distance, fp.name, range
                ),
            ));
        }
        let Some(plan) = firer_plan(ctx, fp, &ffp, &tfp, ammunition, range, distance, seen) else {
            return Err(err(
                "FIRE-04",
                format!("{} is outside the fire cone of {}", tp.name, fp.name),
            ));
        };
        plans.push(plan);
    }
    if ammunition.is_some() && !plans.iter().any(|p| p.class.is_ordnance()) {
        return Err(err(
            "ART-01",
            "only guns, howitzers and mortars have ammunition types",
        ));
    }
    let shell = plans
        .iter()
        .any(|p| p.ammunition.is_some_and(Ammunition::is_shell));
    if shell && plans.len() > 1 {
        return Err(err(
            "ART-03",
            "shell bursts in its own zone: order shell fire as a Fire action of its own",
        ));
    }
    if t.phase == Phase::Initiative && occasion == FireOccasion::Action {
        let [one] = plans.as_slice() else {
            return Err(err(
                "INIT-04",
                "on initiative each unit fires on its own, once, at its nearest visible enemy",
            ));
        };
        let candidates: Vec<Candidate> = sight_index
            .visible_enemies(one.piece)
            .into_iter()
            .filter(|(id, _)| !id.is_command())
            .map(|(id, d)| Candidate {
                piece: id,
                distance_cm: d,
                artillery: ctx
                    .state
                    .piece(id)
                    .and_then(|p| ctx.row(p))
                    .is_some_and(|r| r.arm == Arm::Artillery),
            })
            .collect();
        let allowed =
            artillery::initiative_targets(&candidates, INITIATIVE_CM * ms, one.class.is_ordnance());
        if !allowed.contains(&target) {
            return Err(err(
                "INIT-04",
                format!(
                    "on initiative a unit fires only at its nearest visible enemy within 20 cm \
                     (artillery: or its nearest enemy artillery, ART-09); {} is not it",
                    tp.name
                ),
            ));
        }
    }
    Ok(FirePlan {
        firers: plans,
        target,
        forced_square: !response && forced_square_due(ctx, tp),
        shell,
    })
}

// ---------------------------------------------------------------------------------------------
// The resolution.

/// One firing unit's dice against one target, before grouping.
struct Contribution {
    firer: PieceId,
    name: String,
    dice: AttackDice,
    to_hit: ToHit,
    first_fire: bool,
    jams: bool,
}

/// FIRE-09 ruling: dice needing the same score (and the same first-fire bonus) roll together;
/// a Gatling always rolls alone (ACW rule 12).
fn groups_of(cs: Vec<Contribution>, purpose: &str, rule: &str) -> Vec<DiceGroup> {
    let multi = cs.len() > 1;
    let mut out: Vec<DiceGroup> = Vec::new();
    for c in cs {
        if c.dice.dice == 0 {
            continue;
        }
        let mut mods: Vec<Modifier> = c.dice.modifiers;
        mods.extend(c.to_hit.modifiers);
        if multi {
            for m in &mut mods {
                m.label = format!("{}: {}", c.name, m.label);
            }
        }
        let key = (c.to_hit.needed, c.first_fire);
        if !c.jams {
            if let Some(g) = out
                .iter_mut()
                .find(|g| !g.jams_on_double && (g.needed, g.first_fire) == key)
            {
                g.firers.push(c.firer);
                g.dice += c.dice.dice;
                g.modifiers.extend(mods);
                continue;
            }
        }
        out.push(DiceGroup {
            firers: vec![c.firer],
            dice: c.dice.dice,
            modifiers: mods,
            needed: key.0,
            first_fire: key.1,
            jams_on_double: c.jams,
            purpose: purpose.to_string(),
            rule: rule.to_string(),
        });
    }
    out
}

/// FIRE-08, FIRE-11, FIRE-12: the dice situation of one firer against one victim.
fn situation(
    ctx: &Ctx,
    f: &FirerPlan,
    fp: &PieceState,
    victim: &PieceState,
    distance_cm: f64,
    flank: bool,
    presence: u32,
) -> DiceSituation {
    let square = if victim.formation != Some(Formation::Square) {
        SquareBonus::None
    } else if f.class.is_ordnance() {
        SquareBonus::PerStand
    } else if matches!(f.class, WeaponClass::Machine { .. })
        || ctx
            .row(fp)
            .is_some_and(|r| matches!(r.arm, Arm::Infantry | Arm::Engineers))
    {
        SquareBonus::PerUnit
    } else {
        SquareBonus::None
    };
    let shell = f.ammunition.is_some_and(Ammunition::is_shell);
    let shrapnel = shell
        && ctx
            .list(fp.id.side())
            .is_some_and(|l| artillery::shrapnel(ctx.scenario.year, l.period));
    DiceSituation {
        stands: f.stands,
        dice_per_stand: f.dice_per_stand,
        target_extended_line: victim.formation == Some(Formation::ExtendedLine),
        within_half_range: f.class.half_range_bonus() && distance_cm <= f.range_cm / 2.0 + 1e-9,
        flank_or_rear: flank,
        square,
        firer_extended_line: fp.formation == Some(Formation::ExtendedLine),
        presence_dice: presence,
        firer_disordered: is_disordered(ctx.state, fp),
        skirmish_screen: false,
        shrapnel,
        air_burst: f.ammunition == Some(Ammunition::AirBurst),
        extra_attack_die: ctx.has_effect(fp, |e| matches!(e, RuleEffect::ExtraAttackDie)),
        extra: Vec::new(),
    }
}

/// Is the OPTIONAL air burst (OPT-AIRBURST-01) in use in this battle?
pub fn air_burst_in_use(ctx: &Ctx) -> bool {
    ctx.scenario
        .optional_rules
        .contains(&OptionalRule::AirBurst)
}

/// FIRE-16: the firer's list gives its artillery the cover shift.
pub fn shifts_cover(ctx: &Ctx, fp: &PieceState) -> bool {
    ctx.has_effect(fp, |e| matches!(e, RuleEffect::ArtilleryCoverShift))
}

/// OPT-MORALE-01 (d): with morale grades in use, a unit without a declared grade is Regular.
/// The attacks use each target's own grade (`morale::morale_rule`).
pub fn morale(ctx: &Ctx) -> Option<MoraleRule> {
    ctx.scenario
        .optional_rules
        .contains(&OptionalRule::MoraleGrades)
        .then_some(MoraleRule::REGULAR)
}

/// FIRE-10 (with its overrides for march column and square): a flank or rear shot.
fn flank_of(ctx: &Ctx, attacker: &PieceState, victim: &PieceState) -> bool {
    aspect(ctx, attacker, victim).is_some_and(|a| a != Aspect::Front)
}

/// GEN-16, FIRE-17..FIRE-20, FIRE-26: the target's side of one attack, read from the state.
pub fn target_profile(
    ctx: &Ctx,
    p: &PieceState,
    flank: bool,
    replacement: Option<(u8, &'static str)>,
) -> TargetProfile {
    TargetProfile {
        piece: p.id,
        save: SaveSituation {
            save: save_of(ctx, p),
            replacement,
            flank_or_rear: flank,
            formation: p.formation,
            ranged: true,
        },
        hits_before: p.hits,
        ko_threshold: ko_threshold_of(ctx, p),
        suppressed: p.suppressed_at.is_some(),
        suppressed_by_this_order: super::command::suppressed_by_current_order(ctx.state, p),
        grade: p.grade,
        stays_put: stays_put(ctx, p),
    }
}

/// FIRE-24, FIRE-26, MOVE-07: the fall-back move itself — straight away from `away` (the
/// nearest firer's centre) through the unit's centre, ending facing back towards it. Into
/// friends: stops on contact and the friend is suppressed; into enemies, impassable ground or
/// off the table: knocked out (the movement rules' forced move decides which).
pub fn fall_back_events(
    ctx: &Ctx,
    piece: PieceId,
    distance_cm: u32,
    away: Point,
) -> Result<Vec<Event>, ActionError> {
    let p = ctx.piece(piece)?;
    let (Some(fp), Some(from)) = (footprint_of(ctx, p), p.pose) else {
        return Ok(Vec::new());
    };
    let centre = fp.centroid();
    let bearing = if away.distance(centre).0 > 1e-9 {
        bearing_deg(away, centre)
    } else {
        (from.facing_deg + 180.0).rem_euclid(360.0)
    };
    let facing = (bearing + 180.0).rem_euclid(360.0);
    let d = f64::from(distance_cm) * measure_scale(ctx);
    let outcome = forced_move(ctx, piece, ForcedKind::FallBack, bearing, d, facing)?;
    Ok(match outcome {
        ForcedOutcome::Moved {
            to,
            distance_cm,
            overruns,
        } => {
            let mut v = vec![Event::FellBack {
                piece,
                from,
                to,
                distance_cm,
            }];
            // CMD-25, MOVE-08: enemy command units fallen back through are overrun.
            v.extend(super::command::overrun_events(ctx, &overruns)?);
            v
        }
        ForcedOutcome::StoppedByFriend {
            to,
            friend,
            distance_cm,
            overruns,
        } => {
            let mut v = vec![Event::FellBack {
                piece,
                from,
                to,
                distance_cm,
            }];
            v.extend(super::command::overrun_events(ctx, &overruns)?);
            let already = ctx
                .state
                .piece(friend)
                .is_none_or(|q| q.suppressed_at.is_some());
            if !already {
                v.push(Event::Suppressed {
                    piece: friend,
                    player_turn: ctx.state.turn.player_turn,
                });
            }
            v
        }
        ForcedOutcome::KnockedOut { rule, reason } => vec![Event::UnitKnockedOut {
            piece,
            cause: KnockOutCause::FallBackBlocked {
                rule: rule.to_string(),
                reason,
            },
        }],
    })
}

/// GEN-16 with FIRE-24: runs one attack through the pipeline, records it, and carries out any
/// fall-back.
fn run_attack(
    ctx: &Ctx,
    state: &mut BattleState,
    events: &mut Vec<Event>,
    attack: &Attack,
    away: Point,
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    run_attack_screened(ctx, state, events, attack, away, None, dice)
}

/// [`run_attack`] with the hits going first to a brigade's skirmisher screen (SKIR-03).
#[allow(clippy::too_many_arguments)]
fn run_attack_screened(
    ctx: &Ctx,
    state: &mut BattleState,
    events: &mut Vec<Event>,
    attack: &Attack,
    away: Point,
    screen: Option<crate::model::HqId>,
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    let out = {
        let c = view(ctx, state);
        let side = attack.target.piece.side();
        // OPT-PRONE-02 (after saves), then SKIR-03's screen takes its share of what is left.
        let absorb = |h: u32| {
            let (mut ev, h) = super::prone::reduce(&c, attack, h);
            if let (Some(hq), true) = (screen, h > 0) {
                let (screened, left) = super::skirmish::absorb(&c, side, hq, h);
                ev.extend(screened);
                (ev, left)
            } else {
                (ev, h)
            }
        };
        super::casualty::resolve_attack_with(attack, &absorb, dice)?
    };
    record_all(state, events, out.events);
    if let Some(d) = out.fall_back_cm {
        let c = view(ctx, state);
        let fb = fall_back_events(&c, attack.target.piece, d, away)?;
        record_all(state, events, fb);
    }
    Ok(())
}

/// ART-02 (a)–(f): how far the shot may carry beyond the first stand before a linear obstacle,
/// a work or high area terrain stops it.
fn penetration_reach(ctx: &Ctx, corridor: &artillery::Corridor, depth: f64) -> f64 {
    let seg = Segment::new(
        corridor.at(corridor.far_cm),
        corridor.at(corridor.far_cm + depth),
    );
    let mut reach = depth;
    let mut lines: Vec<LineString<f64>> = Vec::new();
    for t in &ctx.scenario.terrain {
        match (&t.kind, &t.geometry) {
            (TerrainKind::HighArea | TerrainKind::BuiltUp, Geometry::Polygon(ring)) => {
                let poly = crate::geom::footprint::ring_polygon(ring);
                if let Some((from, _)) = inside_intervals(&poly, &seg).first() {
                    reach = reach.min(*from);
                }
            }
            (TerrainKind::Linear, g) => lines.push(polyline(g.points())),
            _ => {}
        }
    }
    for (si, s) in ctx.scenario.sides.iter().enumerate() {
        for d in &s.field_defenses {
            if d.kind.spec().cover != Cover::Open
                && !matches!(d.kind, DefenseKind::Trench | DefenseKind::DugOut)
            {
                // engineering (ENG-05): demolished sections stop no shot.
                for run in super::engineering::defence_lines(ctx.state, si, d) {
                    lines.push(polyline(&run));
                }
            }
        }
    }
    for line in &lines {
        if !segment_meets_polyline(line, &seg) {
            continue;
        }
        // The first crossing, by bisection on the part of the segment that still meets it.
        let (mut lo, mut hi) = (0.0_f64, reach.min(seg.length()));
        if segment_meets_polyline(line, &Segment::new(seg.a, seg.at(hi))) {
            for _ in 0..40 {
                let mid = (lo + hi) / 2.0;
                if segment_meets_polyline(line, &Segment::new(seg.a, seg.at(mid))) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            reach = reach.min(hi);
        }
    }
    reach.max(0.0)
}

/// The direct attack of a checked Fire plan (FIRE-08..FIRE-16, FIRE-19, SKIR-03, ENG-01,
/// ART-02), worked out on the table as it stands when the dice are about to be rolled: the
/// dice groups with every modifier, the target's save and KO threshold, and what round shot
/// may carry on into. `resolve_direct` rolls it; the engine API previews it
/// ([`preview_attack`]) with the very same numbers.
pub(crate) struct DirectAttack {
    pub(crate) attack: Attack,
    away: Point,
    screened: Option<crate::model::HqId>,
    penetrated: BTreeMap<PieceId, (u32, PieceId)>,
    shooters: BTreeMap<PieceId, (Point, bool, bool)>,
    /// OPT-CONSTR-02 (b): the second attack on the construction the target shelters in.
    shelter: Option<super::construction::Strike>,
}

/// [`DirectAttack`] of `plan` on the table of `c`, the action's scratch state (`ctx` is the
/// table before the action: command presence and the measure scale are read there). `None`: the
/// target is not on the table.
fn direct_attack(ctx: &Ctx, c: &Ctx, plan: &FirePlan) -> Result<Option<DirectAttack>, ActionError> {
    let ms = measure_scale(ctx);
    let firer_ids: Vec<PieceId> = plan.firers.iter().map(|f| f.piece).collect();
    let presence = presence_dice(ctx, &firer_ids);
    let mut contributions = Vec::new();
    let mut flank_any = false;
    let mut penetrated: BTreeMap<PieceId, (u32, PieceId)> = BTreeMap::new();
    let mut shooters: BTreeMap<PieceId, (Point, bool, bool)> = BTreeMap::new();
    // SKIR-03: the brigade screen any firer's line crosses.
    let mut screened: Option<crate::model::HqId> = None;
    let shelter;
    let (attack, away) = {
        let tp = c.piece(plan.target)?;
        let Some(tfp) = footprint_of(c, tp) else {
            return Ok(None);
        };
        let mut nearest: Option<(f64, Point)> = None;
        for f in &plan.firers {
            let fp = c.piece(f.piece)?;
            let Some(ffp) = footprint_of(c, fp) else {
                continue;
            };
            let centre = ffp.centroid();
            if nearest.is_none_or(|(d, _)| f.distance_cm < d) {
                nearest = Some((f.distance_cm, centre));
            }
            let cover = target_cover(c, centre, tp, &tfp);
            let flank = flank_of(c, fp, tp);
            flank_any |= flank;
            let shift = shifts_cover(c, fp);
            let mut s = situation(
                c,
                f,
                fp,
                tp,
                f.distance_cm,
                flank,
                presence.get(&f.piece).copied().unwrap_or(0),
            );
            // ENG-01 / FIRE-08: an attached engineer stand adds its own dice.
            if let Some(m) = super::engineering::engineer_stand_dice(c, fp, f.distance_cm) {
                s.extra.push(m);
            }
            // SKIR-03 (a): −1 die for each firing unit whose line crosses the screen.
            if let Some(hq) = super::skirmish::screens_fire(c, tp, centre) {
                s.skirmish_screen = true;
                screened = Some(hq);
            }
            shooters.insert(f.piece, (centre, shift, f.first_fire));
            if f.ammunition == Some(Ammunition::RoundShot)
                && !(cover.in_high_area || cover.behind_obstacle)
            {
                let list_row = c.list(fp.id.side()).zip(c.row(fp));
                let depth = list_row.map_or(artillery::DEFAULT_PENETRATION_CM, |(l, r)| {
                    artillery::penetration_depth_cm(l, r)
                }) * ms;
                let others: Vec<(PieceId, Footprint)> = c
                    .state
                    .pieces
                    .values()
                    .filter(|q| q.on_table() && !firer_ids.contains(&q.id))
                    .filter_map(|q| footprint_of(c, q).map(|fp| (q.id, fp)))
                    .collect();
                let refs: Vec<(PieceId, &Footprint)> =
                    others.iter().map(|(i, f)| (*i, f)).collect();
                let mut extra = 0;
                for gun in &ffp.stands {
                    let Some(cor) = artillery::corridor(gun.centre, gun.width, &tfp) else {
                        continue;
                    };
                    let reach = penetration_reach(c, &cor, depth);
                    let pen = artillery::reached(&cor, plan.target, &tfp, &refs, reach);
                    extra += pen.target_stands;
                    for (id, n) in pen.others {
                        penetrated.entry(id).or_insert((0, f.piece)).0 += n;
                    }
                }
                if extra > 0 {
                    s.extra.push(Modifier {
                        rule: "ART-02".into(),
                        label: "round shot through more stands of the target".into(),
                        value: i32::try_from(extra).unwrap_or(i32::MAX),
                    });
                }
            }
            contributions.push(Contribution {
                firer: f.piece,
                name: fp.name.clone(),
                dice: fire_dice(&s),
                to_hit: score_to_hit(cover.cover, shift, false, false),
                first_fire: f.first_fire,
                jams: matches!(
                    f.class,
                    WeaponClass::Machine {
                        jams_on_double: true
                    }
                ),
            });
        }
        let away = nearest.map_or(tfp.centroid(), |(_, p)| p);
        // OPTIONAL constructions (OPT-CONSTR-02): the shelter's save, and the dice that also
        // strike the shelter.
        let loads: Vec<_> = contributions
            .iter()
            .map(|k| {
                let load = plan
                    .firers
                    .iter()
                    .find(|f| f.piece == k.firer)
                    .and_then(|f| f.ammunition);
                (k.firer, k.name.clone(), load, k.dice.dice)
            })
            .collect();
        shelter = super::construction::strike_of(c, tp, away, &loads);
        let attack = Attack {
            target: target_profile(
                c,
                tp,
                flank_any,
                super::construction::occupant_save(c, tp, away),
            ),
            groups: groups_of(contributions, "to hit", "FIRE-14"),
            away_from: plan
                .firers
                .iter()
                .min_by(|a, b| a.distance_cm.total_cmp(&b.distance_cm))
                .map(|f| f.piece),
            player_turn: c.state.turn.player_turn,
            morale: super::morale::morale_rule(c, tp),
        };
        (attack, away)
    };
    Ok(Some(DirectAttack {
        attack,
        away,
        screened,
        penetrated,
        shooters,
        shelter,
    }))
}

/// Direct fire: small arms, machine weapons and round shot, combined into one attack
/// (FIRE-08..FIRE-22, GEN-16), then round shot's penetration (ART-02).
fn resolve_direct(
    ctx: &Ctx,
    plan: &FirePlan,
    state: &mut BattleState,
    events: &mut Vec<Event>,
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    let direct = direct_attack(ctx, &view(ctx, state), plan)?;
    let Some(DirectAttack {
        attack,
        away,
        screened,
        penetrated,
        shooters,
        shelter,
    }) = direct
    else {
        return Ok(());
    };
    run_attack_screened(ctx, state, events, &attack, away, screened, dice)?;
    if let Some(s) = shelter {
        let ev = super::construction::roll_strike(&view(ctx, state), &s, dice)?;
        record_all(state, events, ev);
    }
    // ART-02 (c)–(d): every other unit reached gets its own attack, 1 die per stand.
    for (victim, (n, firer)) in penetrated {
        let Some(&(origin, shift, first_fire)) = shooters.get(&firer) else {
            continue;
        };
        let attack = {
            let c = view(ctx, state);
            let (Some(vp), Some(fp)) = (c.state.piece(victim), c.state.piece(firer)) else {
                continue;
            };
            if !vp.on_table() {
                continue;
            }
            let Some(vfp) = footprint_of(&c, vp) else {
                continue;
            };
            let cover = target_cover(&c, origin, vp, &vfp);
            let to_hit = score_to_hit(cover.cover, shift, vp.id.is_command(), false);
            let mut mods = vec![Modifier {
                rule: "ART-02".into(),
                label: "round shot: 1 die per stand reached".into(),
                value: i32::try_from(n).unwrap_or(i32::MAX),
            }];
            mods.extend(to_hit.modifiers);
            Attack {
                target: target_profile(&c, vp, flank_of(&c, fp, vp), None),
                groups: vec![DiceGroup {
                    firers: vec![firer],
                    dice: n,
                    modifiers: mods,
                    needed: to_hit.needed,
                    first_fire: first_fire && !vp.id.is_command(),
                    jams_on_double: false,
                    purpose: "round shot penetration".into(),
                    rule: "ART-02".into(),
                }],
                away_from: Some(firer),
                player_turn: c.state.turn.player_turn,
                morale: super::morale::morale_rule(&c, vp),
            }
        };
        run_attack(ctx, state, events, &attack, origin, dice)?;
    }
    Ok(())
}

/// ART-03 (with ART-05, ART-07, ART-08, OPT-AIRBURST-01): a shell aimed at the target's nearest
/// base point, deviating if fired at a high angle, attacking every unit in its zone.
fn resolve_shell(
    ctx: &Ctx,
    plan: &FirePlan,
    state: &mut BattleState,
    events: &mut Vec<Event>,
    dice: &mut dyn Dice,
) -> Result<(), ActionError> {
    let [f] = plan.firers.as_slice() else {
        return Ok(());
    };
    let ms = measure_scale(ctx);
    let air = f.ammunition == Some(Ammunition::AirBurst);
    let firer = ctx.piece(f.piece)?;
    let tfp = {
        let c = view(ctx, state);
        c.state.piece(plan.target).and_then(|t| footprint_of(&c, t))
    };
    let (Some(ffp), Some(tfp)) = (footprint_of(ctx, firer), tfp) else {
        return Ok(());
    };
    let origin = ffp.centroid();
    let Some((_, aim)) = artillery::nearest_base_point(origin, &tfp) else {
        return Ok(());
    };
    let line_bearing = bearing_deg(origin, aim);
    // Unseen fire is high-angle fire (ART-08 (b); Colonial 21 indirect fire).
    let (landing, deviated) = if f.class.high_angle() || !f.seen {
        let distance = crate::geom::segment::point_footprint_distance(aim, &ffp) / ms;
        let n = artillery::deviation_dice(distance, f.seen);
        let dev = artillery::roll_deviation(f.piece, n, f.seen, dice)?;
        let at = artillery::landing_point(aim, line_bearing, &dev, ms);
        record_all(state, events, dev.events.clone());
        (at, !dev.on_target)
    } else {
        (aim, false)
    };
    let table = ctx.scenario.table;
    let off = landing.x < 0.0
        || landing.y < 0.0
        || landing.x > table.width_cm
        || landing.y > table.depth_cm;
    let wet = ctx.scenario.terrain.iter().any(|t| {
        matches!(
            t.kind,
            TerrainKind::PartiallyWet | TerrainKind::ShallowWet | TerrainKind::DeepWet
        ) && !t.frozen
            && Shape::of(&t.geometry).covers_point(landing)
    });
    record(
        state,
        events,
        Event::ShellLanded {
            firer: f.piece,
            aim,
            at: landing,
            deviated,
            lost: off || wet,
        },
    );
    if off || wet {
        return Ok(());
    }
    let radius = if air {
        artillery::AIR_BURST_ZONE_CM
    } else {
        artillery::SHELL_ZONE_CM
    } * ms;
    let zone = {
        let c = view(ctx, state);
        let all: Vec<(PieceId, Footprint)> = c
            .state
            .pieces
            .values()
            .filter(|q| q.on_table())
            .filter_map(|q| footprint_of(&c, q).map(|fp| (q.id, fp)))
            .collect();
        let refs: Vec<(PieceId, &Footprint)> = all.iter().map(|(i, f)| (*i, f)).collect();
        artillery::shell_zone(landing, radius, &refs)
    };
    let presence = presence_dice(ctx, &[f.piece])
        .get(&f.piece)
        .copied()
        .unwrap_or(0);
    // ART-06: a regimental gun shifts cover as its list's howitzer does.
    let shift = shifts_cover(ctx, firer)
        || super::gunnery::regimental_fire(ctx, firer, f.ammunition).is_some_and(|r| r.cover_shift);
    let wall = ctx
        .list(firer.id.side())
        .zip(ctx.row(firer))
        .and_then(|(l, r)| artillery::mortar_wall_save(l, r))
        .filter(|_| f.class == WeaponClass::Mortar);
    for victim in zone {
        let mut screened = None;
        let attack = {
            let c = view(ctx, state);
            let Some(vp) = c.state.piece(victim) else {
                continue;
            };
            let Some(vfp) = footprint_of(&c, vp).filter(|_| vp.on_table()) else {
                continue;
            };
            let cover = target_cover(&c, origin, vp, &vfp);
            let to_hit = score_to_hit(cover.cover, shift, vp.id.is_command(), air);
            if artillery::howitzer_blocked(f.class, to_hit.cover, air) {
                Err(Event::NoEffect {
                    piece: victim,
                    rule: "ART-05".into(),
                    reason: format!(
                        "a howitzer shell has no effect on a target in {}",
                        cover_label(to_hit.cover)
                    ),
                })
            } else {
                let flank = flank_of(&c, firer, vp);
                let distance = edge_distance(&ffp, &vfp);
                let mut s = situation(&c, f, firer, vp, distance, flank, presence);
                // SKIR-03: shell is ranged fire too; the screen takes its share first.
                screened = super::skirmish::screens_fire(&c, vp, origin);
                s.skirmish_screen = screened.is_some();
                let replacement = wall.filter(|_| cover.behind_wall).map(|w| (w, "ART-07"));
                // OPT-CONSTR-02: the better of the wall save and the shelter's.
                let replacement = match (
                    replacement,
                    super::construction::occupant_save(&c, vp, origin),
                ) {
                    (Some(a), Some(b)) => Some(if b.0 < a.0 { b } else { a }),
                    (a, b) => a.or(b),
                };
                Ok(Attack {
                    target: target_profile(&c, vp, flank, replacement),
                    groups: groups_of(
                        vec![Contribution {
                            firer: f.piece,
                            name: firer.name.clone(),
                            dice: fire_dice(&s),
                            to_hit,
                            first_fire: f.first_fire && !vp.id.is_command(),
                            jams: false,
                        }],
                        "shell: to hit",
                        "ART-03",
                    ),
                    away_from: Some(f.piece),
                    player_turn: c.state.turn.player_turn,
                    morale: super::morale::morale_rule(&c, vp),
                })
            }
        };
        // OPT-CONSTR-02 (b): shell at troops in a wooden construction strikes it too.
        let shelter = match &attack {
            Ok(a) if victim == plan.target => {
                let c = view(ctx, state);
                let n = a.groups.iter().map(|g| g.dice).sum();
                c.state.piece(victim).and_then(|vp| {
                    let loads = [(f.piece, firer.name.clone(), f.ammunition, n)];
                    super::construction::strike_of(&c, vp, origin, &loads)
                })
            }
            _ => None,
        };
        match attack {
            Ok(attack) => run_attack_screened(ctx, state, events, &attack, origin, screened, dice)?,
            Err(no_effect) => record(state, events, no_effect),
        }
        if let Some(s) = shelter {
            let ev = super::construction::roll_strike(&view(ctx, state), &s, dice)?;
            record_all(state, events, ev);
        }
    }
    Ok(())
}

/// FIRE-01..FIRE-29 with ART-01..ART-08: checks the Fire action, then resolves it into events
/// (the only place its dice are drawn). Nothing changes on a refusal.
pub fn resolve_fire(
    ctx: &Ctx,
    firers: &[PieceId],
    target: PieceId,
    ammunition: Option<Ammunition>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    resolve_fire_as(ctx, firers, target, ammunition, FireOccasion::Action, dice)
}

/// [`resolve_fire`] for a given occasion (INIT-12: counter-initiative fire at a charger).
pub fn resolve_fire_as(
    ctx: &Ctx,
    firers: &[PieceId],
    target: PieceId,
    ammunition: Option<Ammunition>,
    occasion: FireOccasion,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let plan = check_fire_as(ctx, firers, target, ammunition, occasion)?;
    let (mut state, mut events) = declared(ctx, &plan)?;
    if plan.shell {
        resolve_shell(ctx, &plan, &mut state, &mut events, dice)?;
    } else {
        resolve_direct(ctx, &plan, &mut state, &mut events, dice)?;
    }
    Ok(events)
}

/// MOVE-17, FIRE-01: the table once a checked Fire is declared, before any die: the target's
/// forced square and the firers marked as having fired. The scratch state and its events.
fn declared(ctx: &Ctx, plan: &FirePlan) -> Result<(BattleState, Vec<Event>), ActionError> {
    let mut state = ctx.state.clone();
    let mut events = Vec::new();
    if plan.forced_square {
        let from = ctx.piece(plan.target)?.formation;
        record(
            &mut state,
            &mut events,
            Event::FormationChanged {
                piece: plan.target,
                from,
                to: Some(Formation::Square),
            },
        );
    }
    record(
        &mut state,
        &mut events,
        Event::Fired {
            firers: plan.firers.iter().map(|f| f.piece).collect(),
            target: plan.target,
            ammunition: plan.firers.iter().find_map(|f| f.ammunition),
        },
    );
    Ok((state, events))
}

/// The attack a checked direct Fire plan would roll, worked out exactly as [`resolve_fire`]
/// works it out (after the declaration: a forced square stands), without a die: the engine
/// API's dice preview (`api`). `None` for shell, whose attacks depend on where it lands, and
/// when the target is not on the table.
pub fn preview_attack(ctx: &Ctx, plan: &FirePlan) -> Result<Option<Attack>, ActionError> {
    if plan.shell {
        return Ok(None);
    }
    let (state, _) = declared(ctx, plan)?;
    let c = view(ctx, &state);
    Ok(direct_attack(ctx, &c, plan)?.map(|d| d.attack))
}
