//! A linked campaign stored and read back whole (schema 9 keeps its sides, links, carry rules
//! and victory condition beside the columns campaigns always had).

use powderhorn::model::{Campaign, WeatherLink};
use powderhorn::store::Store;

#[test]
fn a_linked_campaign_round_trips_through_the_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("p.sqlite");
    let camp: Campaign = serde_json::from_value(serde_json::json!({
        "id": "linked", "name": "Linked",
        "sides": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}],
        "battles": [
            {"scenario": "one"},
            {"scenario": "two", "sides": [1, 0],
             "link": {"days_after": 0, "weather": "continue", "same_ground": true}}
        ],
        "rules": {"recovery": {"winner": 40, "loser": 20, "draw": 30, "per_extra_day": 2, "cap": 60},
                  "knocked_out": {"back_if_field_kept": false, "back_at": 0},
                  "commanders": {"killed_up_to": 1, "captured_up_to": 2, "wounded_out_for": 2,
                                 "replacement_penalty": 1,
                                 "replacements": [{"side": 1, "hq": 3, "name": "Oberst K", "command_value": 8}]}},
        "victory": {"kind": "objective_held_at_end", "objective": "Vienna", "holder": 1}
    }))
    .expect("parses");
    {
        let mut store = Store::open(&db).expect("create");
        store.save_campaign(&camp).expect("save");
    }
    let store = Store::open(&db).expect("reopen");
    let back = store.load_campaign(&camp.id).expect("load");
    assert_eq!(back, camp);
    assert_eq!(back.battles[1].link.weather, WeatherLink::Continue);
}
