//! OPTIONAL constructions (catalogue §3.6 OPT-CONSTR-01..OPT-CONSTR-03, flag
//! `OptionalRule::Constructions`): buildings and bought works with their own Hits and Save,
//! the troops inside them, and the permanent damage that brings them down.
//!
//! Owns the profile table ([`profile`], OPT-CONSTR-01), which constructions stand on the table
//! ([`sites`], [`site`]) and their 5 cm segments, the segment a shot reaches first
//! ([`segment_facing`]), who is inside or in contact ([`occupants`]), the better save of
//! infantry inside (OPT-CONSTR-02, [`occupant_save`]), the attack on a construction and its
//! collapse (OPT-CONSTR-03, [`attack_construction`]) and the `FireAtConstruction` action
//! ([`resolve_fire_at_construction`]). The permanent damage lives in [`ConstructionState`]
//! (one field of `BattleState`), changed only by `apply` from `ConstructionHit` and
//! `ConstructionCollapsed`. The firing rules call in through two small hooks: the save of
//! the target and the second attack on the construction it occupies.
//!
//! # Rulings made here (beyond the catalogue's)
//!
//! * What is a construction: a built-up terrain feature drawn as a polygon, of the material
//!   its designer gave it (`TerrainFeature::construction`; none given: brick, see
//!   `Construction::DEFAULT_BUILT_UP`), and every bought Breast Works (wooden row: 3 Hits, no
//!   save), Log Works (brick row: 6, 5+), Fortified Works (stone row: 9, 4+) and
//!   Fortification (stone-fortification row: 12, 3+; FIRE-15 puts both in Full cover).
//!   Trenches, dug-outs and obstacles are not constructions.
//! * Segments: a bought work has two per 10 cm section bought (OPT-CONSTR-01 ruling), equal
//!   shares of its drawn line; a building has one per started 5 cm (× measure scale) of its
//!   outline. Hits are recorded per segment.
//! * "It collapses": a segment whose hits reach the profile's Hits brings the whole
//!   construction down (a building falls in, a work is gone whole, as a collapsed defence is
//!   for `engineering::defence_lines`). A designer who wants a town to fall street by street
//!   draws its blocks as separate built-up features.
//! * Occupants: of a building, every unit whose footprint centre is inside its outline (as
//!   cover and sight judge "inside"); of a work, the owner's units in base contact with its
//!   line (DEF-04: its cover is for the unit in contact behind it) or inside an enclosed work.
//!   Units of either side touching it otherwise are "in base contact" and are suppressed when
//!   it collapses.
//! * OPT-CONSTR-02 (a): infantry inside a building, or inside a work whose line the fire
//!   crosses (or an enclosed work), saves against ranged fire on the construction's save
//!   when that is better (the FIRE-19 replacement save); combat is not fire and uses the
//!   unit's own save.
//! * OPT-CONSTR-02 (b): the second attack has as many dice as the firers whose load can harm
//!   the construction rolled against the troops (round shot; shell only against wooden),
//!   needs 6s, and is saved on the construction's save; it strikes the segment nearest the
//!   nearest firer along its line of fire. Small arms and canister never damage one.
//! * A collapsed building stays on the table as built-up ground (rubble still blocks sight,
//!   slows and covers); it has no save and takes no more fire. A collapsed work is a
//!   knocked-out field defence (DEF-06, `DefenseLossCause::Collapsed`) with no line left.
//! * `FireAtConstruction` is a Command-phase fire action of unlimbered artillery of the active
//!   side, like fire at a bridge section (ENG-04): the aimed segment (nearest `at`, or the one
//!   facing the guns) must be within range and in a fire cone; each stand rolls its dice; each
//!   gun fires its default load (guns round shot, howitzers and mortars shell, which harms
//!   wooden constructions only). Sight is not checked, as for bridges.
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui,
//! eframe, rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::artillery::{Ammunition, WeaponClass};
use super::battle::Ctx;
use super::dice::Dice;
use super::error::{ActionError, RuleError};
use super::event::{Event, KnockOutCause, Modifier};
use super::firing::weapon_range_cm;
use super::geometry::{footprint_of, measure_scale, CONTACT_TOLERANCE_CM};
use super::state::{BattleState, Phase, PieceId, PieceState};
use super::victory::DefenseLossCause;
use crate::geom::footprint::fire_cone_contains;
use crate::geom::segment::{footprint_polyline_distance, point_footprint_distance};
use crate::geom::{ring_contains, Footprint, Point};
use crate::model::{
    Arm, Construction, DefenseId, DefenseKind, FeatureId, Geometry, OptionalRule, TerrainKind,
};
use geo::LineString;
use serde::{Deserialize, Serialize};

/// OPT-CONSTR-01: the length of one construction segment, cm at measure scale 1.
pub const SEGMENT_CM: f64 = 5.0;
/// OPT-CONSTR-03: the only score that damages a construction.
pub const CONSTRUCTION_HIT_ON: u8 = 6;

/// Which construction: a built-up terrain feature or one side's bought work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ConstructionId {
    Feature { feature: FeatureId },
    Defense { side: usize, defense: DefenseId },
}

/// One row of the OPT-CONSTR-01 table: per 5 cm segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub hits: u32,
    /// The score a save die needs (`None`: no save, "0").
    pub save: Option<u8>,
}

/// OPT-CONSTR-01: Hits and Save per 5 cm of each material's row.
pub fn profile(material: Construction) -> Profile {
    let (hits, save) = match material {
        Construction::Wooden => (3, None),
        Construction::Brick => (6, Some(5)),
        Construction::Stone => (9, Some(4)),
        Construction::StoneFortification => (12, Some(3)),
    };
    Profile { hits, save }
}

/// OPT-CONSTR-01 ruling: the row of a bought work (Breast Works are the table's "Improved
/// Breast Works"); `None` for the items that are not constructions.
pub fn defense_material(kind: DefenseKind) -> Option<Construction> {
    match kind {
        DefenseKind::BreastWorks => Some(Construction::Wooden),
        DefenseKind::LogWorks => Some(Construction::Brick),
        DefenseKind::FortifiedWorks => Some(Construction::Stone),
        DefenseKind::Fortification => Some(Construction::StoneFortification),
        DefenseKind::Trench
        | DefenseKind::Wire
        | DefenseKind::Ditch
        | DefenseKind::Stakes
        | DefenseKind::DugOut => None,
    }
}

/// OPT-CONSTR-03: may this load damage a construction of this material? Round shot any,
/// shell (and air burst) wooden only, canister none; small arms (no load) never.
pub fn can_damage(material: Construction, load: Option<Ammunition>) -> bool {
    match load {
        Some(Ammunition::RoundShot) => true,
        Some(Ammunition::Shell) => material == Construction::Wooden,
        // OPT-AIRBURST-01: a shell burst overhead has no effect on constructions.
        Some(Ammunition::AirBurst | Ammunition::Canister) | None => false,
    }
}

/// Hits recorded on one segment (permanent, OPT-CONSTR-03).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentDamage {
    pub construction: ConstructionId,
    pub segment: u32,
    pub hits: u32,
}

/// The constructions' permanent damage (one field of `BattleState`, changed only by `apply`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ConstructionState {
    #[serde(default)]
    pub damage: Vec<SegmentDamage>,
    #[serde(default)]
    pub collapsed: Vec<ConstructionId>,
}

impl ConstructionState {
    /// Hits on one segment so far.
    pub fn hits(&self, construction: ConstructionId, segment: u32) -> u32 {
        self.damage
            .iter()
            .find(|d| d.construction == construction && d.segment == segment)
            .map_or(0, |d| d.hits)
    }

    /// The most hits any one segment of the construction has taken.
    pub fn worst(&self, construction: ConstructionId) -> u32 {
        self.damage
            .iter()
            .filter(|d| d.construction == construction)
            .map(|d| d.hits)
            .max()
            .unwrap_or(0)
    }

    pub fn is_collapsed(&self, construction: ConstructionId) -> bool {
        self.collapsed.contains(&construction)
    }
}

/// `apply` for the construction events.
pub fn apply_event(state: &mut BattleState, event: &Event) {
    let s = &mut state.constructions;
    match event {
        Event::ConstructionHit {
            construction,
            segment,
            total,
            ..
        } => {
            match s
                .damage
                .iter_mut()
                .find(|d| d.construction == *construction && d.segment == *segment)
            {
                Some(d) => d.hits = *total,
                None => s.damage.push(SegmentDamage {
                    construction: *construction,
                    segment: *segment,
                    hits: *total,
                }),
            }
        }
        Event::ConstructionCollapsed { construction } if !s.collapsed.contains(construction) => {
            s.collapsed.push(*construction);
        }
        _ => {}
    }
}

/// Is the optional rule in use in this battle?
pub fn in_use(ctx: &Ctx) -> bool {
    ctx.scenario
        .optional_rules
        .contains(&OptionalRule::Constructions)
}

/// A construction standing on the table, as the rules read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    pub id: ConstructionId,
    pub name: String,
    pub material: Construction,
    /// The outline of a building (closed) or the line of a work (open).
    pub line: Vec<Point>,
    pub closed: bool,
    pub segments: u32,
}

impl Site {
    pub fn profile(&self) -> Profile {
        profile(self.material)
    }

    /// The line walked in order, the closing edge included for an outline.
    fn path(&self) -> Vec<Point> {
        let mut p = self.line.clone();
        if self.closed {
            if let Some(first) = self.line.first() {
                p.push(*first);
            }
        }
        p
    }

    fn length(&self) -> f64 {
        self.path().windows(2).map(|w| w[0].distance(w[1]).0).sum()
    }

    /// The points of segment `i` (its two ends and the corners between), in order.
    pub fn segment_points(&self, i: u32) -> Vec<Point> {
        let path = self.path();
        let total = self.length();
        let n = f64::from(self.segments.max(1));
        let (a, b) = (
            total * f64::from(i) / n,
            total * f64::from(i.saturating_add(1)) / n,
        );
        let mut out = Vec::new();
        let mut walked = 0.0;
        for w in path.windows(2) {
            let len = w[0].distance(w[1]).0;
            let at = |s: f64| {
                let t = if len > 1e-12 {
                    ((s - walked) / len).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                Point::new(
                    w[0].x + (w[1].x - w[0].x) * t,
                    w[0].y + (w[1].y - w[0].y) * t,
                )
            };
            let (lo, hi) = (walked, walked + len);
            if hi >= a - 1e-9 && lo <= b + 1e-9 {
                if out.is_empty() {
                    out.push(at(a.max(lo)));
                }
                if b < hi {
                    out.push(at(b));
                } else {
                    out.push(w[1]);
                }
            }
            walked = hi;
            if walked >= b - 1e-9 {
                break;
            }
        }
        out.dedup_by(|x, y| x.distance(*y).0 < 1e-9);
        out
    }

    /// The middle of segment `i` along the line.
    pub fn segment_middle(&self, i: u32) -> Option<Point> {
        let pts = self.segment_points(i);
        let len: f64 = pts.windows(2).map(|w| w[0].distance(w[1]).0).sum();
        let mut walked = 0.0;
        for w in pts.windows(2) {
            let l = w[0].distance(w[1]).0;
            if walked + l >= len / 2.0 {
                let t = if l > 1e-12 {
                    (len / 2.0 - walked) / l
                } else {
                    0.0
                };
                return Some(Point::new(
                    w[0].x + (w[1].x - w[0].x) * t,
                    w[0].y + (w[1].y - w[0].y) * t,
                ));
            }
            walked += l;
        }
        pts.first().copied()
    }
}

fn chain(points: &[Point]) -> LineString<f64> {
    LineString::from(
        points
            .iter()
            .map(|p| geo::Coord { x: p.x, y: p.y })
            .collect::<Vec<_>>(),
    )
}

/// The segments of a line of `length` cm: one per started 5 cm (× measure scale).
fn segments_of(length: f64, ms: f64) -> u32 {
    let n = (length / (SEGMENT_CM * ms) - 1e-9).ceil();
    if n.is_finite() && n >= 1.0 {
        // A table is a few metres: the count fits easily.
        n.min(f64::from(u32::MAX)) as u32
    } else {
        1
    }
}

/// Every construction standing now (none when the optional rule is not in use), in a fixed
/// order: built-up features by their order in the scenario, then each side's works.
pub fn sites(ctx: &Ctx) -> Vec<Site> {
    if !in_use(ctx) {
        return Vec::new();
    }
    let ms = measure_scale(ctx);
    let mut out = Vec::new();
    for t in &ctx.scenario.terrain {
        let (TerrainKind::BuiltUp, Geometry::Polygon(ring)) = (&t.kind, &t.geometry) else {
            continue;
        };
        if ring.len() < 3 {
            continue;
        }
        let id = ConstructionId::Feature { feature: t.id };
        if ctx.state.constructions.is_collapsed(id) {
            continue;
        }
        let mut s = Site {
            id,
            name: t.name.clone(),
            material: t.construction.unwrap_or(Construction::DEFAULT_BUILT_UP),
            line: ring.clone(),
            closed: true,
            segments: 1,
        };
        s.segments = segments_of(s.length(), ms);
        out.push(s);
    }
    for (si, side) in ctx.scenario.sides.iter().enumerate() {
        for d in &side.field_defenses {
            let Some(material) = defense_material(d.kind) else {
                continue;
            };
            let id = ConstructionId::Defense {
                side: si,
                defense: d.id,
            };
            if d.at.len() < 2
                || ctx.state.constructions.is_collapsed(id)
                || super::engineering::defence_lines(ctx.state, si, d).is_empty()
            {
                continue;
            }
            out.push(Site {
                id,
                name: format!("{} {}", d.kind.label(), d.id.0),
                material,
                line: d.at.clone(),
                closed: false,
                segments: d.sections.max(1).saturating_mul(2),
            });
        }
    }
    out
}

/// The construction `id`, if it stands now (and the rule is in use).
pub fn site(ctx: &Ctx, id: ConstructionId) -> Option<Site> {
    sites(ctx).into_iter().find(|s| s.id == id)
}

/// Where the segment `p`–`q` crosses `a`–`b`, as a fraction along `p`–`q`.
fn crossing(p: Point, q: Point, a: Point, b: Point) -> Option<f64> {
    let r = (q.x - p.x, q.y - p.y);
    let s = (b.x - a.x, b.y - a.y);
    let den = r.0 * s.1 - r.1 * s.0;
    if den.abs() < 1e-12 {
        return None;
    }
    let t = ((a.x - p.x) * s.1 - (a.y - p.y) * s.0) / den;
    let u = ((a.x - p.x) * r.1 - (a.y - p.y) * r.0) / den;
    ((-1e-9..=1.0 + 1e-9).contains(&t) && (-1e-9..=1.0 + 1e-9).contains(&u)).then_some(t)
}

/// OPT-CONSTR-03 ruling: the segment a shot from `from` towards `towards` reaches first — the
/// one its line crosses nearest the firer, or (the line crossing none) the one whose middle
/// is nearest the firer.
pub fn segment_facing(site: &Site, from: Point, towards: Point) -> u32 {
    let mut best: Option<(f64, u32)> = None;
    for i in 0..site.segments {
        let pts = site.segment_points(i);
        for w in pts.windows(2) {
            if let Some(t) = crossing(from, towards, w[0], w[1]) {
                if best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, i));
                }
            }
        }
    }
    if let Some((_, i)) = best {
        return i;
    }
    nearest_segment(site, from)
}

/// The segment whose middle is nearest `p`.
pub fn nearest_segment(site: &Site, p: Point) -> u32 {
    (0..site.segments)
        .filter_map(|i| site.segment_middle(i).map(|m| (m.distance(p).0, i)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(0, |(_, i)| i)
}

/// Inside the construction, in base contact with it, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Inside,
    Contact,
}

/// Where a unit stands with respect to a construction (see the occupants ruling above).
pub fn presence(ctx: &Ctx, site: &Site, p: &PieceState, fp: &Footprint) -> Option<Presence> {
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
    let centre = fp.centroid();
    let line = chain(&site.path());
    let touching = footprint_polyline_distance(fp, &line) <= tol;
    let inside = match site.id {
        ConstructionId::Feature { .. } => ring_contains(&site.line, centre),
        ConstructionId::Defense { side, .. } => {
            (site.line.len() >= 3 && ring_contains(&site.line, centre))
                || (touching && p.id.side() == side)
        }
    };
    if inside {
        Some(Presence::Inside)
    } else if touching {
        Some(Presence::Contact)
    } else {
        None
    }
}

/// The units inside a construction, and those in base contact with it (OPT-CONSTR-03).
pub fn occupants(ctx: &Ctx, site: &Site) -> (Vec<PieceId>, Vec<PieceId>) {
    let (mut inside, mut contact) = (Vec::new(), Vec::new());
    for p in ctx.state.pieces.values().filter(|p| p.on_table()) {
        let Some(fp) = footprint_of(ctx, p) else {
            continue;
        };
        match presence(ctx, site, p, &fp) {
            Some(Presence::Inside) => inside.push(p.id),
            Some(Presence::Contact) => contact.push(p.id),
            None => {}
        }
    }
    (inside, contact)
}

/// The construction a unit is inside against fire from `from` (OPT-CONSTR-02): a building it
/// stands in, or a work it mans whose line the fire crosses (an enclosed work: any fire). Of
/// several, the one with the best save.
pub fn sheltering(ctx: &Ctx, p: &PieceState, from: Point) -> Option<Site> {
    let fp = footprint_of(ctx, p)?;
    let centre = fp.centroid();
    sites(ctx)
        .into_iter()
        .filter(|s| {
            presence(ctx, s, p, &fp) == Some(Presence::Inside)
                && match s.id {
                    ConstructionId::Feature { .. } => true,
                    ConstructionId::Defense { .. } => {
                        (s.line.len() >= 3 && ring_contains(&s.line, centre))
                            || s.line
                                .windows(2)
                                .any(|w| crossing(from, centre, w[0], w[1]).is_some())
                    }
                }
        })
        .min_by_key(|s| s.profile().save.unwrap_or(7))
}

/// OPT-CONSTR-02 (a), (c): the replacement save infantry inside a construction may use
/// against fire from `from` (the save pipeline keeps the unit's own when that is better).
/// `None` for other arms, outside constructions, or when the rule is not in use.
pub fn occupant_save(ctx: &Ctx, p: &PieceState, from: Point) -> Option<(u8, &'static str)> {
    if !in_use(ctx) || ctx.row(p).is_none_or(|r| r.arm != Arm::Infantry) {
        return None;
    }
    let site = sheltering(ctx, p, from)?;
    site.profile().save.map(|s| (s, "OPT-CONSTR-02"))
}

/// OPT-CONSTR-02 (b): the second attack a Fire action makes on the construction its target
/// shelters in — the dice of the firers whose load can damage it, on the segment facing the
/// nearest firer (`from`).
#[derive(Debug, Clone, PartialEq)]
pub struct Strike {
    pub site: Site,
    pub segment: u32,
    pub dice: u32,
    pub modifiers: Vec<Modifier>,
    /// The single firer whose dice these are, if one.
    pub piece: Option<PieceId>,
}

/// The [`Strike`] of fire at `target` from `from`, given each firer's load and the dice it
/// rolls at the troops (`(firer, name, load, dice)`); `None` when no firer's load can harm the
/// construction, the target shelters in none, or the rule is not in use.
pub fn strike_of(
    ctx: &Ctx,
    target: &PieceState,
    from: Point,
    loads: &[(PieceId, String, Option<Ammunition>, u32)],
) -> Option<Strike> {
    if !in_use(ctx) {
        return None;
    }
    let site = sheltering(ctx, target, from)?;
    let harmful: Vec<&(PieceId, String, Option<Ammunition>, u32)> = loads
        .iter()
        .filter(|(_, _, load, n)| *n > 0 && can_damage(site.material, *load))
        .collect();
    let dice: u32 = harmful.iter().map(|(_, _, _, n)| *n).sum();
    if dice == 0 {
        return None;
    }
    let centre = footprint_of(ctx, target)?.centroid();
    let segment = segment_facing(&site, from, centre);
    let modifiers = harmful
        .iter()
        .map(|(_, name, _, n)| Modifier {
            rule: "OPT-CONSTR-02".into(),
            label: format!("{name}: the same dice at {}", site.name),
            value: i32::try_from(*n).unwrap_or(i32::MAX),
        })
        .collect();
    let piece = match harmful.as_slice() {
        [one] => Some(one.0),
        _ => None,
    };
    Some(Strike {
        site,
        segment,
        dice,
        modifiers,
        piece,
    })
}

/// Rolls a [`Strike`] ([`attack_construction`]) on the table as it stands after the attack on
/// the troops.
pub fn roll_strike(ctx: &Ctx, s: &Strike, dice: &mut dyn Dice) -> Result<Vec<Event>, ActionError> {
    attack_construction(
        ctx,
        &s.site,
        s.segment,
        s.dice,
        s.modifiers.clone(),
        s.piece,
        dice,
    )
}

/// OPT-CONSTR-03: an attack of `n` dice on segment `segment` of a construction — 6s hit, the
/// construction saves, the hits are recorded for good, and at its Hits it collapses: the
/// units inside are knocked out and those in base contact suppressed (and a bought work is
/// knocked out for VPs, DEF-06). `mods` explain the dice; `piece` is the single firer, if one.
#[allow(clippy::too_many_arguments)]
pub fn attack_construction(
    ctx: &Ctx,
    site: &Site,
    segment: u32,
    n: u32,
    mut mods: Vec<Modifier>,
    piece: Option<PieceId>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    let prof = site.profile();
    let mut ev = Vec::new();
    mods.push(Modifier {
        rule: "OPT-CONSTR-03".into(),
        label: format!("{}: hit only on 6", site.name),
        value: i32::from(CONSTRUCTION_HIT_ON),
    });
    let rolled = dice.roll(usize::try_from(n).unwrap_or(0), "fire at construction")?;
    let scored = rolled.iter().filter(|d| **d >= CONSTRUCTION_HIT_ON).count();
    ev.push(Event::DiceRolled {
        piece,
        purpose: "fire at construction".into(),
        rule: "OPT-CONSTR-03".into(),
        dice: rolled,
        modifiers: mods,
    });
    let mut hits = u32::try_from(scored).unwrap_or(0);
    if hits == 0 {
        return Ok(ev);
    }
    if let Some(save) = prof.save {
        let saves = dice.roll(usize::try_from(hits).unwrap_or(0), "construction save")?;
        let saved = u32::try_from(saves.iter().filter(|d| **d >= save).count()).unwrap_or(0);
        ev.push(Event::DiceRolled {
            piece: None,
            purpose: "construction save".into(),
            rule: "OPT-CONSTR-01".into(),
            dice: saves,
            modifiers: vec![Modifier {
                rule: "OPT-CONSTR-01".into(),
                label: format!("{}: saves on {save}+", site.name),
                value: i32::from(save),
            }],
        });
        hits = hits.saturating_sub(saved);
    }
    if hits == 0 {
        return Ok(ev);
    }
    let before = ctx.state.constructions.hits(site.id, segment);
    let total = (before + hits).min(prof.hits);
    ev.push(Event::ConstructionHit {
        construction: site.id,
        segment,
        hits,
        total,
    });
    if total >= prof.hits {
        ev.extend(collapse(ctx, site)?);
    }
    Ok(ev)
}

/// OPT-CONSTR-03: the construction falls: its event, a bought work's DEF-06 knock-out, the
/// units inside knocked out, those in base contact suppressed.
fn collapse(ctx: &Ctx, site: &Site) -> Result<Vec<Event>, ActionError> {
    let mut ev = vec![Event::ConstructionCollapsed {
        construction: site.id,
    }];
    if let ConstructionId::Defense { side, defense } = site.id {
        if !ctx.state.ledger.defense_lost(side, defense) {
            ev.extend(super::victory::knock_out_defense(
                ctx,
                side,
                defense,
                DefenseLossCause::Collapsed,
            )?);
        }
    }
    let (inside, contact) = occupants(ctx, site);
    for id in inside {
        ev.extend(super::victory::knock_out(
            ctx,
            id,
            KnockOutCause::FallBackBlocked {
                rule: "OPT-CONSTR-03".into(),
                reason: format!("inside {}, which collapsed", site.name),
            },
        )?);
    }
    for id in contact {
        if ctx.piece(id)?.suppressed_at.is_none() {
            ev.push(Event::Suppressed {
                piece: id,
                player_turn: ctx.state.turn.player_turn,
            });
        }
    }
    Ok(ev)
}

/// The load a gun fires at a construction: its default (ART-01).
fn load_of(ctx: &Ctx, p: &PieceState) -> Option<Ammunition> {
    let list = ctx.list(p.id.side())?;
    let row = ctx.row(p)?;
    WeaponClass::of(list, row).default_ammunition()
}

/// OPT-CONSTR-03: artillery fire straight at a construction (`at`: near which segment; none:
/// the segment facing the nearest gun). Every refusal names its rule and changes nothing.
pub fn resolve_fire_at_construction(
    ctx: &Ctx,
    firers: &[PieceId],
    construction: ConstructionId,
    at: Option<Point>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>, ActionError> {
    if !in_use(ctx) {
        return Err(RuleError::new(
            "OPT-CONSTR-01",
            "constructions are not in use in this scenario: switch the optional rule on to fire at buildings and works",
        )
        .into());
    }
    let Some(site) = site(ctx, construction) else {
        return Err(RuleError::new(
            "OPT-CONSTR-01",
            "there is no standing building or work by that id: it may have collapsed, or it is not a construction",
        )
        .into());
    };
    let t = ctx.state.turn;
    if t.phase == Phase::Deployment {
        return Err(RuleError::new("FIRE-01", "no firing before the battle starts").into());
    }
    if t.phase == Phase::Initiative {
        return Err(RuleError::new(
            "INIT-04",
            "on initiative a gun fires only at its nearest visible enemy unit, never at a building",
        )
        .into());
    }
    let Some(first) = firers.first() else {
        return Err(RuleError::new("FIRE-01", "name at least one firing unit").into());
    };
    let segment = aimed_segment(ctx, *first, &site, at);
    let Some(aim) = site.segment_middle(segment) else {
        return Ok(Vec::new());
    };
    let mut n = 0u32;
    let mut mods = Vec::new();
    for f in firers {
        let p = ctx.piece(*f)?;
        super::engineering::check_gun_at_work(
            ctx,
            p,
            "OPT-CONSTR-03",
            "can damage a building or work",
        )?;
        let row = ctx.row(p);
        let load = load_of(ctx, p);
        if !can_damage(site.material, load) {
            return Err(RuleError::new(
                "OPT-CONSTR-03",
                format!(
                    "{} fires {}, which cannot harm {} ({}): only round shot harms brick and stone",
                    p.name,
                    load.map_or("no artillery load", |l| l.label()),
                    site.name,
                    site.material.label()
                ),
            )
            .into());
        }
        let Some(fp) = footprint_of(ctx, p) else {
            continue;
        };
        let range = weapon_range_cm(ctx, p).unwrap_or(0.0);
        let d = point_footprint_distance(aim, &fp);
        if d > range + 1e-9 {
            return Err(RuleError::new(
                "FIRE-02",
                format!(
                    "{} is {d:.1} cm from {}, beyond its range of {range:.1} cm",
                    site.name, p.name
                ),
            )
            .into());
        }
        if !fp.front_edges().iter().any(|e| fire_cone_contains(e, aim)) {
            return Err(RuleError::new(
                "FIRE-04",
                format!(
                    "the aimed part of {} is outside the fire cone of {}",
                    site.name, p.name
                ),
            )
            .into());
        }
        let per_stand = match row.and_then(|r| r.attack) {
            Some(crate::model::Attack::Ranged { dice, .. }) => u32::from(dice),
            _ => 0,
        };
        let k = u32::from(p.stands) * per_stand;
        n += k;
        mods.push(Modifier {
            rule: "OPT-CONSTR-03".into(),
            label: format!("{}: {} stand(s) × {per_stand}", p.name, p.stands),
            value: i32::try_from(k).unwrap_or(i32::MAX),
        });
    }
    let piece = match firers {
        [one] => Some(*one),
        _ => None,
    };
    attack_construction(ctx, &site, segment, n, mods, piece, dice)
}

/// The segment a `FireAtConstruction` strikes: the one nearest `at`, or (none) the one facing
/// the first gun named on the line from its centre to the construction's middle.
pub fn aimed_segment(ctx: &Ctx, first: PieceId, site: &Site, at: Option<Point>) -> u32 {
    match at {
        Some(p) => nearest_segment(site, p),
        None => {
            let from = ctx
                .state
                .piece(first)
                .and_then(|p| footprint_of(ctx, p))
                .map_or(centre_of(&site.line), |f| f.centroid());
            segment_facing(site, from, centre_of(&site.line))
        }
    }
}

/// The average of a line's points (a building's middle, near enough to aim at).
fn centre_of(points: &[Point]) -> Point {
    let n = points.len().max(1) as f64;
    let (x, y) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p.x, y + p.y));
    Point::new(x / n, y / n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opt_airburst_01_an_air_burst_never_harms_a_construction() {
        for m in [
            Construction::Wooden,
            Construction::Brick,
            Construction::Stone,
            Construction::StoneFortification,
        ] {
            assert!(!can_damage(m, Some(Ammunition::AirBurst)), "{m:?}");
        }
        assert!(can_damage(Construction::Wooden, Some(Ammunition::Shell)));
    }

    #[test]
    fn opt_constr_01_profile_table_and_loads() {
        assert_eq!(
            profile(Construction::Wooden),
            Profile {
                hits: 3,
                save: None
            }
        );
        assert_eq!(profile(Construction::Brick).hits, 6);
        assert_eq!(profile(Construction::Brick).save, Some(5));
        assert_eq!(profile(Construction::Stone).hits, 9);
        assert_eq!(profile(Construction::Stone).save, Some(4));
        assert_eq!(profile(Construction::StoneFortification).hits, 12);
        assert_eq!(profile(Construction::StoneFortification).save, Some(3));
        assert_eq!(
            defense_material(DefenseKind::BreastWorks),
            Some(Construction::Wooden)
        );
        assert_eq!(defense_material(DefenseKind::Trench), None);
        assert!(can_damage(Construction::Stone, Some(Ammunition::RoundShot)));
        assert!(can_damage(Construction::Wooden, Some(Ammunition::Shell)));
        assert!(!can_damage(Construction::Brick, Some(Ammunition::Shell)));
        assert!(!can_damage(
            Construction::Wooden,
            Some(Ammunition::Canister)
        ));
        assert!(!can_damage(Construction::Wooden, None));
        // 12 cm is three started 5 cm segments; exactly 10 cm is two.
        assert_eq!(segments_of(12.0, 1.0), 3);
        assert_eq!(segments_of(10.0, 1.0), 2);
        assert_eq!(segments_of(10.0, 2.0), 1);
    }
}
