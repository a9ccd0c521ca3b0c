//! What a rule ID is about, in our own words, for the window's tooltips (hover a rule ID in
//! the dice log or a refusal). This is the family level: every catalogue ID belongs to one of
//! these parts of the rules. Per-rule gists (an in-app rules reference for every ID the engine
//! cites) are the battle window issue's item 5 and come next.

/// The part of the rules a catalogue ID (e.g. "FIRE-14") belongs to, in our own words. Our
/// own data checks ("DATA-…") and anything unknown get a plain answer, never an empty one.
pub fn gist(rule: &str) -> String {
    let family = rule.split('-').next().unwrap_or(rule);
    let text = match family {
        "BAS" => "Basics: the table, the scale of the miniatures and how stands are based.",
        "GEN" => "General principles: units of stands, attacks, hits, saves, knock-outs, suppression and disorder.",
        "SEQ" => "Sequence of play: each player turn runs Initiative, Command, Charge and End phases in turn.",
        "INIT" => "Initiative: what units may do on their own before any orders are given.",
        "CMD" => "Command: orders from commanders, the 2D6 command roll and its modifiers.",
        "MOVE" => "Movement and formations: how far and how units move, turn and change formation.",
        "FIRE" => "Firing: ranges, dice per stand, scores to hit, cover, saves and suppression.",
        "ART" => "Artillery: guns, their loads, limbers and special fire.",
        "CHG" => "Charges and close combat: declaring, responding, fighting and what follows.",
        "VIS" => "Visibility: who can see whom, through and over terrain.",
        "TERR" => "Terrain: what woods, towns, hills, water and obstacles do to movement, sight and cover.",
        "END" => "The End phase and the end of the battle: hits turn into lost stands; turn limits.",
        "BRK" => "Breakpoints: when an army has lost too much and must withdraw.",
        "VP" => "Victory points: what each side earns for what the other lost.",
        "OBJ" => "Objectives: what each side must take or hold to win.",
        "DEF" => "Field defences: trenches, barricades and the like, bought before the battle.",
        "ENG" => "Engineers: clearing, bridging, demolishing and sapping.",
        "SKIR" => "Skirmishers: a brigade's screen of light troops.",
        "PIKE" => "Pikes: units that still carry them.",
        "ARMY" => "Army building: how a force is chosen from its list.",
        "COL" => "Colonial warfare: the special rules of colonial battles.",
        "OPT" => "An optional rule a scenario may switch on.",
        "SOLO" => "Playing alone.",
        "DATA" => "A check of the data itself (a reference or a value the rules cannot use).",
        _ => "",
    };
    if text.is_empty() {
        format!("{rule}: no summary for this rule yet")
    } else {
        format!("{rule} — {text}")
    }
}

#[cfg(test)]
mod tests {
    use super::gist;

    #[test]
    fn every_family_has_words_and_unknown_ids_say_so() {
        assert!(gist("FIRE-14").contains("Firing"));
        assert!(gist("OPT-WEATHER-02").contains("optional rule"));
        assert!(gist("XYZ-1").contains("no summary"));
    }
}
