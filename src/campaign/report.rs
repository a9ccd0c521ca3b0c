//! The carry report: every change the campaign made to its forces, each with its reason in our
//! own words, for a person to read and for tests to check.

use serde::{Deserialize, Serialize};
use std::fmt;

/// What a change is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A unit's stands (lost in battle, back by recovery, reset with losses switched off).
    Stands,
    /// A unit as a whole: knocked out, gone, back at part strength, left out of a battle.
    Unit,
    /// A commander: fallen (killed, captured, wounded), replaced, back from his wound.
    Commander,
    /// The weather a battle starts with.
    Weather,
    /// A field defence (lost, kept lost on the same ground, not carried).
    Defence,
    /// Victory points into the tally.
    Vps,
}

impl ChangeKind {
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::Stands => "stands",
            ChangeKind::Unit => "unit",
            ChangeKind::Commander => "commander",
            ChangeKind::Weather => "weather",
            ChangeKind::Defence => "defence",
            ChangeKind::Vps => "VPs",
        }
    }
}

/// A value before or after a change: a count or a word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CarryValue {
    Count(i64),
    Text(String),
}

impl CarryValue {
    pub fn text(s: impl Into<String>) -> CarryValue {
        CarryValue::Text(s.into())
    }
    /// The count, if it is one.
    pub fn count(&self) -> Option<i64> {
        match self {
            CarryValue::Count(n) => Some(*n),
            CarryValue::Text(_) => None,
        }
    }
}

impl From<u8> for CarryValue {
    fn from(n: u8) -> Self {
        CarryValue::Count(i64::from(n))
    }
}

impl From<i64> for CarryValue {
    fn from(n: i64) -> Self {
        CarryValue::Count(n)
    }
}

impl fmt::Display for CarryValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CarryValue::Count(n) => write!(f, "{n}"),
            CarryValue::Text(s) => f.write_str(s),
        }
    }
}

/// One change, with its reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub kind: ChangeKind,
    /// The campaign side (in the campaign's order); `None` for the weather.
    pub side: Option<usize>,
    /// The unit id, the command unit (HQ) id of a commander, or the defence id, as the campaign
    /// knows them; `None` for the weather.
    pub id: Option<u32>,
    /// The unit's, commander's or defence's name ("" for the weather).
    pub name: String,
    pub from: CarryValue,
    pub to: CarryValue,
    /// Why, in our words, citing the rule or the campaign's own carry rule.
    pub why: String,
    /// The dice rolled for this change, in order (empty when none were).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<u8>,
}

impl Change {
    /// "French 102 4e Ligne: stands 6 → 4: lost in the battle (END-01)".
    /// The line as it reads under its side's heading: the side's name is not repeated.
    pub fn line_under_side(&self, side_names: &[String]) -> String {
        Change {
            side: None,
            ..self.clone()
        }
        .line(side_names)
    }

    pub fn line(&self, side_names: &[String]) -> String {
        let mut who = String::new();
        if let Some(s) = self.side {
            who.push_str(side_names.get(s).map_or("?", String::as_str));
            who.push(' ');
        }
        if !self.name.is_empty() {
            who.push_str(&self.name);
        }
        let who = who.trim();
        let dice = if self.dice.is_empty() {
            String::new()
        } else {
            let d: Vec<String> = self.dice.iter().map(u8::to_string).collect();
            format!(" [dice {}]", d.join(" "))
        };
        // A unit's fate reads in stands: "4 stands → knocked out", "knocked out → 2 stands".
        let (label, from, to) = match self.kind {
            ChangeKind::Unit => (
                String::new(),
                stands_words(&self.from),
                stands_words(&self.to),
            ),
            k => (
                format!("{} ", k.label()),
                self.from.to_string(),
                self.to.to_string(),
            ),
        };
        if who.is_empty() {
            let head = label.trim_end();
            let head = if head.is_empty() {
                String::new()
            } else {
                format!("{head}: ")
            };
            format!("{head}{from} → {to}: {}{dice}", self.why)
        } else {
            format!("{who}: {label}{from} → {to}: {}{dice}", self.why)
        }
    }
}

fn stands_words(v: &CarryValue) -> String {
    match v.count() {
        Some(1) => "1 stand".to_string(),
        Some(n) => format!("{n} stands"),
        None => v.to_string(),
    }
}

/// Every change of one step of the campaign (a battle's outcome, or the carry into a battle).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarryReport {
    pub changes: Vec<Change>,
}

impl CarryReport {
    pub fn push(&mut self, c: Change) {
        self.changes.push(c);
    }
    pub fn extend(&mut self, other: CarryReport) {
        self.changes.extend(other.changes);
    }
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
    /// The changes of one kind, in order.
    pub fn of_kind(&self, kind: ChangeKind) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(move |c| c.kind == kind)
    }
    /// The changes to one unit (or commander, by `kind`) of a campaign side.
    pub fn about(&self, kind: ChangeKind, side: usize, id: u32) -> impl Iterator<Item = &Change> {
        self.changes
            .iter()
            .filter(move |c| c.kind == kind && c.side == Some(side) && c.id == Some(id))
    }
    /// The report in words, one change a line.
    pub fn lines(&self, side_names: &[String]) -> Vec<String> {
        self.changes.iter().map(|c| c.line(side_names)).collect()
    }
    /// Every die rolled, in order.
    pub fn dice(&self) -> Vec<u8> {
        self.changes
            .iter()
            .flat_map(|c| c.dice.iter().copied())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_under_its_sides_heading_does_not_repeat_the_side() {
        let c = Change {
            kind: ChangeKind::Unit,
            side: Some(1),
            id: Some(7),
            name: "IR 14 Klebek".into(),
            from: CarryValue::Count(6),
            to: CarryValue::Count(4),
            why: "2 stands lost".into(),
            dice: vec![],
        };
        let names = ["French".to_string(), "Austrian".to_string()];
        assert_eq!(
            c.line(&names),
            "Austrian IR 14 Klebek: 6 stands → 4 stands: 2 stands lost"
        );
        assert_eq!(
            c.line_under_side(&names),
            "IR 14 Klebek: 6 stands → 4 stands: 2 stands lost"
        );
    }
}
