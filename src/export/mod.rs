//! Printable output: PDF rosters and unit stat labels sized to real bases (from the export
//! issue on). Reads model values and writes bytes; the only file it writes is the one it is
//! asked for, whole or not at all. Must not import egui or rusqlite.

use crate::model::{ArmyList, Side, TroopType, Unit};

/// The compact label line of a unit ("M10 A1/10 H3 S5+ 75pt"), shared by rosters, labels and
/// the editor so all three always agree.
pub fn unit_stat_line(unit: &Unit, row: &TroopType, list: &ArmyList) -> String {
    let mut line = row.stat_line();
    let pts = crate::model::points::unit_points(unit, list);
    line.push_str(&format!(" = {} stands, {pts}pt", unit.stands));
    line
}

/// "II/1"-style place of a unit in its side's chain of command, in Roman numerals for the
/// first level below the CO and Arabic below that, as order-of-battle labels are written.
pub fn oob_place(side: &Side, unit: &Unit) -> String {
    let path = side.hq_path(unit.hq);
    path.iter()
        .enumerate()
        .map(|(i, n)| if i == 0 { roman(*n) } else { n.to_string() })
        .collect::<Vec<_>>()
        .join("/")
}

fn roman(mut n: usize) -> String {
    const TABLE: [(usize, &str); 9] = [
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut s = String::new();
    for (v, r) in TABLE {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::roman;

    #[test]
    fn roman_numerals() {
        assert_eq!(roman(1), "I");
        assert_eq!(roman(4), "IV");
        assert_eq!(roman(14), "XIV");
    }
}
