//! The artillery extras of catalogue §2.10: regimental guns (ART-06) and Field Artillery
//! Officers with their grand batteries (ART-10).
//!
//! * ART-06: a scenario attaches one Howitzer-row stand of the same list to an infantry unit
//!   (`Unit::regimental_guns`). It moves and is ordered with the unit (it is not a piece of its
//!   own), its Hits add to the unit's KO threshold ([`regimental_gun_hits`], read by
//!   `firing::ko_threshold_of`), it is not one of the unit's firing stands (the unit's stand
//!   count does not include it), and it is removed with the unit.
//! * ART-10: one FAO for every 6 artillery units on the table ([`fao_allowance`]), never for a
//!   list whose caps forbid grand batteries (Austria, [`grand_batteries_allowed`]); a grand
//!   battery is two or more unlimbered artillery units of one side whose bases touch, in one
//!   connected group, firing at the same target ([`check_grand_battery`]). The FAO's stat line is
//!   the list's Average Brigade HQ ([`fao_profile`]).
//!
//! * ART-06 fire: a Fire action asking shell of a unit with a regimental gun is the gun's fire —
//!   one stand of the list's howitzer, its dice, range and cover shift ([`regimental_fire`], read
//!   by `firing::check_fire` and `firing::resolve_shell`); without shell the unit fires its
//!   muskets (the gun is not one of its stands).
//!
//! Not here: the FAO as a command unit and its orders (`fao`, called by `command`).
//!
//! Layering: part of `rules`; depends on `model` and `geom` only. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use super::artillery::WeaponClass;
use super::battle::Ctx;
use super::error::RuleError;
use super::geometry::{footprint_of, measure_scale, CONTACT_TOLERANCE_CM};
use super::state::{PieceId, PieceState};
use crate::geom::in_contact;
use crate::model::{Arm, ArmyList, CommandLevel, CommandType, Quality, TroopType};

/// ART-10: one FAO per this many artillery units on the table.
pub const ARTILLERY_UNITS_PER_FAO: u32 = crate::model::ARTILLERY_UNITS_PER_FAO;

/// ART-06 ruling: the list's Howitzer row a regimental gun uses.
pub fn regimental_gun_row(list: &ArmyList) -> Option<&TroopType> {
    list.troop_types
        .iter()
        .find(|r| r.arm == Arm::Artillery && WeaponClass::of(list, r) == WeaponClass::Howitzer)
}

/// ART-06: the unit has a regimental gun attached (an infantry unit of a list with a howitzer).
pub fn has_regimental_gun(ctx: &Ctx, piece: &PieceState) -> bool {
    let PieceId::Unit { side, unit } = piece.id else {
        return false;
    };
    let flagged = ctx
        .scenario
        .sides
        .get(side)
        .and_then(|s| s.unit(unit))
        .is_some_and(|u| u.regimental_guns);
    flagged
        && ctx.row(piece).is_some_and(|r| r.arm == Arm::Infantry)
        && ctx.list(side).and_then(regimental_gun_row).is_some()
}

/// ART-06: what the attached gun adds to the unit's KO threshold (its own Hits), 0 without one.
pub fn regimental_gun_hits(ctx: &Ctx, piece: &PieceState) -> u32 {
    if !has_regimental_gun(ctx, piece) {
        return 0;
    }
    ctx.list(piece.id.side())
        .and_then(regimental_gun_row)
        .map_or(0, |r| u32::from(r.hits))
}

/// ART-10 (Austrian ruling): may this list's Command field FAOs and grand batteries?
pub fn grand_batteries_allowed(list: &ArmyList) -> bool {
    !list.caps.no_grand_batteries
}

/// ART-10: FAOs a side may have with this many artillery units on the table.
pub fn fao_allowance(list: &ArmyList, artillery_units: u32) -> u32 {
    if grand_batteries_allowed(list) {
        artillery_units / ARTILLERY_UNITS_PER_FAO
    } else {
        0
    }
}

/// ART-10: the side's FAO allowance now, from its artillery units on the table.
pub fn side_fao_allowance(ctx: &Ctx, side: usize) -> u32 {
    let Some(list) = ctx.list(side) else {
        return 0;
    };
    let n = ctx
        .state
        .pieces
        .values()
        .filter(|p| p.id.side() == side && p.on_table())
        .filter(|p| ctx.row(p).is_some_and(|r| r.arm == Arm::Artillery))
        .count();
    fao_allowance(list, u32::try_from(n).unwrap_or(0))
}

/// ART-10 ruling: the FAO's stat line is the list's Average Brigade HQ (command 7, presence +1,
/// Hits 6, save 6+, 55 points in the standard charts).
pub fn fao_profile(list: &ArmyList) -> Option<&CommandType> {
    list.command_type(CommandLevel::Brigade, Quality::Average)
}

/// ART-10: are these guns a grand battery — two or more unlimbered artillery units of one side,
/// of a list that may form them, whose bases touch in one connected group? (They then fire at
/// one target as one Fire action.) The error names the rule.
pub fn check_grand_battery(ctx: &Ctx, guns: &[PieceId]) -> Result<(), RuleError> {
    if guns.len() < 2 {
        return Err(RuleError::new(
            "ART-10",
            "a grand battery is two or more artillery units",
        ));
    }
    let side = guns.first().map_or(0, |g| g.side());
    if let Some(list) = ctx.list(side) {
        if !grand_batteries_allowed(list) {
            return Err(RuleError::new(
                "ART-10",
                format!(
                    "{} artillery was never grouped into grand batteries",
                    list.name
                ),
            ));
        }
    }
    let mut fps = Vec::new();
    for g in guns {
        let p = ctx.piece(*g)?;
        if g.side() != side {
            return Err(RuleError::new(
                "ART-10",
                "a grand battery is of one side's guns",
            ));
        }
        if ctx.row(p).is_none_or(|r| r.arm != Arm::Artillery) || p.limbered {
            return Err(RuleError::new(
                "ART-10",
                format!("{} is not an unlimbered artillery unit", p.name),
            ));
        }
        let Some(fp) = footprint_of(ctx, p) else {
            return Err(RuleError::new(
                "SEQ-01",
                format!("{} is not on the table", p.name),
            ));
        };
        fps.push((p.name.clone(), fp));
    }
    // Connected by touching bases.
    let tol = CONTACT_TOLERANCE_CM * measure_scale(ctx);
    let mut reached = vec![false; fps.len()];
    let mut stack = vec![0usize];
    if let Some(r) = reached.first_mut() {
        *r = true;
    }
    while let Some(i) = stack.pop() {
        for j in 0..fps.len() {
            let touching = match (fps.get(i), fps.get(j)) {
                (Some(a), Some(b)) => in_contact(&a.1, &b.1, tol),
                _ => false,
            };
            if touching && reached.get(j) == Some(&false) {
                if let Some(r) = reached.get_mut(j) {
                    *r = true;
                }
                stack.push(j);
            }
        }
    }
    if let Some(k) = reached.iter().position(|r| !r) {
        let name = fps.get(k).map_or("a gun", |f| f.0.as_str());
        return Err(RuleError::new(
            "ART-10",
            format!("{name} does not touch the other guns of the grand battery"),
        ));
    }
    Ok(())
}

/// ART-06: a regimental gun's fire, as the list's howitzer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegimentalFire {
    pub class: WeaponClass,
    pub dice_per_stand: u32,
    /// In table cm (list range × range factor × measure scale).
    pub range_cm: f64,
    /// The howitzer's list gives its artillery the cover shift (FIRE-16).
    pub cover_shift: bool,
}

/// ART-06: shell (or air burst) asked of an infantry unit with a regimental gun is the gun's
/// fire: one stand of the list's howitzer, at the howitzer's dice and range.
pub fn regimental_fire(
    ctx: &Ctx,
    piece: &PieceState,
    ammunition: Option<super::artillery::Ammunition>,
) -> Option<RegimentalFire> {
    if !ammunition.is_some_and(super::artillery::Ammunition::is_shell)
        || !has_regimental_gun(ctx, piece)
    {
        return None;
    }
    let list = ctx.list(piece.id.side())?;
    let row = regimental_gun_row(list)?;
    let crate::model::Attack::Ranged { dice, range_cm } = row.attack? else {
        return None;
    };
    let mut range = range_cm;
    let mut cover_shift = false;
    for e in list.row_effects(row) {
        match e {
            crate::model::RuleEffect::Howitzer { range_cm, .. } => range = *range_cm,
            crate::model::RuleEffect::ArtilleryCoverShift => cover_shift = true,
            _ => {}
        }
    }
    Some(RegimentalFire {
        class: WeaponClass::Howitzer,
        dice_per_stand: u32::from(dice),
        range_cm: f64::from(range)
            * super::firing::range_factor(ctx, piece.id.side())
            * measure_scale(ctx),
        cover_shift,
    })
}
