//! The optional rules the window marks "not yet played" are exactly those the rules engine does
//! not read (#22 item 6): an option is `implemented()` if and only if src/rules names it.

use powderhorn::model::scenario::OptionalRule;

/// The variant as it is written in code: `OptionalRule::Night`.
fn variant(rule: OptionalRule) -> String {
    format!("OptionalRule::{rule:?}")
}

#[test]
fn an_option_is_marked_played_exactly_when_the_engine_reads_it() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let mut source = String::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            source.push_str(&std::fs::read_to_string(&p).unwrap());
        }
    }
    let mut checked = 0;
    for rule in OptionalRule::ALL {
        // `OptionalRule::MoraleGrades` is a prefix of `…InCharge`: match the whole name.
        let name = variant(rule);
        let read = source.match_indices(&name).any(|(i, _)| {
            !source[i + name.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
        });
        assert_eq!(
            rule.implemented(),
            read,
            "{rule:?}: marked {} but src/rules {} it",
            if rule.implemented() {
                "played"
            } else {
                "not yet played"
            },
            if read { "reads" } else { "never reads" }
        );
        checked += 1;
    }
    assert_eq!(checked, OptionalRule::ALL.len());
}
