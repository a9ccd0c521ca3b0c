//! A scenario with every optional rule switched on, for the games that check the rules'
//! invariants with all of them in play (tests/autoplay.rs).

/// Ebelsberg with every optional rule switched on; the smallest brigade of
/// each side heads an allied army (OPT-NATION-03); the Austrian second HQ and its units are Hungarian, and so is
/// one unit of another Austrian HQ, which only the CO may then order (OPT-NATION-01).
pub fn ebelsberg_every_option() -> powderhorn::model::Scenario {
    use powderhorn::model::OptionalRule;
    let mut s = powderhorn::model::samples::scenarios()
        .expect("the samples parse")
        .into_iter()
        .find(|s| s.id.as_str() == "1809-ebelsberg")
        .expect("Ebelsberg");
    s.optional_rules = OptionalRule::ALL.to_vec();
    assert!(OptionalRule::ALL.iter().all(|r| r.implemented()));
    assert!(s.optional_rules.contains(&OptionalRule::FixedFormations));
    assert!(s.optional_rules.contains(&OptionalRule::MultiNational));
    // The ally: the French brigade with fewest units (a low breakpoint, so that some games see
    // it break).
    let smallest_brigade = |side: &powderhorn::model::Side| {
        side.hqs
            .iter()
            .filter(|h| h.parent.is_some() && !h.fao)
            .filter(|h| !side.hqs.iter().any(|c| c.parent == Some(h.id)))
            .filter(|h| side.units.iter().any(|u| u.hq == h.id))
            .min_by_key(|h| side.units.iter().filter(|u| u.hq == h.id).count())
            .map(|h| h.id)
            .expect("a brigade")
    };
    let ally = smallest_brigade(&s.sides[0]);
    let austrian_ally = smallest_brigade(&s.sides[1]);
    for (side, id) in [(0, ally), (1, austrian_ally)] {
        for h in s.sides[side].hqs.iter_mut().filter(|h| h.id == id) {
            h.ally = true;
        }
    }
    let austrian = &mut s.sides[1];
    let hungarian = austrian.hqs[1].id;
    austrian.hqs[1].nation = Some("Hungarian".into());
    for u in austrian.units.iter_mut().filter(|u| u.hq == hungarian) {
        u.nation = Some("Hungarian".into());
    }
    if let Some(u) = austrian.units.iter_mut().find(|u| u.hq != hungarian) {
        u.nation = Some("Hungarian".into());
    }
    assert!(s.sides[0]
        .units
        .iter()
        .any(|u| u.hq == ally || { s.sides[0].hq(u.hq).is_some_and(|h| h.parent == Some(ally)) }));
    s
}
