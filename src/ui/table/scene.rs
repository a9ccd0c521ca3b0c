//! What the table view draws, as plain data: the table's size, its terrain, the field
//! defences, every piece as the stands the engine lays out, and the overlays a page adds.
//! A page builds a [`TableScene`] each frame (or keeps one) from a [`Scenario`] and, in a battle,
//! the [`BattleState`]; the widget never reads the engine itself, so the editor and the battle
//! page share it and a test can hand it any table it likes.

use crate::geom::{Point, Stand};
use crate::model::ArmyList;
use crate::model::{DefenseKind, Scenario, TerrainFeature};
use crate::rules::fog::FogMemory;
use crate::rules::geometry::footprint_of;
use crate::rules::state::BattleState;
use crate::rules::{Ctx, PieceId};
use egui::Color32;

/// How opaque an enemy drawn at its last seen pose is (of 255).
pub const GHOST_ALPHA: u8 = 90;

/// "last seen turn 3" ("last seen during deployment" before the first turn).
pub fn last_seen_words(game_turn: u32) -> String {
    if game_turn == 0 {
        "last seen during deployment".into()
    } else {
        format!("last seen turn {game_turn}")
    }
}

/// The markers a piece carries (FIRE-22 suppression, FIRE-28 disorder, FIRE-29 exhaustion,
/// DEF-04 dug in, GEN-11 hits this turn, the OPTIONAL prone "P", OPT-PRONE-01).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Markers {
    pub hits: u32,
    pub suppressed: bool,
    pub disordered: bool,
    pub exhausted: bool,
    pub dug_in: bool,
    pub prone: bool,
}

impl Markers {
    pub fn any(&self) -> bool {
        self.hits > 0
            || self.suppressed
            || self.disordered
            || self.exhausted
            || self.dug_in
            || self.prone
    }

    /// The markers in words, for the hover card.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.hits > 0 {
            out.push(format!(
                "{} hit{} this turn",
                self.hits,
                if self.hits == 1 { "" } else { "s" }
            ));
        }
        if self.suppressed {
            out.push("suppressed".into());
        }
        if self.disordered {
            out.push("disordered".into());
        }
        if self.exhausted {
            out.push("exhausted".into());
        }
        if self.dug_in {
            out.push("dug in".into());
        }
        if self.prone {
            out.push("prone".into());
        }
        out
    }
}

/// One piece on the table: its stands exactly as `rules::geometry::footprint_of` lays them out.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenePiece {
    pub id: PieceId,
    pub side: usize,
    /// The name shown beside it when there is room, and on hover always.
    pub label: String,
    /// A second line for the hover card: troop type, formation.
    pub detail: String,
    pub stands: Vec<Stand>,
    pub colour: Color32,
    pub markers: Markers,
    /// Command units are labelled before troop units when labels compete for room.
    pub command: bool,
}

impl ScenePiece {
    /// The table rectangle around its stands.
    pub fn bounds(&self) -> Option<crate::geom::Rect> {
        let mut it = self.stands.iter().flat_map(Stand::corners);
        let first = it.next()?;
        let mut r = crate::geom::Rect {
            min: first,
            max: first,
        };
        for p in it {
            r.min.x = r.min.x.min(p.x);
            r.min.y = r.min.y.min(p.y);
            r.max.x = r.max.x.max(p.x);
            r.max.y = r.max.y.max(p.y);
        }
        Some(r)
    }

    /// Is the table point `p` on one of its stands?
    pub fn covers(&self, p: Point) -> bool {
        self.stands.iter().any(|s| s.covers(p, 0.0))
    }
}

/// A field defence as drawn: a line along its front, or a closed outline (trench, dug-out).
#[derive(Debug, Clone, PartialEq)]
pub struct SceneDefence {
    pub kind: DefenseKind,
    pub side: usize,
    pub points: Vec<Point>,
}

/// Something a page draws over the table, in table centimetres (ranges, sight lines, rulers,
/// deployment zones, movement envelopes).
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    /// A closed outline, filled if `fill` is not transparent (a concave fill comes out as its
    /// hull: keep fills to convex shapes or leave them transparent).
    Polygon {
        points: Vec<Point>,
        fill: Color32,
        stroke: egui::Stroke,
    },
    Polyline {
        points: Vec<Point>,
        stroke: egui::Stroke,
    },
    Circle {
        centre: Point,
        radius_cm: f64,
        fill: Color32,
        stroke: egui::Stroke,
    },
    Text {
        at: Point,
        text: String,
        colour: Color32,
    },
}

/// Everything the table view draws in one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableScene {
    pub width_cm: f64,
    pub depth_cm: f64,
    pub terrain: Vec<TerrainFeature>,
    pub defences: Vec<SceneDefence>,
    pub pieces: Vec<ScenePiece>,
    pub overlays: Vec<Overlay>,
    /// Each side's name and colour, by side index (the legend).
    pub sides: Vec<(String, Color32)>,
    /// Drawn highlighted.
    pub selected: Option<PieceId>,
}

impl TableScene {
    /// The scenario's table and terrain, its field defences, the deployment zones as faint
    /// outlines, and no pieces.
    pub fn of_scenario(scenario: &Scenario) -> TableScene {
        let mut defences = Vec::new();
        let mut overlays = Vec::new();
        for (si, side) in scenario.sides.iter().enumerate() {
            for d in &side.field_defenses {
                if d.at.len() >= 2 {
                    defences.push(SceneDefence {
                        kind: d.kind,
                        side: si,
                        points: d.at.clone(),
                    });
                }
            }
            if side.deployment_zone.len() >= 3 {
                let [r, g, b] = side.colour;
                overlays.push(Overlay::Polygon {
                    points: side.deployment_zone.clone(),
                    fill: Color32::TRANSPARENT,
                    stroke: egui::Stroke::new(1.0, Color32::from_rgba_unmultiplied(r, g, b, 150)),
                });
            }
        }
        TableScene {
            width_cm: scenario.table.width_cm,
            depth_cm: scenario.table.depth_cm,
            terrain: scenario.terrain.clone(),
            defences,
            pieces: Vec::new(),
            overlays,
            sides: scenario
                .sides
                .iter()
                .map(|s| {
                    let [r, g, b] = s.colour;
                    (s.name.clone(), Color32::from_rgb(r, g, b))
                })
                .collect(),
            selected: None,
        }
    }

    /// The scenario's table with every piece of `state` that is on the table, laid out by the
    /// engine's own footprints (so the view shows the bases the rules measure).
    pub fn of_battle(scenario: &Scenario, lists: &[ArmyList], state: &BattleState) -> TableScene {
        let mut scene = TableScene::of_scenario(scenario);
        let ctx = Ctx::new(scenario, lists, state);
        for p in state.pieces.values() {
            let Some(fp) = footprint_of(&ctx, p) else {
                continue;
            };
            let side = p.id.side();
            let [r, g, b] = scenario
                .sides
                .get(side)
                .map_or([128, 128, 128], |s| s.colour);
            let disordered = crate::rules::firing::is_disordered(state, p)
                || p.formation == Some(crate::rules::Formation::Disordered);
            let markers = Markers {
                hits: p.hits,
                suppressed: p.suppressed_at.is_some(),
                disordered,
                exhausted: crate::rules::firing::is_exhausted(&ctx, p),
                dug_in: p.dug_in && !p.revealed,
                prone: crate::rules::prone::is_prone(&ctx, p),
            };
            let troop = ctx
                .row(p)
                .map(|r| r.name.clone())
                .or_else(|| p.troop_type.as_ref().map(ToString::to_string));
            let detail = match (troop, p.formation, p.command) {
                (_, _, Some((level, quality))) => {
                    format!("{} HQ, {}", level.label(), quality.label())
                }
                (Some(t), Some(f), _) => format!("{} × {}, {}", p.stands, t, f.label()),
                (Some(t), None, _) => format!("{} × {}", p.stands, t),
                (None, _, _) => String::new(),
            };
            scene.pieces.push(ScenePiece {
                id: p.id,
                side,
                label: p.name.clone(),
                detail,
                stands: fp.stands,
                colour: Color32::from_rgb(r, g, b),
                markers,
                command: p.id.is_command(),
            });
        }
        scene
    }

    /// [`TableScene::of_battle`] as one side sees it under fog of war (`rules::fog`): its own
    /// pieces and the enemies it sees now as they are; every other enemy it remembers drawn
    /// faded where it was last seen, named only "last seen turn N" (no name, markers or
    /// strength); enemies it never saw are not drawn at all.
    pub fn of_battle_seen(
        scenario: &Scenario,
        lists: &[ArmyList],
        state: &BattleState,
        fog: &FogMemory,
    ) -> TableScene {
        let mut scene = TableScene::of_battle(scenario, lists, state);
        scene.pieces.retain(|p| fog.is_seen(p.id));
        let ctx = Ctx::new(scenario, lists, state);
        for (id, seen) in fog.remembered() {
            if fog.is_seen(*id) {
                continue;
            }
            let Some(p) = state.piece(*id) else {
                continue;
            };
            // The piece as it stood then: the stands the rules would lay out at that pose.
            let mut then = p.clone();
            then.pose = Some(seen.pose);
            then.formation = seen.formation;
            then.limbered = seen.limbered;
            let Some(fp) = footprint_of(&ctx, &then) else {
                continue;
            };
            let side = id.side();
            let [r, g, b] = scenario
                .sides
                .get(side)
                .map_or([128, 128, 128], |s| s.colour);
            scene.pieces.push(ScenePiece {
                id: *id,
                side,
                label: last_seen_words(seen.game_turn),
                detail: "unseen: drawn where your units last saw it".into(),
                stands: fp.stands,
                colour: Color32::from_rgba_unmultiplied(r, g, b, GHOST_ALPHA),
                markers: Markers::default(),
                command: false,
            });
        }
        scene
    }

    /// The piece with this id.
    pub fn piece(&self, id: PieceId) -> Option<&ScenePiece> {
        self.pieces.iter().find(|p| p.id == id)
    }
}
