//! Terrain features (catalogue VIS and TERR sections): typed polygons and polylines in table
//! centimetres. The kind decides movement, sight and cover; the engine reads those properties
//! from [`TerrainKind`] methods so that UI, engine and tests share one table (FIRE-15, TERR-03..12).

use super::ids::FeatureId;
use crate::geom::Point;
use serde::{Deserialize, Serialize};

/// The terrain types the rules distinguish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TerrainKind {
    /// TERR-01: the bare table; used for marked clearings inside other features.
    Open,
    /// TERR-03 low area: crops, tall grass, scrub, heath (half speed; hides, stops no shot).
    LowArea,
    /// TERR-03 high area: orchards, woods, forest, jungle (quarter speed; blocks sight; soft cover).
    HighArea,
    /// TERR-02: walls, fences, hedges (stop on contact; cover behind it).
    Linear,
    /// TERR-06 / VIS: a hill with its contour level (1 = lowest).
    Hill { level: u8 },
    /// TERR-06: impassable except to foot troops.
    Mountain,
    /// MOVE-25 road bonus; TERR-09 through dense terrain.
    Road,
    /// TERR-07: swamp, marsh, paddy (foot only, as high area).
    PartiallyWet,
    /// TERR-07: streams, fords (linear stop-and-cross).
    ShallowWet,
    /// TERR-07: rivers, canals, lakes (impassable unless bridged).
    DeepWet,
    /// TERR-03 / FIRE-15: built-up areas (high area; hard cover).
    BuiltUp,
    /// TERR-12: cliffs, ravines.
    Impassable,
}

impl TerrainKind {
    pub const ALL: [TerrainKind; 12] = [
        TerrainKind::Open,
        TerrainKind::LowArea,
        TerrainKind::HighArea,
        TerrainKind::Linear,
        TerrainKind::Hill { level: 1 },
        TerrainKind::Mountain,
        TerrainKind::Road,
        TerrainKind::PartiallyWet,
        TerrainKind::ShallowWet,
        TerrainKind::DeepWet,
        TerrainKind::BuiltUp,
        TerrainKind::Impassable,
    ];

    pub fn label(self) -> &'static str {
        match self {
            TerrainKind::Open => "Open",
            TerrainKind::LowArea => "Low area",
            TerrainKind::HighArea => "High area",
            TerrainKind::Linear => "Linear",
            TerrainKind::Hill { .. } => "Hill",
            TerrainKind::Mountain => "Mountain",
            TerrainKind::Road => "Road",
            TerrainKind::PartiallyWet => "Partially wet",
            TerrainKind::ShallowWet => "Shallow wet",
            TerrainKind::DeepWet => "Deep wet",
            TerrainKind::BuiltUp => "Built-up",
            TerrainKind::Impassable => "Impassable",
        }
    }

    /// Roads, linear obstacles and streams are drawn as polylines; everything else as areas.
    pub fn is_line(self) -> bool {
        matches!(
            self,
            TerrainKind::Road | TerrainKind::Linear | TerrainKind::ShallowWet
        )
    }
}

/// The shape of a feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Geometry {
    /// A closed ring (first point not repeated).
    Polygon(Vec<Point>),
    /// An open line with a width for roads and streams.
    Polyline { points: Vec<Point>, width_cm: f64 },
}

impl Geometry {
    pub fn points(&self) -> &[Point] {
        match self {
            Geometry::Polygon(p) => p,
            Geometry::Polyline { points, .. } => points,
        }
    }
}

/// One terrain feature on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerrainFeature {
    pub id: FeatureId,
    pub name: String,
    #[serde(flatten)]
    pub kind: TerrainKind,
    pub geometry: Geometry,
    /// TERR-08: dense going (mud, soft sand, deep snow) on top of the kind.
    #[serde(default)]
    pub dense: bool,
    /// TERR-11: frozen (wet terrain becomes crossable as high area).
    #[serde(default)]
    pub frozen: bool,
    /// OPT-CONSTR-01: what a built-up feature is built of, for its Hits and Save when the
    /// optional constructions rule is in use. Not written when unset, so files from before it
    /// was added load and save unchanged; a built-up feature without it counts as brick
    /// ([`Construction::DEFAULT_BUILT_UP`]). Other kinds ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub construction: Option<Construction>,
}

/// OPT-CONSTR-01: the material of a building or fortification, which picks its row of the
/// constructions table (Hits and Save per 5 cm of length, `rules::construction::profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Construction {
    Wooden,
    Brick,
    Stone,
    StoneFortification,
}

impl Construction {
    pub const ALL: [Construction; 4] = [
        Construction::Wooden,
        Construction::Brick,
        Construction::Stone,
        Construction::StoneFortification,
    ];

    /// A built-up area drawn without a material: brick. FIRE-15 gives a built-up area Hard
    /// cover, the band of brick and stone buildings; brick is the weaker of the two, so an
    /// unmarked town is never sturdier than its designer said.
    pub const DEFAULT_BUILT_UP: Construction = Construction::Brick;

    pub fn label(self) -> &'static str {
        match self {
            Construction::Wooden => "Wooden building",
            Construction::Brick => "Brick building",
            Construction::Stone => "Stone building",
            Construction::StoneFortification => "Stone fortification",
        }
    }
}
