//! Field defences (DEF-01..06): the items a defender may buy, their costs and availability.
//! The table is data ([`DefenseKind::spec`]) so that the editor, validation, rosters and the
//! engine read the same numbers.

use super::ids::{DefenseId, UnitId};
use crate::geom::Point;
use serde::{Deserialize, Serialize};

/// DEF-03: the field-defence items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefenseKind {
    Trench,
    Wire,
    Ditch,
    Stakes,
    DugOut,
    BreastWorks,
    LogWorks,
    FortifiedWorks,
    Fortification,
}

/// The cover a work gives its occupant (DEF-04, FIRE-15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cover {
    Open,
    Soft,
    Hard,
    Full,
}

/// One row of the DEF-03 table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefenseSpec {
    pub label: &'static str,
    pub what: &'static str,
    /// Points per item (per unit dug in, per 10 cm of wire, per 10 × 5 cm section).
    pub cost: u32,
    pub hasty: bool,
    pub fixed: bool,
    /// DEF-04 ruling.
    pub cover: Cover,
    /// DEF-04: obstacles only (TERR-13).
    pub obstacle: bool,
}

impl DefenseKind {
    pub const ALL: [DefenseKind; 9] = [
        DefenseKind::Trench,
        DefenseKind::Wire,
        DefenseKind::Ditch,
        DefenseKind::Stakes,
        DefenseKind::DugOut,
        DefenseKind::BreastWorks,
        DefenseKind::LogWorks,
        DefenseKind::FortifiedWorks,
        DefenseKind::Fortification,
    ];

    /// DEF-03 (costs and availability) and DEF-04 (effects).
    pub fn spec(self) -> DefenseSpec {
        use Cover::*;
        let (label, what, cost, hasty, fixed, cover, obstacle) = match self {
            DefenseKind::Trench => ("Trench", "digs in one unit", 5, true, true, Soft, false),
            DefenseKind::Wire => (
                "Wire",
                "10 cm length of wire obstacle",
                5,
                false,
                true,
                Open,
                true,
            ),
            DefenseKind::Ditch => (
                "Ditch",
                "10 x 5 cm steep ditch",
                25,
                false,
                true,
                Open,
                true,
            ),
            DefenseKind::Stakes => (
                "Stakes",
                "10 x 5 cm section of stakes or abatis",
                25,
                true,
                true,
                Open,
                true,
            ),
            DefenseKind::DugOut => (
                "Dug-Out",
                "shelters one command or artillery unit",
                25,
                false,
                true,
                Soft,
                false,
            ),
            DefenseKind::BreastWorks => (
                "Breast Works",
                "10 x 5 cm section of light cover",
                25,
                true,
                true,
                Soft,
                false,
            ),
            DefenseKind::LogWorks => (
                "Log Works",
                "10 x 5 cm section of medium cover",
                50,
                false,
                true,
                Hard,
                false,
            ),
            DefenseKind::FortifiedWorks => (
                "Fortified Works",
                "10 x 5 cm section of heavy cover",
                75,
                false,
                true,
                Hard,
                false,
            ),
            DefenseKind::Fortification => (
                "Fortification",
                "10 x 5 cm section of overhead cover",
                100,
                false,
                true,
                Full,
                false,
            ),
        };
        DefenseSpec {
            label,
            what,
            cost,
            hasty,
            fixed,
            cover,
            obstacle,
        }
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }
}

/// A bought field defence, placed in the defender's deployment area (DEF-05).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldDefense {
    pub id: DefenseId,
    pub kind: DefenseKind,
    /// Sections bought (each 10 cm, or one unit for Trench / Dug-Out).
    #[serde(default = "one")]
    pub sections: u32,
    /// Where it stands: a polyline along its front (works, wire) or a polygon.
    #[serde(default)]
    pub at: Vec<Point>,
    /// Trench and Dug-Out: the unit sheltered.
    #[serde(default)]
    pub occupant: Option<UnitId>,
}

fn one() -> u32 {
    1
}

impl FieldDefense {
    /// DEF-03: cost × sections.
    pub fn cost(&self) -> u32 {
        self.kind.spec().cost * self.sections
    }
}

/// DEF-05: a section's length along its front, cm (each bought section is 10 × 5 cm).
pub const SECTION_LENGTH_CM: f64 = 10.0;
/// DEF-05: slack on the drawn length, cm (drawing, not measuring, error).
const LENGTH_SLACK_CM: f64 = 0.5;

impl FieldDefense {
    /// DEF-05: what is wrong with where this defence is placed — outside the owner's deployment
    /// zone (when the scenario draws one), or a work or obstacle drawn longer than its sections
    /// (10 cm each). Unplaced defences (no points yet) have nothing to check.
    pub fn placement_problems(&self, deployment_zone: &[Point]) -> Vec<String> {
        let spec = self.kind.spec();
        let mut out = Vec::new();
        // A Trench or Dug-Out takes its occupant's size; one bought for several units (WE-15)
        // names none, so no occupant is required here.
        let shelters = matches!(self.kind, DefenseKind::Trench | DefenseKind::DugOut);
        if self.at.is_empty() {
            return out;
        }
        if deployment_zone.len() >= 3
            && !self
                .at
                .iter()
                .all(|p| crate::geom::ring_contains(deployment_zone, *p))
        {
            out.push(format!(
                "{} {} lies outside its side's deployment area",
                spec.label, self.id.0
            ));
        }
        if !shelters && self.at.len() >= 2 {
            let len = crate::geom::polyline_length(&self.at).0;
            let max = SECTION_LENGTH_CM * f64::from(self.sections);
            if len > max + LENGTH_SLACK_CM {
                out.push(format!(
                    "{} {} is drawn {len:.1} cm long; {} section(s) of 10 cm reach {max:.0} cm",
                    spec.label, self.id.0, self.sections
                ));
            }
        }
        out
    }
}

impl DefenseKind {
    /// DEF-05: a Trench or Dug-Out is the size of the unit it shelters, so it is put down at a
    /// spot; every other item is a line of 10 cm sections.
    pub fn shelters(self) -> bool {
        matches!(self, DefenseKind::Trench | DefenseKind::DugOut)
    }

    /// DEF-03: may a defender of this posture buy it? Nothing is available without one.
    pub fn available(self, posture: super::scenario::DefensePosture) -> bool {
        let spec = self.spec();
        match posture {
            super::scenario::DefensePosture::None => false,
            super::scenario::DefensePosture::Hasty => spec.hasty,
            super::scenario::DefensePosture::Fixed => spec.fixed,
        }
    }
}

/// DEF-05: the longest a line of `sections` sections may be drawn, cm.
pub fn max_length_cm(sections: u32) -> f64 {
    SECTION_LENGTH_CM * f64::from(sections)
}

/// DEF-05: the polyline `points` cut back to at most `max_cm` along its length: the points up
/// to that length kept, the one beyond it moved back along its segment. A line already short
/// enough comes back as it is.
///
/// ```
/// use powderhorn::geom::Point;
/// use powderhorn::model::defense::cut_line_to_length;
/// let l = cut_line_to_length(&[Point::new(0.0, 0.0), Point::new(30.0, 40.0)], 20.0);
/// assert_eq!(l, vec![Point::new(0.0, 0.0), Point::new(12.0, 16.0)]);
/// ```
pub fn cut_line_to_length(points: &[Point], max_cm: f64) -> Vec<Point> {
    let mut out: Vec<Point> = Vec::new();
    let mut left = max_cm.max(0.0);
    for p in points {
        let Some(last) = out.last().copied() else {
            out.push(*p);
            continue;
        };
        let d = last.distance(*p).0;
        if d <= left {
            out.push(*p);
            left -= d;
        } else {
            if left > 1e-9 && d > 0.0 {
                let t = left / d;
                out.push(Point::new(
                    last.x + (p.x - last.x) * t,
                    last.y + (p.y - last.y) * t,
                ));
            }
            break;
        }
    }
    out
}

/// The next field-defence id: the largest on any side plus one.
pub fn next_defense_id(s: &super::Scenario) -> DefenseId {
    DefenseId(
        s.sides
            .iter()
            .flat_map(|d| d.field_defenses.iter())
            .map(|d| d.id.0)
            .max()
            .map_or(1, |m| m + 1),
    )
}

/// DEF-02: the points a side has spent on field defences.
pub fn defense_spent(side: &super::Side) -> u32 {
    side.field_defenses.iter().map(FieldDefense::cost).sum()
}

/// DEF-01..03: why the side may not buy `d` (or `d` in place of its defence of the same id):
/// the first DEF-01, DEF-02 or DEF-03 violation that `validate_scenario` finds with it bought —
/// no defender or posture, not the defender, an item the posture does not offer, the budget
/// overspent. `None`: the purchase is within the rules. Placement (DEF-05) is not a reason to
/// refuse: it is shown, like every other placement problem.
pub fn purchase_refusal(
    s: &super::Scenario,
    lists: &[super::ArmyList],
    side: usize,
    d: &FieldDefense,
) -> Option<super::validate::Violation> {
    use super::validate::{validate_scenario, Subject, Violation};
    let mut probe = s.clone();
    let Some(slot) = probe.sides.get_mut(side) else {
        return Some(Violation {
            rule: "DEF-01",
            subject: Subject::Scenario,
            message: format!(
                "side {} does not exist: field defences are bought by the defender",
                side + 1
            ),
        });
    };
    match slot.field_defenses.iter_mut().find(|x| x.id == d.id) {
        Some(x) => *x = d.clone(),
        None => slot.field_defenses.push(d.clone()),
    }
    validate_scenario(&probe, lists).into_iter().find(|v| {
        matches!(v.rule, "DEF-01" | "DEF-02" | "DEF-03")
            && match v.subject {
                Subject::Scenario => true,
                Subject::Side(i) => i == side,
                Subject::Defense(i, id) => i == side && id == d.id,
                _ => false,
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::army::shipped_lists;
    use crate::model::{samples, DefensePosture, Scenario};

    fn ebelsberg() -> Scenario {
        samples::scenario("1809-ebelsberg").expect("the sample")
    }

    fn item(id: u32, kind: DefenseKind, sections: u32) -> FieldDefense {
        FieldDefense {
            id: DefenseId(id),
            kind,
            sections,
            at: Vec::new(),
            occupant: None,
        }
    }

    #[test]
    fn def_05_a_line_is_cut_back_to_what_its_sections_reach() {
        // Two segments of 10 and 20 cm: 25 cm keeps the corner and half of the second leg.
        let l = [
            Point::new(0.0, 0.0),
            Point::new(10.0, 0.0),
            Point::new(10.0, 20.0),
        ];
        assert_eq!(
            cut_line_to_length(&l, 25.0),
            vec![
                Point::new(0.0, 0.0),
                Point::new(10.0, 0.0),
                Point::new(10.0, 15.0)
            ]
        );
        // Short enough already: unchanged.
        assert_eq!(cut_line_to_length(&l, 30.0), l.to_vec());
        assert_eq!(max_length_cm(3), 30.0);
    }

    #[test]
    fn def_03_what_a_hasty_and_a_fixed_defence_may_buy() {
        let hasty: Vec<DefenseKind> = DefenseKind::ALL
            .into_iter()
            .filter(|k| k.available(DefensePosture::Hasty))
            .collect();
        assert_eq!(
            hasty,
            vec![
                DefenseKind::Trench,
                DefenseKind::Stakes,
                DefenseKind::BreastWorks
            ]
        );
        assert!(DefenseKind::ALL
            .iter()
            .all(|k| k.available(DefensePosture::Fixed)));
        assert!(DefenseKind::ALL
            .iter()
            .all(|k| !k.available(DefensePosture::None)));
        assert!(DefenseKind::Trench.shelters() && DefenseKind::DugOut.shelters());
        assert!(!DefenseKind::Wire.shelters());
    }

    /// WE-15, hasty defence of 1,500 points: cap 150. 2 Trench (10) + 3 Stakes (75) + 2 Breast
    /// Works (50) = 135 is legal; a fourth section of Stakes makes 160 and is refused.
    #[test]
    fn def_02_we_15_the_hasty_purchase_over_150_is_refused() {
        let lists = shipped_lists().expect("lists");
        let mut s = ebelsberg();
        s.points = 1500;
        s.defense = DefensePosture::Hasty;
        let side = s.defender.expect("the sample has a defender");
        s.sides[side].field_defenses = vec![
            item(1, DefenseKind::Trench, 2),
            item(2, DefenseKind::BreastWorks, 2),
        ];
        assert_eq!(defense_spent(&s.sides[side]), 60);
        let stakes3 = item(3, DefenseKind::Stakes, 3);
        assert_eq!(purchase_refusal(&s, &lists, side, &stakes3), None);
        let stakes4 = item(3, DefenseKind::Stakes, 4);
        let v = purchase_refusal(&s, &lists, side, &stakes4).expect("over the cap");
        assert_eq!(v.rule, "DEF-02");
        assert!(
            v.message.contains("160") && v.message.contains("150"),
            "{v}"
        );
        // Log Works are a fixed-defence item, whatever the cost (WE-15).
        let logs = item(3, DefenseKind::LogWorks, 1);
        assert_eq!(
            purchase_refusal(&s, &lists, side, &logs).map(|v| v.rule),
            Some("DEF-03")
        );
        // The attacker may buy nothing (DEF-02 ruling).
        let other = 1 - side;
        assert_eq!(
            purchase_refusal(&s, &lists, other, &item(9, DefenseKind::Trench, 1)).map(|v| v.rule),
            Some("DEF-02")
        );
        assert_eq!(next_defense_id(&s), DefenseId(3));
    }
}
