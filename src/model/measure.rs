//! BAS-01: the miniature scale (`measure_scale`) of a scenario: the factor on every distance of
//! the rules and the army lists, base sizes included (BAS-03). A separate setting from the
//! representation scale ([`super::Scale`], GEN-07), which touches weapon ranges only.
//!
//! In scenario JSON it is the number `0.5`, `1` or `2`; a figure size in millimetres is accepted
//! too (`"28mm"`, `"6 mm"` or `{"figure_mm": 28}`) and read as its factor, so a scenario author
//! can write what is on the table. It is always written back as the number.
//!
//! Layering: part of `model`; depends on nothing outside it. Must not import egui, eframe,
//! rusqlite, `std::fs`, a clock or a thread RNG (checked by `tests/layering.rs`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// BAS-01: halve every measurement for 2 mm figures, use them as printed for 6, 10 and 15 mm,
/// double them for 20 mm; 28 mm plays as 20 mm (×2, ruling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum MeasureScale {
    /// ×0.5: 2 mm figures.
    Half,
    /// ×1: 6, 10 and 15 mm figures (the printed measurements).
    #[default]
    Printed,
    /// ×2: 20 mm figures (and 28 mm, ruling).
    Double,
}

impl MeasureScale {
    pub const ALL: [MeasureScale; 3] = [
        MeasureScale::Half,
        MeasureScale::Printed,
        MeasureScale::Double,
    ];

    /// The factor on every distance.
    ///
    /// ```
    /// use powderhorn::model::MeasureScale;
    /// assert_eq!(20.0 * MeasureScale::Double.factor(), 40.0);
    /// assert_eq!(20.0 * MeasureScale::Half.factor(), 10.0);
    /// ```
    pub fn factor(self) -> f64 {
        match self {
            MeasureScale::Half => 0.5,
            MeasureScale::Printed => 1.0,
            MeasureScale::Double => 2.0,
        }
    }

    /// The scale of a factor: only 0.5, 1 and 2 are rules scales (BAS-01).
    pub fn from_factor(f: f64) -> Option<MeasureScale> {
        MeasureScale::ALL.into_iter().find(|m| m.factor() == f)
    }

    /// BAS-01: the scale for a figure size in mm: 2 → ×0.5; 6, 10, 15 → ×1; 20 and 28 → ×2
    /// (28 mm played as 20 mm, ruling). Other sizes are not in the rules: `None`.
    ///
    /// ```
    /// use powderhorn::model::MeasureScale;
    /// assert_eq!(MeasureScale::from_figure_mm(28), Some(MeasureScale::Double));
    /// assert_eq!(MeasureScale::from_figure_mm(15), Some(MeasureScale::Printed));
    /// assert_eq!(MeasureScale::from_figure_mm(2), Some(MeasureScale::Half));
    /// assert_eq!(MeasureScale::from_figure_mm(54), None);
    /// ```
    pub fn from_figure_mm(mm: u32) -> Option<MeasureScale> {
        match mm {
            2 => Some(MeasureScale::Half),
            6 | 10 | 15 => Some(MeasureScale::Printed),
            20 | 28 => Some(MeasureScale::Double),
            _ => None,
        }
    }

    /// The figure sizes a scale stands for, as the scenario editor shows them.
    pub fn label(self) -> &'static str {
        match self {
            MeasureScale::Half => "2 mm",
            MeasureScale::Printed => "6–15 mm",
            MeasureScale::Double => "20–28 mm",
        }
    }

    pub fn is_printed(&self) -> bool {
        *self == MeasureScale::Printed
    }
}

impl fmt::Display for MeasureScale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl Serialize for MeasureScale {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MeasureScale::Half => s.serialize_f64(0.5),
            MeasureScale::Printed => s.serialize_u8(1),
            MeasureScale::Double => s.serialize_u8(2),
        }
    }
}

/// What the JSON may hold: the factor, a figure size as text, or `{"figure_mm": N}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum Raw {
    Factor(f64),
    Text(String),
    Figure { figure_mm: u32 },
}

const EXPECTED: &str =
    "0.5, 1 or 2, or a figure size of 2, 6, 10, 15, 20 or 28 mm (\"28mm\" or {\"figure_mm\": 28})";

/// A figure size written as text: "28mm", "28 mm", "28".
fn figure_text(t: &str) -> Option<u32> {
    let t = t.trim();
    let t = t.strip_suffix("mm").unwrap_or(t).trim_end();
    t.parse().ok()
}

impl<'de> Deserialize<'de> for MeasureScale {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let raw = Raw::deserialize(d)
            .map_err(|_| D::Error::custom(format!("measure_scale must be {EXPECTED}")))?;
        let found = match &raw {
            Raw::Factor(f) => MeasureScale::from_factor(*f),
            Raw::Text(t) => figure_text(t).and_then(MeasureScale::from_figure_mm),
            Raw::Figure { figure_mm } => MeasureScale::from_figure_mm(*figure_mm),
        };
        found.ok_or_else(|| {
            let got = match raw {
                Raw::Factor(f) => f.to_string(),
                Raw::Text(t) => format!("\"{t}\""),
                Raw::Figure { figure_mm } => format!("{figure_mm} mm figures"),
            };
            D::Error::custom(format!(
                "measure_scale {got} is not a BAS-01 scale: use {EXPECTED}"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(v: serde_json::Value) -> Result<MeasureScale, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn bas_01_reads_factors_and_figure_sizes_and_refuses_others() {
        use serde_json::json;
        assert_eq!(read(json!(0.5)), Ok(MeasureScale::Half));
        assert_eq!(read(json!(1)), Ok(MeasureScale::Printed));
        assert_eq!(read(json!(1.0)), Ok(MeasureScale::Printed));
        assert_eq!(read(json!(2)), Ok(MeasureScale::Double));
        assert_eq!(read(json!("2mm")), Ok(MeasureScale::Half));
        assert_eq!(read(json!("10 mm")), Ok(MeasureScale::Printed));
        assert_eq!(read(json!("28mm")), Ok(MeasureScale::Double));
        assert_eq!(read(json!({"figure_mm": 20})), Ok(MeasureScale::Double));
        let e = read(json!(1.5)).expect_err("1.5 is no scale");
        assert!(e.contains("measure_scale 1.5 is not a BAS-01 scale"), "{e}");
        let e = read(json!("54mm")).expect_err("54 mm is not in the rules");
        assert!(e.contains("\"54mm\""), "{e}");
        assert!(read(json!(true)).is_err());
        for m in MeasureScale::ALL {
            let text = serde_json::to_string(&m).expect("writes");
            assert_eq!(read(serde_json::from_str(&text).expect("json")), Ok(m));
        }
        assert_eq!(
            serde_json::to_string(&MeasureScale::Double).ok().as_deref(),
            Some("2")
        );
        assert_eq!(
            serde_json::to_string(&MeasureScale::Half).ok().as_deref(),
            Some("0.5")
        );
    }
}
