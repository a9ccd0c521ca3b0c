//! From pieces to table geometry: which base a piece stands on (BAS-03), how its formation lays
//! its stands out (MOVE-11..MOVE-15, MOVE-19, MOVE-23) and the rules' overrides on top of geom's
//! plain answers (FIRE-10 (3)/(4)). Everything that needs a footprint asks [`footprint_of`], so
//! movement, sight, fire and the map draw the same bases.
//!
//! Layering: depends on `model` and `geom` only.

use super::battle::Ctx;
use super::state::{Formation, PieceState};
use crate::geom::{self, Arrangement, Aspect, Footprint, StandKind};
use crate::model::{Arm, RowRole, RuleEffect};

/// BAS-01: the miniature-scale factor of the printed measurements (6–15 mm figures), the
/// default of a scenario's `measure_scale`.
pub const DEFAULT_MEASURE_SCALE: f64 = 1.0;

/// How close two bases (or a base and a terrain edge) must be to count as "in base contact",
/// in cm at measure scale 1: a hand placing bases leaves a hair's gap.
pub const CONTACT_TOLERANCE_CM: f64 = 0.1;

/// MOVE-12: the gap between stands in extended line, and the wider one for light troops.
pub const EXTENDED_GAP_CM: f64 = 1.0;
pub const LIGHT_EXTENDED_GAP_CM: f64 = 2.0;

/// BAS-01: the measure scale of this battle, the scenario's (×0.5 for 2 mm figures, ×1 for
/// 6–15 mm, ×2 for 20 and 28 mm): the factor on every distance of the rules and the lists.
pub fn measure_scale(ctx: &Ctx) -> f64 {
    ctx.scenario.measure_scale.factor()
}

/// MOVE-12: light infantry, sharpshooters (the list's light-troops note) and skirmishing rows
/// (SKIR-01 profiles) may stand 2 cm apart in extended line.
pub fn is_light(ctx: &Ctx, piece: &PieceState) -> bool {
    ctx.row(piece)
        .is_some_and(|r| r.role == RowRole::SkirmishProfile)
        || ctx.has_effect(piece, |e| matches!(e, RuleEffect::LightTroops { .. }))
}

/// VIS-07 ruling: "infantry skirmishers" are infantry (engineers included) in extended line and
/// units of a Skirmishing Infantry row, whatever their formation.
pub fn is_skirmisher(ctx: &Ctx, piece: &PieceState) -> bool {
    let Some(row) = ctx.row(piece) else {
        return false;
    };
    let foot = matches!(row.arm, Arm::Infantry | Arm::Engineers);
    row.role == RowRole::SkirmishProfile
        || (foot && piece.formation == Some(Formation::ExtendedLine))
}

/// BAS-03: the base a piece's stands use. Command units: 3 × 3 (ruling). Dismounted-cavalry
/// rows use the infantry base (ruling); limbers, wagons and the armoured car the transport base.
pub fn stand_kind(ctx: &Ctx, piece: &PieceState) -> StandKind {
    if piece.id.is_command() || piece.command.is_some() {
        return StandKind::Command;
    }
    let row = ctx.row(piece);
    if row.is_some_and(|r| r.role == RowRole::DismountedMode) {
        return StandKind::Infantry;
    }
    if row.is_some_and(|r| r.role == RowRole::Limber) {
        return StandKind::Transport;
    }
    match row.map(|r| r.arm).or(piece.arm) {
        Some(Arm::Cavalry) => StandKind::Cavalry,
        Some(Arm::Artillery) => StandKind::Artillery,
        Some(Arm::Transport | Arm::Armour) => StandKind::Transport,
        Some(Arm::Infantry | Arm::Engineers) | None => StandKind::Infantry,
    }
}

/// MOVE-09..MOVE-23: the layout of a piece's stands. Command units stand alone; artillery is a
/// row of guns, or gun-behind-limber when limbered (MOVE-23); transport travels in file; foot
/// and horse follow their movement formation, extended line 1 cm apart or 2 cm for light troops
/// (MOVE-12).
pub fn arrangement(ctx: &Ctx, piece: &PieceState) -> Arrangement {
    match stand_kind(ctx, piece) {
        StandKind::Command => return Arrangement::Single,
        StandKind::Artillery if piece.limbered => return Arrangement::LimberedGun,
        StandKind::Artillery => return Arrangement::Line { gap_cm: 0.0 },
        StandKind::Transport if piece.formation.is_none() => return Arrangement::Column,
        _ => {}
    }
    match piece.formation {
        None | Some(Formation::Line) => Arrangement::Line { gap_cm: 0.0 },
        Some(Formation::ExtendedLine) => Arrangement::Line {
            gap_cm: if is_light(ctx, piece) {
                LIGHT_EXTENDED_GAP_CM
            } else {
                EXTENDED_GAP_CM
            },
        },
        Some(Formation::MarchColumn) => Arrangement::Column,
        Some(Formation::AttackColumn) => Arrangement::TwoAbreast,
        Some(Formation::Square) => Arrangement::Square,
        Some(Formation::Disordered) => Arrangement::Cluster,
    }
}

/// SEQ-01: whether any corner of any stand of `fp` lies off the scenario's table.
pub fn off_table(ctx: &Ctx, fp: &Footprint) -> bool {
    let table = &ctx.scenario.table;
    fp.stands.iter().flat_map(|s| s.corners()).any(|c| {
        c.x < -1e-9 || c.y < -1e-9 || c.x > table.width_cm + 1e-9 || c.y > table.depth_cm + 1e-9
    })
}

/// The stands of a piece on the table (`None` off the table or knocked out). The pose is the
/// centre of the formation's front edge (see `geom::footprint`). A line with refused flank
/// stands shows them swung back (MOVE-30, `flank`).
pub fn footprint_of(ctx: &Ctx, piece: &PieceState) -> Option<Footprint> {
    let fp = straight_footprint_of(ctx, piece)?;
    Some(match super::flank::refusal_of(piece) {
        Some(r) => fp.with_refusal(r),
        None => fp,
    })
}

/// The stands of a piece as its formation lays them out, flanks straight: what a move starts
/// from (MOVE-30: a move straightens a refused flank).
pub fn straight_footprint_of(ctx: &Ctx, piece: &PieceState) -> Option<Footprint> {
    if !piece.on_table() {
        return None;
    }
    let pose = piece.pose?;
    let stands = if piece.id.is_command() {
        1
    } else {
        usize::from(piece.stands.max(1))
    };
    Some(geom::footprint(
        stand_kind(ctx, piece),
        stands,
        arrangement(ctx, piece),
        pose.at,
        pose.facing_deg,
        measure_scale(ctx),
    ))
}

/// FIRE-10: front, flank or rear of a shot from `attacker` at `target`, with the rules'
/// overrides: (3) a march column is always hit in the flank, (4) a square never is.
pub fn aspect(ctx: &Ctx, attacker: &PieceState, target: &PieceState) -> Option<Aspect> {
    match target.formation {
        Some(Formation::MarchColumn) => return Some(Aspect::Flank),
        Some(Formation::Square) => return Some(Aspect::Front),
        _ => {}
    }
    let a = footprint_of(ctx, attacker)?;
    let t = footprint_of(ctx, target)?;
    Some(geom::aspect_of(&a, &t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Point;
    use crate::model::army::shipped_lists;
    use crate::model::{Grade, Scenario, TroopTypeId, UnitId};
    use crate::rules::state::{BattleState, PieceId, Pose};

    fn piece(troop: Option<&str>, formation: Option<Formation>) -> PieceState {
        let id = match troop {
            Some(_) => PieceId::Unit {
                side: 0,
                unit: UnitId(1),
            },
            None => PieceId::Hq {
                side: 0,
                hq: crate::model::HqId(1),
            },
        };
        PieceState {
            id,
            name: "p".into(),
            troop_type: troop.map(TroopTypeId::new),
            arm: None,
            command: None,
            pose: Some(Pose {
                at: Point::new(10.0, 10.0),
                facing_deg: 0.0,
            }),
            formation,
            limbered: false,
            stands: 4,
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
        }
    }

    #[test]
    fn formations_map_to_arrangements_and_bases() {
        let scenario: Scenario = match serde_json::from_value(serde_json::json!({
            "format": 1, "id": "t", "name": "t", "points": 1000, "turn_limit": 6,
            "sides": [{ "name": "A", "army_list": "nap-french", "hqs": [], "units": [] }]
        })) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        };
        let lists = shipped_lists().expect("shipped lists parse");
        // Parsed, so that fields other modules add with defaults need not be named here.
        let state: BattleState = serde_json::from_value(serde_json::json!({
            "turn": { "game_turn": 1, "player_turn": 1, "active": 0, "first_player": 0, "phase": "command" },
            "pieces": {}, "sides": []
        }))
        .expect("an empty battle state parses");
        let ctx = Ctx {
            scenario: &scenario,
            lists: &lists,
            state: &state,
            sight: None,
        };
        let line = "line-infantry-08-12";
        let cases = [
            (
                Some(line),
                Some(Formation::Line),
                Arrangement::Line { gap_cm: 0.0 },
                StandKind::Infantry,
            ),
            (
                Some(line),
                Some(Formation::ExtendedLine),
                Arrangement::Line { gap_cm: 1.0 },
                StandKind::Infantry,
            ),
            (
                Some("light-infantry-08-12"),
                Some(Formation::ExtendedLine),
                Arrangement::Line { gap_cm: 2.0 },
                StandKind::Infantry,
            ),
            (
                Some(line),
                Some(Formation::MarchColumn),
                Arrangement::Column,
                StandKind::Infantry,
            ),
            (
                Some(line),
                Some(Formation::AttackColumn),
                Arrangement::TwoAbreast,
                StandKind::Infantry,
            ),
            (
                Some(line),
                Some(Formation::Square),
                Arrangement::Square,
                StandKind::Infantry,
            ),
            (
                Some(line),
                Some(Formation::Disordered),
                Arrangement::Cluster,
                StandKind::Infantry,
            ),
            (
                Some("light-cavalry-05-12"),
                Some(Formation::Line),
                Arrangement::Line { gap_cm: 0.0 },
                StandKind::Cavalry,
            ),
            (
                Some("field-artillery"),
                None,
                Arrangement::Line { gap_cm: 0.0 },
                StandKind::Artillery,
            ),
            (
                Some("dismounted-cavalry-all"),
                Some(Formation::Line),
                Arrangement::Line { gap_cm: 0.0 },
                StandKind::Infantry,
            ),
            (None, None, Arrangement::Single, StandKind::Command),
        ];
        for (troop, formation, arrangement_want, kind_want) in cases {
            let p = piece(troop, formation);
            assert_eq!(
                arrangement(&ctx, &p),
                arrangement_want,
                "{troop:?} {formation:?}"
            );
            assert_eq!(stand_kind(&ctx, &p), kind_want, "{troop:?} {formation:?}");
        }
        let mut gun = piece(Some("field-artillery"), None);
        gun.limbered = true;
        assert_eq!(arrangement(&ctx, &gun), Arrangement::LimberedGun);
        let hq = footprint_of(&ctx, &piece(None, None)).expect("on the table");
        assert_eq!(hq.stands.len(), 1);
        assert!(hq.sees_all_round());
        let mut gone = piece(Some(line), Some(Formation::Line));
        gone.knocked_out = true;
        assert!(footprint_of(&ctx, &gone).is_none());
    }
}
