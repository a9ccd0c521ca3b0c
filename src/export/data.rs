//! What both printouts read from a scenario: the sides asked for, checked so that every later
//! step can trust them (list installed, units present, every troop type known), and the order
//! of battle walked in chain-of-command order.

use super::{hq_place, ExportError};
use crate::model::validate::effective_grade;
use crate::model::{ArmyList, Grade, Hq, HqId, Scenario, Side, TroopType, Unit};
use std::collections::BTreeSet;

/// A side to print, with its list. Every unit's troop type is known to be in `list`.
pub(crate) struct SideView<'a> {
    pub side: &'a Side,
    pub list: &'a ArmyList,
    /// Position in `scenario.sides` (the defender is named by index, DEF-01).
    pub index: usize,
}

impl<'a> SideView<'a> {
    /// The unit's row. Checked by [`select_sides`], so `None` only for a unit of another side.
    pub fn row(&self, unit: &Unit) -> Option<&'a TroopType> {
        self.list.troop_type(&unit.troop_type)
    }
}

/// The sides to print: the one named (case-insensitively) or all. Refuses an unknown side, a
/// missing list, a side with no units and a unit whose troop type is not in its list, so that
/// a bad scenario produces a message and no file.
pub(crate) fn select_sides<'a>(
    scenario: &'a Scenario,
    lists: &'a [ArmyList],
    wanted: Option<&str>,
) -> Result<Vec<SideView<'a>>, ExportError> {
    if scenario.sides.is_empty() {
        return Err(ExportError::NoSides {
            scenario: scenario.name.clone(),
        });
    }
    let chosen: Vec<(usize, &Side)> = match wanted.map(str::trim).filter(|w| !w.is_empty()) {
        None => scenario.sides.iter().enumerate().collect(),
        Some(w) => {
            let found: Vec<(usize, &Side)> = scenario
                .sides
                .iter()
                .enumerate()
                .filter(|(_, s)| s.name.trim().to_lowercase() == w.to_lowercase())
                .collect();
            if found.is_empty() {
                return Err(ExportError::UnknownSide {
                    scenario: scenario.name.clone(),
                    wanted: w.to_string(),
                    available: scenario
                        .sides
                        .iter()
                        .map(|s| format!("'{}'", s.name))
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
            found
        }
    };
    let mut out = Vec::new();
    for (index, side) in chosen {
        let Some(list) = scenario.list_for(side, lists) else {
            return Err(ExportError::MissingList {
                side: side.name.clone(),
                list: side.army_list.to_string(),
            });
        };
        if side.units.is_empty() {
            return Err(ExportError::EmptyOrderOfBattle {
                scenario: scenario.name.clone(),
                side: side.name.clone(),
            });
        }
        if let Some(u) = side
            .units
            .iter()
            .find(|u| list.troop_type(&u.troop_type).is_none())
        {
            return Err(ExportError::MissingTroopType {
                unit: u.name.clone(),
                troop_type: u.troop_type.to_string(),
                list: list.name.clone(),
            });
        }
        out.push(SideView { side, list, index });
    }
    Ok(out)
}

/// An HQ in chain-of-command order, with its depth below the CO and its "II/1" place.
pub(crate) struct HqEntry<'a> {
    pub hq: &'a Hq,
    pub depth: usize,
    pub place: String,
}

/// The HQs depth-first from the root(s), each followed by the HQs beneath it in file order;
/// HQs cut off by a broken chain (a cycle, a missing parent) come last, so nothing is lost.
pub(crate) fn hqs_in_order(side: &Side) -> Vec<HqEntry<'_>> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    fn walk<'a>(
        side: &'a Side,
        hq: &'a Hq,
        depth: usize,
        seen: &mut BTreeSet<HqId>,
        out: &mut Vec<HqEntry<'a>>,
    ) {
        if !seen.insert(hq.id) {
            return;
        }
        out.push(HqEntry {
            hq,
            depth,
            place: hq_place(side, hq.id),
        });
        for child in side.child_hqs(Some(hq.id)) {
            walk(side, child, depth + 1, seen, out);
        }
    }
    for root in side.child_hqs(None) {
        walk(side, root, 0, &mut seen, &mut out);
    }
    for hq in &side.hqs {
        if !seen.contains(&hq.id) {
            walk(side, hq, 0, &mut seen, &mut out);
        }
    }
    out
}

/// Units whose HQ is not in the side (validation reports them); printed at the end.
pub(crate) fn unattached_units(side: &Side) -> Vec<&Unit> {
    side.units
        .iter()
        .filter(|u| side.hq(u.hq).is_none())
        .collect()
}

/// The place printed for an HQ: "CO" for the commanding officer.
pub(crate) fn hq_place_label(place: &str) -> String {
    if place.is_empty() {
        "CO".to_string()
    } else {
        place.to_string()
    }
}

/// What a unit has beyond its row's numbers, in words: its grade when not Regular ("Elite",
/// "Poor": fixed by the row's notes, or bought for an ACW unit — `effective_grade`, ARMY-09),
/// "+ engineer stand", "lancers" …
pub(crate) fn unit_extras(unit: &Unit, row: &TroopType) -> Vec<&'static str> {
    let mut v = Vec::new();
    let grade = effective_grade(unit, row);
    if grade != Grade::Regular {
        v.push(grade.label());
    }
    if unit.engineer_attached {
        v.push("+ engineer stand");
    }
    if unit.lancers {
        v.push("lancers");
    }
    if unit.horse_artillery {
        v.push("horse artillery");
    }
    if unit.regimental_guns {
        v.push("regimental guns");
    }
    if unit.brigade_skirmishers {
        v.push("skirmish screen");
    }
    v
}

/// "1,2,21": a row's note numbers, as labels print them.
pub(crate) fn note_codes(row: &TroopType) -> String {
    row.notes
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
