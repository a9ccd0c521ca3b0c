//! The shared scenario builder for tests: a two-sided scenario as JSON, each side with one HQ
//! (off the table unless placed), units added by troop row and pose. Include it with
//! `#[path = "support/builder.rs"] mod builder;` (a bench: `#[path = "../tests/support/builder.rs"]`).
//! New rules tests use this one builder instead of a copy of their own (issue #22 item 9).
#![allow(dead_code)]

use powderhorn::model::{ArmyList, Scenario};
use serde_json::{json, Value};

/// The shipped army lists.
pub fn lists() -> Vec<ArmyList> {
    powderhorn::model::army::shipped_lists().expect("the shipped lists parse")
}

pub fn pt(x: f64, y: f64) -> Value {
    json!({"x": x, "y": y})
}

pub fn ring(points: &[(f64, f64)]) -> Value {
    Value::Array(points.iter().map(|(x, y)| pt(*x, *y)).collect())
}

/// French line infantry (Napoleonic French list, 8/12 row).
pub const FR_LINE: &str = "line-infantry-08-12";
/// Austrian line infantry (Napoleonic Austrian list, 7/15 row).
pub const AUS_LINE: &str = "line-infantry-07-15";

/// A two-sided scenario being built.
pub struct Sc {
    pub v: Value,
    next_feature: u32,
}

impl Sc {
    pub fn new(list0: &str, list1: &str) -> Sc {
        let hq = |id: u32, name: &str| {
            json!({
                "id": id, "name": name,
                "commander": {"id": id, "name": name, "level": "brigade", "quality": "average",
                              "command_value": 7},
                "mounted": true, "position": null
            })
        };
        Sc {
            v: json!({
                "format": 1, "id": "test", "name": "Test",
                "points": 1500, "turn_limit": 6, "terrain": [],
                "sides": [
                    {"name": "Side A", "army_list": list0, "hqs": [hq(1, "Brigade A")],
                     "units": []},
                    {"name": "Side B", "army_list": list1, "hqs": [hq(2, "Brigade B")],
                     "units": []}
                ]
            }),
            next_feature: 1,
        }
    }

    /// French against Austrians, 1809.
    pub fn nap() -> Sc {
        Sc::new("nap-french", "nap-austrian").set("year", json!(1809))
    }

    pub fn set(mut self, key: &str, v: Value) -> Sc {
        self.v[key] = v;
        self
    }

    /// A unit of `stands` stands of `troop`, its front edge's centre at (x, y), facing `f`°.
    #[allow(clippy::too_many_arguments)]
    pub fn unit(
        mut self,
        side: usize,
        id: u32,
        troop: &str,
        stands: u8,
        x: f64,
        y: f64,
        f: f64,
    ) -> Sc {
        let hq = if side == 0 { 1 } else { 2 };
        let u = json!({"id": id, "name": format!("{troop} {id}"), "troop_type": troop,
                       "stands": stands, "hq": hq,
                       "position": {"at": pt(x, y), "facing_deg": f}});
        if let Some(units) = self.v["sides"][side]["units"].as_array_mut() {
            units.push(u);
        }
        self
    }

    pub fn hq_at(mut self, side: usize, x: f64, y: f64) -> Sc {
        self.v["sides"][side]["hqs"][0]["position"] = json!({"at": pt(x, y), "facing_deg": 0.0});
        self
    }

    pub fn feature(mut self, kind: &str, geometry: Value) -> Sc {
        let f = json!({"id": self.next_feature, "name": format!("{kind} {}", self.next_feature),
                       "kind": kind, "geometry": geometry});
        self.next_feature += 1;
        if let Some(t) = self.v["terrain"].as_array_mut() {
            t.push(f);
        }
        self
    }

    pub fn scenario(&self) -> Scenario {
        serde_json::from_value(self.v.clone()).expect("the test scenario parses")
    }
}
