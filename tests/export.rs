//! PDF rosters and base labels (export issue): the PDFs parse, carry every unit, are on the
//! paper asked for; labels are the BAS-03 base sizes to 0.1 mm and their text never leaves
//! them; a second rules system's labels are only a layout description; bad scenarios give a
//! message and no file; files are replaced only by complete PDFs.

use lopdf::Document;
use powderhorn::export::*;
use powderhorn::model::army::shipped_lists;
use powderhorn::model::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Ebelsberg, 3 May 1809, as a test order of battle (the shipped sample is being finalised
/// separately; [`shipped_sample_exports_or_explains`] covers it).
const EBELSBERG: &str = r#"{
  "format": 1, "id": "test-ebelsberg", "name": "Ebelsberg, 3 May 1809", "date": "3 May 1809",
  "year": 1809, "scale": "battalion", "points": 3000, "turn_limit": 10,
  "defense": "hasty", "defender": 1,
  "sides": [
    {
      "name": "French", "army_list": "nap-french", "colour": [40, 70, 160],
      "hqs": [
        {"id": 1, "name": "IV Corps (Masséna)", "commander": {"id": 1, "name": "Maréchal Masséna", "level": "corps", "quality": "exceptional", "command_value": 10, "note": "Duke of Rivoli; pushed the advance guard across the Traun bridge."}},
        {"id": 2, "name": "2e Division (Claparède)", "parent": 1, "commander": {"id": 2, "name": "GD Claparède", "level": "division", "quality": "average", "command_value": 8}},
        {"id": 3, "name": "1re Brigade (Coëhorn)", "parent": 2, "commander": {"id": 3, "name": "GB Coëhorn", "level": "brigade", "quality": "exceptional", "command_value": 8}},
        {"id": 4, "name": "2e Brigade (Lesuire)", "parent": 2, "commander": {"id": 4, "name": "GB Lesuire", "level": "brigade", "quality": "average", "command_value": 7}},
        {"id": 5, "name": "Cavalerie légère (Marulaz)", "parent": 1, "commander": {"id": 5, "name": "GB Marulaz", "level": "brigade", "quality": "average", "command_value": 7}}
      ],
      "units": [
        {"id": 1, "name": "Tirailleurs corses", "troop_type": "light-infantry-08-12", "stands": 4, "hq": 3},
        {"id": 2, "name": "Tirailleurs du Pô", "troop_type": "light-infantry-08-12", "stands": 4, "hq": 3},
        {"id": 3, "name": "26e Léger", "troop_type": "light-infantry-08-12", "stands": 6, "hq": 3},
        {"id": 4, "name": "27e Léger", "troop_type": "light-infantry-08-12", "stands": 4, "hq": 4},
        {"id": 5, "name": "4e Ligne", "troop_type": "line-infantry-08-12", "stands": 6, "hq": 4, "engineer_attached": true},
        {"id": 6, "name": "18e Ligne", "troop_type": "line-infantry-08-12", "stands": 6, "hq": 4, "brigade_skirmishers": true},
        {"id": 7, "name": "Artillerie de la 2e Division", "troop_type": "field-artillery", "stands": 2, "hq": 2},
        {"id": 8, "name": "3e Chasseurs à cheval", "troop_type": "light-cavalry-05-12", "stands": 4, "hq": 5},
        {"id": 9, "name": "14e Chasseurs à cheval", "troop_type": "light-cavalry-05-12", "stands": 4, "hq": 5},
        {"id": 10, "name": "Bataillon provisoire de grenadiers réunis de la 2e Division d'infanterie", "troop_type": "grenadier", "stands": 4, "hq": 1}
      ]
    },
    {
      "name": "Austrian", "army_list": "nap-austrian", "colour": [200, 40, 40],
      "hqs": [
        {"id": 10, "name": "VI. Armeekorps (Hiller)", "commander": {"id": 10, "name": "FML Hiller", "level": "corps", "quality": "average", "command_value": 9}},
        {"id": 11, "name": "Brigade Hohenfeld", "parent": 10, "commander": {"id": 11, "name": "GM Hohenfeld", "level": "brigade", "quality": "average", "command_value": 7}},
        {"id": 12, "name": "Brigade Weissenwolf", "parent": 10, "commander": {"id": 12, "name": "GM Weissenwolf", "level": "brigade", "quality": "uninspiring", "command_value": 6}},
        {"id": 13, "name": "Reserve-Kavallerie", "parent": 10, "commander": {"id": 13, "name": "GM Vincent", "level": "brigade", "quality": "average", "command_value": 7}}
      ],
      "units": [
        {"id": 20, "name": "IR 14 Klebek, 1. Bataillon", "troop_type": "line-infantry-07-15", "stands": 5, "hq": 11},
        {"id": 21, "name": "IR 14 Klebek, 2. Bataillon", "troop_type": "line-infantry-07-15", "stands": 5, "hq": 11},
        {"id": 22, "name": "Grenz Bn 2", "troop_type": "grenz-infantry", "stands": 4, "hq": 11},
        {"id": 23, "name": "Wiener Freiwillige", "troop_type": "landwehr-infantry", "stands": 4, "hq": 12},
        {"id": 24, "name": "IR 49 Kerpen", "troop_type": "line-infantry-07-15", "stands": 5, "hq": 12},
        {"id": 25, "name": "Jäger-Bataillon 9", "troop_type": "jager-infantry", "stands": 4, "hq": 12},
        {"id": 26, "name": "Kavalleriebatterie", "troop_type": "horse-artillery", "stands": 2, "hq": 13},
        {"id": 27, "name": "Chevaulegers O'Reilly", "troop_type": "light-cavalry", "stands": 4, "hq": 13},
        {"id": 28, "name": "Positionsbatterie Schloss", "troop_type": "fortress-artillery", "stands": 1, "hq": 10}
      ],
      "field_defenses": [
        {"id": 1, "kind": "breast_works", "sections": 2},
        {"id": 2, "kind": "trench", "sections": 1, "occupant": 22}
      ]
    }
  ]
}"#;

fn lists() -> Vec<ArmyList> {
    shipped_lists().expect("shipped lists parse")
}

fn ebelsberg() -> Scenario {
    parse_scenario("ebelsberg-test.json", EBELSBERG).expect("fixture parses")
}

fn parse(bytes: &[u8]) -> Document {
    Document::load_mem(bytes).expect("the PDF parses")
}

/// Text of each page, with runs of whitespace collapsed.
fn page_texts(doc: &Document) -> Vec<String> {
    doc.get_pages()
        .keys()
        .map(|n| {
            let t = doc.extract_text(&[*n]).expect("text extracts");
            t.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

fn all_text(doc: &Document) -> String {
    page_texts(doc).join(" ")
}

/// (width, height) of each page's MediaBox, in points.
fn media_boxes(doc: &Document) -> Vec<(f32, f32)> {
    doc.get_pages()
        .values()
        .map(|id| {
            let page = doc.get_dictionary(*id).expect("page dict");
            let mb = page
                .get(b"MediaBox")
                .and_then(|o| o.as_array())
                .expect("MediaBox");
            let v: Vec<f32> = mb
                .iter()
                .map(|o| {
                    o.as_float()
                        .or_else(|_| o.as_i64().map(|i| i as f32))
                        .unwrap()
                })
                .collect();
            (v[2] - v[0], v[3] - v[1])
        })
        .collect()
}

/// Text with all whitespace removed, so that a name wrapped onto two rows (or split after a
/// hyphen) still matches.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect()
}

/// All the text of a label, rows joined.
fn label_text(l: &PlacedLabel) -> String {
    l.texts
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn roster_parses_has_its_pages_and_names_every_unit_and_commander() {
    let s = ebelsberg();
    let bytes = roster_pdf(&s, &lists(), &RosterOptions::default()).unwrap();
    let doc = parse(&bytes);
    let pages = page_texts(&doc);
    assert!(pages.len() >= 2, "one section per side at least");
    // Page numbers run through the file, with each side's own count beside them (#22 item 6):
    // "page 3 of 4 (Austrian, 1 of 2)".
    let total = pages.len();
    let mut expected = Vec::new();
    for side in ["French", "Austrian"] {
        let n = pages
            .iter()
            .filter(|p| {
                p.contains(&format!(
                    "Powderhorn roster · Ebelsberg, 3 May 1809 · {side}"
                ))
            })
            .count();
        assert!(n >= 1, "{side} has pages");
        for k in 1..=n {
            let at = expected.len() + 1;
            expected.push(format!("page {at} of {total} ({side}, {k} of {n})"));
        }
    }
    assert_eq!(expected.len(), pages.len());
    for (p, e) in pages.iter().zip(&expected) {
        assert!(p.contains(e), "expected '{e}' on page: {p}");
    }
    let text = all_text(&doc);
    for side in &s.sides {
        for u in &side.units {
            assert!(
                text.contains(&u.name) || text.contains(&first_words(&u.name)),
                "unit {} missing",
                u.name
            );
        }
        for h in &side.hqs {
            assert!(
                text.contains(&h.commander.name),
                "commander {} missing",
                h.commander.name
            );
        }
    }
    for needle in [
        "Breakpoint",
        "Field defences",
        "Breast Works",
        "Attack Column Charge",
        "BP",
    ] {
        assert!(text.contains(needle), "{needle} missing");
    }
}

/// A long unit name may wrap in its table cell; its first words are on one line.
fn first_words(name: &str) -> String {
    name.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// #21 item 2: the roster states the weather once and every optional rule switched on, with what
/// it changes in our words; a scenario with none says so.
#[test]
fn the_roster_prints_the_weather_and_the_optional_rules_switched_on() {
    use powderhorn::model::OptionalRule;
    let mut s = ebelsberg();
    s.optional_rules = vec![
        OptionalRule::SaberCharge,
        OptionalRule::Weather,
        OptionalRule::Night,
    ];
    s.weather = powderhorn::model::Weather::Poor;
    let text = all_text(&parse(
        &roster_pdf(&s, &lists(), &RosterOptions::default()).unwrap(),
    ));
    let want = format!(
        "Saber charge (OPT-SABER): {}",
        OptionalRule::SaberCharge.gist()
    )
    .split_whitespace()
    .collect::<Vec<_>>()
    .join(" ");
    assert!(text.contains(&want), "no '{want}' in {text}");
    assert!(text.contains("Optional rules in play (1):"), "{text}");
    assert!(
        text.contains("starts poor unless rolled before the battle"),
        "{text}"
    );
    assert!(text.contains("fought at night (OPT-NIGHT)"), "{text}");
    // Weather and night are in the weather line, not listed again as switches.
    assert!(!text.contains("Night (OPT-NIGHT):"), "{text}");
    assert!(
        !text.contains("weather poor"),
        "the header no longer repeats it: {text}"
    );

    s.optional_rules.clear();
    let text = all_text(&parse(
        &roster_pdf(&s, &lists(), &RosterOptions::default()).unwrap(),
    ));
    assert!(
        text.contains("Optional rules: none; the standard rules throughout."),
        "{text}"
    );
    assert!(
        text.contains("No weather rules: fair weather throughout."),
        "{text}"
    );
}

#[test]
fn roster_of_one_side_by_case_insensitive_name() {
    let s = ebelsberg();
    let opts = RosterOptions {
        side: Some("aUsTrIaN".into()),
        paper: Paper::Letter,
    };
    let doc = parse(&roster_pdf(&s, &lists(), &opts).unwrap());
    let text = all_text(&doc);
    assert!(text.contains("Grenz Bn 2"));
    assert!(!text.contains("26e Léger"));
    let e = roster_pdf(
        &s,
        &lists(),
        &RosterOptions {
            side: Some("Prussian".into()),
            paper: Paper::A4,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("no side named 'Prussian'") && e.contains("'French', 'Austrian'"),
        "{e}"
    );
}

/// #22 item 6: a roster of both sides numbers the file's pages ("page 4 of 5") and says which
/// side's pages a page belongs to, where "page 1 of 3" on a five-page file said neither.
#[test]
fn a_roster_of_both_sides_counts_the_files_pages_and_each_sides() {
    let mut s = ebelsberg();
    let template = s.sides[0].units[4].clone();
    for i in 0..60 {
        let mut u = template.clone();
        u.id = UnitId(1000 + i);
        u.name = format!("Bataillon de marche {i}");
        s.sides[0].units.push(u);
    }
    let opts = RosterOptions {
        side: None,
        paper: Paper::A4,
    };
    let doc = parse(&roster_pdf(&s, &lists(), &opts).unwrap());
    let pages = page_texts(&doc);
    let total = pages.len();
    let french = pages.iter().filter(|p| p.contains("(French, ")).count();
    let austrian = pages.iter().filter(|p| p.contains("(Austrian, ")).count();
    assert!(
        french >= 2 && austrian >= 1,
        "{french} + {austrian} of {total}"
    );
    assert_eq!(french + austrian, total);
    for (k, p) in pages.iter().enumerate() {
        let side = if k < french { "French" } else { "Austrian" };
        let within = if k < french { k + 1 } else { k + 1 - french };
        let of = if k < french { french } else { austrian };
        let want = format!("page {} of {total} ({side}, {within} of {of})", k + 1);
        assert!(p.contains(&want), "page {}: no '{want}'", k + 1);
    }
}

#[test]
fn roster_tables_repeat_their_header_on_every_page_and_never_split_rows() {
    // A big side: many pages. The table header is on every page of the order of battle.
    let mut s = ebelsberg();
    let french = &mut s.sides[0];
    let template = french.units[4].clone();
    for i in 0..120 {
        let mut u = template.clone();
        u.id = UnitId(1000 + i);
        u.name = format!("Bataillon de marche {i}");
        u.hq = HqId(4);
        french.units.push(u);
    }
    let opts = RosterOptions {
        side: Some("French".into()),
        paper: Paper::A4,
    };
    let doc = parse(&roster_pdf(&s, &lists(), &opts).unwrap());
    let pages = page_texts(&doc);
    assert!(pages.len() >= 5, "{} pages", pages.len());
    let n = pages.len();
    for (k, p) in pages.iter().enumerate() {
        assert!(p.contains(&format!("page {} of {n}", k + 1)));
        if k > 0 && p.contains("Bataillon de marche") {
            assert!(p.contains("Unit / HQ"), "header repeated on page {}", k + 1);
        }
    }
    // Every unit appears exactly once: no row is split or lost at a page break.
    let text = all_text(&doc);
    for i in 0..120 {
        let needle = format!("Bataillon de marche {i} ");
        assert_eq!(text.matches(&needle).count(), 1, "{needle}");
    }
}

#[test]
fn paper_sizes_are_a4_and_letter() {
    let s = ebelsberg();
    for (paper, w, h) in [(Paper::A4, 595.28, 841.89), (Paper::Letter, 612.0, 792.0)] {
        let roster =
            parse(&roster_pdf(&s, &lists(), &RosterOptions { side: None, paper }).unwrap());
        let labels = parse(
            &labels_pdf(
                &s,
                &lists(),
                &LabelOptions {
                    paper,
                    ..LabelOptions::default()
                },
            )
            .unwrap(),
        );
        for (pw, ph) in media_boxes(&roster).into_iter().chain(media_boxes(&labels)) {
            assert!(
                close(pw, w, 0.01) && close(ph, h, 0.01),
                "{paper:?}: {pw} × {ph}"
            );
        }
    }
}

fn base_of(kind: BaseKind) -> (f32, f32) {
    kind.size_mm()
}

#[test]
fn labels_are_the_base_sizes_and_one_per_stand() {
    let s = ebelsberg();
    let ls = lists();
    let placed = label_layout(&s, &ls, &LabelOptions::default()).unwrap();
    let expected_sizes = [
        (BaseKind::Infantry, 25.0, 15.0),
        (BaseKind::Cavalry, 35.0, 20.0),
        (BaseKind::Artillery, 25.0, 25.0),
        (BaseKind::Transport, 25.0, 35.0),
        (BaseKind::Command, 30.0, 30.0),
    ];
    // Field defences (DEF-03): a label per 10 × 5 cm section of a line work or obstacle, at
    // that true size, and a 50 × 25 mm marker per Trench or Dug-Out.
    let (shelters, sections) =
        s.sides
            .iter()
            .flat_map(|d| &d.field_defenses)
            .fold((0usize, 0usize), |(t, n), d| {
                if d.kind.shelters() {
                    (t + 1, n)
                } else {
                    (t, n + d.sections as usize)
                }
            });
    assert!(sections > 0, "the sample's Austrians bought works");
    let works: Vec<_> = placed.iter().filter(|l| l.base.is_none()).collect();
    assert_eq!(works.len(), sections + shelters);
    for l in &works {
        assert!(l.key.contains("/defence "), "{}", l.key);
        let size = (l.rect_mm.w, l.rect_mm.h);
        assert!(
            size == (100.0, 50.0) || size == (50.0, 25.0),
            "{}: {size:?}",
            l.key
        );
    }
    let placed: Vec<_> = placed.into_iter().filter(|l| l.base.is_some()).collect();
    for l in &placed {
        let base = l.base.expect("BPTC labels name their base");
        let (_, w, h) = expected_sizes.iter().find(|(b, ..)| *b == base).unwrap();
        assert!(
            close(l.rect_mm.w, *w, 0.1) && close(l.rect_mm.h, *h, 0.1),
            "{}: {:?}",
            l.key,
            l.rect_mm
        );
        assert_eq!((l.rect_mm.w, l.rect_mm.h), base_of(base));
    }
    // Stands + one engineer stand + limbers of the mobile guns (2 French, 2 Austrian; the
    // fortress gun has none) + 2 French skirmishers (18e Ligne's brigade has 3 infantry
    // units) + one commander per HQ.
    let stands: usize = s
        .sides
        .iter()
        .flat_map(|d| &d.units)
        .map(|u| usize::from(u.stands))
        .sum();
    let hqs: usize = s.sides.iter().map(|d| d.hqs.len()).sum();
    assert_eq!(placed.len(), stands + 1 + 4 + 2 + hqs);
    let count = |b: BaseKind| placed.iter().filter(|l| l.base == Some(b)).count();
    assert_eq!(count(BaseKind::Command), hqs);
    assert_eq!(count(BaseKind::Transport), 4);
    assert_eq!(count(BaseKind::Artillery), 5);
    assert_eq!(count(BaseKind::Cavalry), 12);

    // One per unit: units + commanders + one screen label.
    let per_unit = label_layout(
        &s,
        &ls,
        &LabelOptions {
            per: Per::Unit,
            ..LabelOptions::default()
        },
    )
    .unwrap();
    let units: usize = s.sides.iter().map(|d| d.units.len()).sum();
    assert_eq!(per_unit.len(), units + hqs + 1 + sections + shelters);
}

#[test]
fn label_text_stays_inside_every_label() {
    let s = ebelsberg();
    let placed = label_layout(&s, &lists(), &LabelOptions::default()).unwrap();
    for l in &placed {
        assert!(!l.texts.is_empty(), "{} is blank", l.key);
        for t in &l.texts {
            let measured = text_width_mm(t.face, t.size_pt, &t.text).unwrap();
            assert!(close(measured, t.width_mm, 1e-3));
            assert!(measured <= l.rect_mm.w, "{}: '{}'", l.key, t.text);
            assert!(
                l.text_area_mm.contains(&t.bounds_mm()),
                "{}: '{}' at {:?} outside {:?}",
                l.key,
                t.text,
                t.bounds_mm(),
                l.text_area_mm
            );
            assert!(l.rect_mm.contains(&t.bounds_mm()));
            assert!(t.size_pt >= 3.5);
        }
    }
    // The stat line in its compact form, the place in the order of battle and the rule codes.
    let ligne = placed
        .iter()
        .find(|l| l.key == "French/unit 5/stand 1")
        .expect("4e Ligne stand 1");
    let texts: Vec<&str> = ligne.texts.iter().map(|t| t.text.as_str()).collect();
    assert!(texts.contains(&"I/2 — 4e Ligne"), "{texts:?}");
    assert!(texts.contains(&"M10 A1/10 H3 S6+ 55pt"), "{texts:?}");
    assert!(texts.contains(&"R1,21"), "{texts:?}");
    assert!(texts.contains(&"1/6"), "{texts:?}");
    let hiller = placed.iter().find(|l| l.key == "Austrian/hq 10").unwrap();
    let texts: Vec<&str> = hiller.texts.iter().map(|t| t.text.as_str()).collect();
    assert!(texts.contains(&"CO: FML Hiller"), "{texts:?}");
    assert!(texts.contains(&"Corps HQ"), "{texts:?}");
    assert!(texts.contains(&"Average Cmd 9 +1D"), "{texts:?}");
}

#[test]
fn a_very_long_unit_name_is_cut_to_fit() {
    let mut s = ebelsberg();
    s.sides[1].units[2].name = "k.k. Warasdiner-Kreuzer Grenz-Infanterie-Regiment Nr. 5, 2. Feldbataillon unter Oberstleutnant von Mecséry zu Tsóor".into();
    let placed = label_layout(&s, &lists(), &LabelOptions::default()).unwrap();
    let grenz: Vec<&PlacedLabel> = placed
        .iter()
        .filter(|l| l.key.starts_with("Austrian/unit 22/"))
        .collect();
    assert_eq!(grenz.len(), 4);
    for l in grenz {
        // The name wraps onto two rows and the second is cut with "…".
        assert!(
            l.texts[0].text.starts_with("I — k.k."),
            "{}",
            l.texts[0].text
        );
        let cut: Vec<&PlacedText> = l.texts.iter().filter(|t| t.truncated).collect();
        assert_eq!(cut.len(), 1, "{:?}", label_text(l));
        assert!(cut[0].text.ends_with('…'));
        assert!(
            squeeze(&label_text(l))
                .starts_with(&squeeze("I — k.k. Warasdiner-Kreuzer Grenz-Infanterie")),
            "{}",
            label_text(l)
        );
        for t in &l.texts {
            let w = text_width_mm(t.face, t.size_pt, &t.text).unwrap();
            assert!(
                w <= l.text_area_mm.w + 1e-3 && w <= l.rect_mm.w,
                "{w} > {}",
                l.rect_mm.w
            );
            assert!(l.rect_mm.contains(&t.bounds_mm()));
        }
        // The stat line is still there, whole.
        assert!(
            l.texts.iter().any(|t| t.text == "M8 A1/10 H3 S5+ 55pt"),
            "{}",
            label_text(l)
        );
    }
}

#[test]
fn labels_pdf_parses_and_holds_every_unit() {
    let s = ebelsberg();
    let ls = lists();
    let opts = LabelOptions::default();
    let placed = label_layout(&s, &ls, &opts).unwrap();
    let sheets = placed.iter().map(|l| l.page).max().unwrap() + 1;
    let doc = parse(&labels_pdf(&s, &ls, &opts).unwrap());
    assert_eq!(doc.get_pages().len(), sheets);
    let pages = page_texts(&doc);
    for (k, p) in pages.iter().enumerate() {
        assert!(p.contains(&format!("sheet {} of {sheets}", k + 1)));
    }
    let text = all_text(&doc);
    for l in &placed {
        for t in &l.texts {
            assert!(
                text.contains(&t.text),
                "'{}' of {} not in the PDF",
                t.text,
                l.key
            );
        }
    }
    for side in &s.sides {
        for u in &side.units {
            // The whole name (perhaps over two rows), or its start cut with "…" where the name
            // is too long.
            let name = squeeze(&u.name);
            let shows = |l: &PlacedLabel| {
                let t = squeeze(&label_text(l));
                t.contains(&name)
                    || t.split('…')
                        .next()
                        .and_then(|s| s.split('—').nth(1))
                        .is_some_and(|stem| stem.len() > 10 && name.starts_with(stem))
            };
            assert!(placed.iter().any(shows), "{} has no label", u.name);
        }
    }
}

/// Outlines of 4-corner closed paths in a content stream, as (width, height) in points.
fn drawn_rects(content: &[u8]) -> Vec<(f32, f32)> {
    let ops = lopdf::content::Content::decode(content)
        .expect("content decodes")
        .operations;
    let mut out = Vec::new();
    let mut pts: Vec<(f32, f32)> = Vec::new();
    let num = |o: &lopdf::Object| {
        o.as_float()
            .or_else(|_| o.as_i64().map(|i| i as f32))
            .unwrap_or(0.0)
    };
    for op in ops {
        match op.operator.as_str() {
            "m" => pts = vec![(num(&op.operands[0]), num(&op.operands[1]))],
            "l" => pts.push((num(&op.operands[0]), num(&op.operands[1]))),
            "re" => out.push((num(&op.operands[2]).abs(), num(&op.operands[3]).abs())),
            "h" => {
                if pts.len() >= 4 {
                    let xs = pts.iter().map(|p| p.0);
                    let ys = pts.iter().map(|p| p.1);
                    let (x0, x1) = xs.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
                    let (y0, y1) = ys.fold((f32::MAX, f32::MIN), |(a, b), y| (a.min(y), b.max(y)));
                    out.push((x1 - x0, y1 - y0));
                }
                pts.clear();
            }
            _ => {}
        }
    }
    out
}

#[test]
fn label_outlines_drawn_in_the_pdf_measure_the_bases() {
    let s = ebelsberg();
    let ls = lists();
    let opts = LabelOptions::default();
    let placed = label_layout(&s, &ls, &opts).unwrap();
    let doc = parse(&labels_pdf(&s, &ls, &opts).unwrap());
    let mut drawn = Vec::new();
    for id in doc.get_pages().values() {
        drawn.extend(drawn_rects(&doc.get_page_content(*id)));
    }
    let mm = |pt: f32| pt * 25.4 / 72.0;
    for (base, w, h) in [
        (BaseKind::Infantry, 25.0, 15.0),
        (BaseKind::Cavalry, 35.0, 20.0),
        (BaseKind::Artillery, 25.0, 25.0),
        (BaseKind::Transport, 25.0, 35.0),
        (BaseKind::Command, 30.0, 30.0),
    ] {
        let want = placed.iter().filter(|l| l.base == Some(base)).count();
        let got = drawn
            .iter()
            .filter(|(pw, ph)| close(mm(*pw), w, 0.1) && close(mm(*ph), h, 0.1))
            .count();
        assert_eq!(
            got, want,
            "{base:?}: {got} outlines of {w} × {h} mm drawn, {want} labels"
        );
    }
}

#[test]
fn representation_scale_changes_printed_ranges_except_for_unscaled_lists() {
    let s = ebelsberg();
    let ls = lists();
    let stat = |scale: Option<Scale>, key: &str| -> String {
        let placed = label_layout(
            &s,
            &ls,
            &LabelOptions {
                scale,
                ..LabelOptions::default()
            },
        )
        .unwrap();
        let l = placed.iter().find(|l| l.key == key).unwrap();
        l.texts
            .iter()
            .find(|t| t.text.starts_with('M'))
            .unwrap()
            .text
            .clone()
    };
    assert!(stat(None, "French/unit 5/stand 1").starts_with("M10 A1/10 "));
    assert!(stat(Some(Scale::Company), "French/unit 5/stand 1").starts_with("M10 A1/20 "));
    assert!(stat(Some(Scale::Brigade), "French/unit 5/stand 1").starts_with("M10 A1/5 "));
    assert!(stat(Some(Scale::Brigade), "French/unit 7/stand 1").starts_with("M5/10 A1/22.5 "));

    // A list that declares its own scale (the Colonial list) is never scaled (GEN-07).
    let colonial = ls
        .iter()
        .find(|l| !l.ranges_scale)
        .expect("an unscaled list");
    let row = colonial
        .troop_types
        .iter()
        .find(|t| t.id.as_str() == "european-musket")
        .unwrap();
    assert_eq!(
        scaled_stats(row, colonial, Scale::Company),
        scaled_stats(row, colonial, Scale::Battalion)
    );
    assert!(scaled_stats(row, colonial, Scale::Company).contains("A2/30"));
}

#[test]
fn an_empty_order_of_battle_is_an_error_and_no_file() {
    let mut s = ebelsberg();
    s.sides[1].units.clear();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("roster.pdf");
    for result in [
        roster_pdf(&s, &lists(), &RosterOptions::default()),
        labels_pdf(&s, &lists(), &LabelOptions::default()),
    ] {
        let e = result
            .and_then(|b| write_pdf_atomically(&out, &b))
            .unwrap_err();
        assert!(matches!(e, ExportError::EmptyOrderOfBattle { .. }));
        let msg = e.to_string();
        assert!(msg.contains("side 'Austrian' has no units"), "{msg}");
        assert!(!out.exists());
    }
    // The other side alone still prints.
    let opts = RosterOptions {
        side: Some("French".into()),
        paper: Paper::A4,
    };
    assert!(roster_pdf(&s, &lists(), &opts).is_ok());
}

#[test]
fn a_unit_with_a_troop_type_not_in_its_list_is_named() {
    let mut s = ebelsberg();
    s.sides[1].units[2].troop_type = TroopTypeId::new("x");
    let expected = "unit 'Grenz Bn 2' uses troop type 'x' not in list 'Napoleonic Austrian Army'";
    let e = roster_pdf(&s, &lists(), &RosterOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with(expected), "{e}");
    let e = labels_pdf(&s, &lists(), &LabelOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with(expected), "{e}");
}

#[test]
fn a_side_whose_list_is_not_installed_is_named() {
    let mut s = ebelsberg();
    s.sides[0].army_list = ListId::new("nap-bavarian");
    let e = roster_pdf(&s, &lists(), &RosterOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("side 'French'") && e.contains("'nap-bavarian'"),
        "{e}"
    );
}

/// The Napoleonic Battlefield Commander's labels (seed 003): a 6 mm strip on the back of a
/// 50 mm brigade base ("III/1/2 Roeben Q3 MX S1 6CP") and a 9 mm strip on a 25 mm officer base
/// ("X: Liechtenstein R23 L1 T2 A3"), coloured by side on the left. Only data is new here:
/// the layout and the field values; packing, fitting and drawing are the BPTC code.
const NBC_LAYOUT: &str = include_str!("support/nbc_layout.json");

fn nbc_label(kind: LabelKind, w: f32, h: f32, fields: &[(&str, &str)]) -> LabelContent {
    LabelContent {
        kind,
        base: None,
        w_mm: w,
        h_mm: h,
        colour: [200, 40, 40],
        fields: fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        key: format!("nbc {}", fields[1].1),
    }
}

#[test]
fn a_second_rules_systems_labels_are_only_a_layout_description() {
    let layout = LabelLayout::from_json(NBC_LAYOUT).unwrap();
    let labels = vec![
        nbc_label(
            LabelKind::Unit,
            50.0,
            6.0,
            &[
                ("formation", "III/1/2"),
                ("name", "Roeben"),
                ("quality", "3"),
                ("mixed", "MX"),
                ("skirmish", "1"),
                ("cp", "6"),
            ],
        ),
        nbc_label(
            LabelKind::Unit,
            50.0,
            6.0,
            &[
                ("formation", "III/1/3"),
                ("name", "Erzherzog Ludwig"),
                ("quality", "4"),
                ("mixed", ""),
                ("skirmish", "2"),
                ("cp", "8"),
            ],
        ),
        nbc_label(
            LabelKind::Commander,
            25.0,
            9.0,
            &[
                ("formation", "X"),
                ("name", "Liechtenstein"),
                ("radius", "23"),
                ("leadership", "1"),
                ("temperament", "2"),
                ("ability", "3"),
            ],
        ),
    ];
    let geometry = SheetGeometry::default();
    let placed = pack_labels(&layout, &labels, Paper::A4, &geometry).unwrap();
    let text_of = |name: &str| -> Vec<String> {
        placed
            .iter()
            .find(|l| l.key == format!("nbc {name}"))
            .unwrap()
            .texts
            .iter()
            .map(|t| t.text.clone())
            .collect()
    };
    assert_eq!(text_of("Roeben"), vec!["III/1/2 Roeben Q3 MX S1 6CP"]);
    assert_eq!(
        text_of("Erzherzog Ludwig"),
        vec!["III/1/3 Erzherzog Ludwig Q4 S2 8CP"]
    );
    assert_eq!(
        text_of("Liechtenstein"),
        vec!["X: Liechtenstein R23 L1 T2 A3"]
    );
    for l in &placed {
        let band = l.band_mm.expect("left colour band");
        assert!(
            close(band.x, l.rect_mm.x, 1e-4)
                && close(band.w, 2.5, 1e-4)
                && close(band.h, l.rect_mm.h, 1e-4)
        );
        for t in &l.texts {
            assert!(l.text_area_mm.contains(&t.bounds_mm()), "{}", t.text);
            assert!(t.bounds_mm().x >= band.right());
        }
    }
    let bytes = render_label_sheets(
        &placed,
        Paper::A4,
        &geometry,
        "NBC test",
        "NBC labels",
        &|_| {},
    )
    .unwrap();
    let text = all_text(&parse(&bytes));
    assert!(text.contains("III/1/2 Roeben Q3 MX S1 6CP"), "{text}");
    assert!(text.contains("X: Liechtenstein R23 L1 T2 A3"), "{text}");
}

#[test]
fn a_broken_layout_is_refused_with_its_name() {
    let bad = NBC_LAYOUT.replace("\"max_pt\": 10", "\"max_pt\": 2");
    let e = LabelLayout::from_json(&bad).unwrap_err().to_string();
    assert!(
        e.contains("Napoleonic Battlefield Commander") && e.contains("min_pt"),
        "{e}"
    );
}

#[test]
fn export_runs_on_a_worker_thread_and_reports_progress() {
    fn is_send<T: Send + 'static>(_: &T) {}
    let s = ebelsberg();
    let ls = lists();
    let handle = std::thread::spawn(move || {
        let seen = std::sync::Mutex::new(Vec::new());
        let record = |p: f32| seen.lock().unwrap().push(p);
        let labels = labels_pdf_with_progress(&s, &ls, &LabelOptions::default(), &record);
        let roster = roster_pdf_with_progress(&s, &ls, &RosterOptions::default(), &record);
        (
            labels.map(|b| b.len()),
            roster.map(|b| b.len()),
            seen.into_inner().unwrap(),
        )
    });
    is_send(&handle);
    let (labels, roster, seen) = handle.join().unwrap();
    assert!(labels.unwrap() > 1000 && roster.unwrap() > 1000);
    // Two runs, each from 0 to 1 without going back.
    let split = seen.iter().skip(1).position(|p| *p == 0.0).unwrap() + 1;
    for run in [&seen[..split], &seen[split..]] {
        assert_eq!(run.first(), Some(&0.0));
        assert_eq!(run.last(), Some(&1.0));
        assert!(run.windows(2).all(|w| w[0] <= w[1]), "{run:?}");
        assert!(run.len() > 3);
    }
}

fn write_existing(path: &Path) -> Vec<u8> {
    let old = b"%PDF-1.7\nthe old roster\n%%EOF\n".to_vec();
    std::fs::write(path, &old).unwrap();
    old
}

#[test]
fn atomic_write_replaces_a_file_only_with_a_complete_pdf() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("roster.pdf");
    let old = write_existing(&path);

    // Bytes that are not a whole PDF (generation stopped half-way) are refused.
    let e = write_pdf_atomically(&path, b"%PDF-1.7\n1 0 obj <<").unwrap_err();
    assert!(matches!(e, ExportError::IncompletePdf { .. }), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), old);

    // Generation failed: nothing is written at all.
    let mut s = ebelsberg();
    s.sides[0].units.clear();
    assert!(roster_pdf(&s, &lists(), &RosterOptions::default())
        .and_then(|b| write_pdf_atomically(&path, &b))
        .is_err());
    assert_eq!(std::fs::read(&path).unwrap(), old);

    // A complete PDF replaces it, and no temporary file is left behind.
    let new = roster_pdf(&ebelsberg(), &lists(), &RosterOptions::default()).unwrap();
    write_pdf_atomically(&path, &new).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), new);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn atomic_write_that_cannot_finish_leaves_the_old_file_and_no_debris() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = roster_pdf(&ebelsberg(), &lists(), &RosterOptions::default()).unwrap();

    // The rename cannot replace a directory: the write fails after the temporary file was
    // written, which must then be removed.
    let target = dir.path().join("busy.pdf");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep.txt"), b"keep").unwrap();
    let e = write_pdf_atomically(&target, &pdf).unwrap_err();
    assert!(e.to_string().contains("busy.pdf"), "{e}");
    assert!(target.is_dir() && target.join("keep.txt").exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    // A directory that does not exist.
    let missing = dir.path().join("no-such-dir").join("roster.pdf");
    assert!(write_pdf_atomically(&missing, &pdf).is_err());
    assert!(!missing.exists());
}

#[cfg(unix)]
#[test]
fn atomic_write_into_a_read_only_directory_leaves_the_old_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("roster.pdf");
    let old = write_existing(&path);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores permission bits; only check the failure where the OS enforces them.
    let enforced = std::fs::File::create(dir.path().join("probe")).is_err();
    let pdf = roster_pdf(&ebelsberg(), &lists(), &RosterOptions::default()).unwrap();
    let result = write_pdf_atomically(&path, &pdf);
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    if enforced {
        assert!(result.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), old);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    } else {
        eprintln!("permissions not enforced for this user (root?); checked the success path only");
        assert!(result.is_ok());
    }
}

#[test]
fn shipped_sample_exports_or_explains() {
    let samples = powderhorn::model::samples::scenarios().unwrap();
    let ls = lists();
    for s in &samples {
        let empty: Vec<&str> = s
            .sides
            .iter()
            .filter(|d| d.units.is_empty())
            .map(|d| d.name.as_str())
            .collect();
        let roster = roster_pdf(s, &ls, &RosterOptions::default());
        let labels = labels_pdf(s, &ls, &LabelOptions::default());
        if empty.is_empty() {
            let text = all_text(&parse(&roster.unwrap()));
            let ltext = all_text(&parse(&labels.unwrap()));
            let (text, ltext) = (squeeze(&text), squeeze(&ltext));
            for u in s.sides.iter().flat_map(|d| &d.units) {
                let name = squeeze(&u.name);
                assert!(text.contains(&name), "{} not in the roster", u.name);
                let start: String = name.chars().take(12).collect();
                assert!(
                    ltext.contains(&name) || ltext.contains(&start),
                    "{} not on a label",
                    u.name
                );
            }
        } else {
            for r in [roster.map(|_| ()), labels.map(|_| ())] {
                let e = r.unwrap_err().to_string();
                assert!(
                    e.contains(&format!("side '{}' has no units", empty[0])),
                    "{e}"
                );
            }
        }
    }
}

// The sample PDFs for looking at are written by `cargo run --example sample_pdfs`
// (examples/sample_pdfs.rs): they check nothing, so they are not a test.
