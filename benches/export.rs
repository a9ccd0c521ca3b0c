//! Export speed: a big game (600 stands) printed as stand labels and as a roster.
//! Target: each at most 1 s in release (`cargo bench --bench export`).

use criterion::{criterion_group, criterion_main, Criterion};
use powderhorn::export::{labels_pdf, roster_pdf, LabelOptions, RosterOptions};
use powderhorn::model::army::shipped_lists;
use powderhorn::model::{
    ArmyList, CommandLevel, Commander, CommanderId, Grade, Hq, HqId, ListId, Quality, Scale,
    Scenario, ScenarioId, Side, TroopTypeId, Unit, UnitId,
};
use std::hint::black_box;

/// One side of a corps-sized game: a CO over `divisions` divisions of three brigades, each
/// brigade with infantry (and a cavalry brigade and a battery per division), built until the
/// side has `stands` stands.
fn side(name: &str, list: &str, colour: [u8; 3], rows: &[&str], stands: u32, id0: u32) -> Side {
    let commander = |id: u32, name: String, level, quality, cv| Commander {
        id: CommanderId(id),
        name,
        note: String::new(),
        level,
        quality,
        command_value: cv,
        replaced_once: false,
    };
    let hq = |id: u32, parent: Option<u32>, name: String, c: Commander| Hq {
        id: HqId(id),
        name,
        parent: parent.map(HqId),
        commander: c,
        mounted: true,
        position: None,
        fao: false,
        nation: None,
        ally: false,
    };
    let mut hqs = vec![hq(
        id0,
        None,
        format!("{name} army"),
        commander(
            id0,
            format!("{name} commander-in-chief"),
            CommandLevel::Army,
            Quality::Average,
            10,
        ),
    )];
    let mut units = Vec::new();
    let mut placed = 0u32;
    let mut next_hq = id0 + 1;
    let mut next_unit = id0;
    let mut div = 0;
    while placed < stands {
        div += 1;
        let div_id = next_hq;
        next_hq += 1;
        hqs.push(hq(
            div_id,
            Some(id0),
            format!("{div}. Division"),
            commander(
                div_id,
                format!("General of division no. {div}"),
                CommandLevel::Division,
                Quality::Average,
                8,
            ),
        ));
        for bde in 1..=3 {
            let bde_id = next_hq;
            next_hq += 1;
            hqs.push(hq(
                bde_id,
                Some(div_id),
                format!("{div}/{bde} Brigade"),
                commander(
                    bde_id,
                    format!("Brigadier {div}-{bde}"),
                    CommandLevel::Brigade,
                    Quality::Average,
                    7,
                ),
            ));
            for k in 0..4 {
                if placed >= stands {
                    break;
                }
                let row = rows[(usize::try_from(div + bde + k).unwrap_or(0)) % rows.len()];
                let n = (4 + (k % 3) as u8).min(u8::try_from(stands - placed).unwrap_or(1));
                units.push(Unit {
                    id: UnitId(next_unit),
                    name: format!("{div}/{bde} regiment no. {} ({row})", k + 1),
                    troop_type: TroopTypeId::new(row),
                    stands: n,
                    hq: HqId(bde_id),
                    grade: Grade::Regular,
                    engineer_attached: k == 3,
                    brigade_skirmishers: k == 0,
                    regimental_guns: false,
                    lancers: false,
                    horse_artillery: false,
                    pikes: false,
                    position: None,
                    morale_grade: None,
                    nation: None,
                });
                next_unit += 1;
                placed += u32::from(n);
            }
        }
    }
    Side {
        name: name.to_string(),
        army_list: ListId::new(list),
        colour,
        hqs,
        units,
        field_defenses: vec![],
        deployment_zone: vec![],
        objectives: Default::default(),
    }
}

/// About 600 stands in all, Napoleonic French against Austrians.
fn big_scenario() -> Scenario {
    let french = [
        "line-infantry-08-12",
        "light-infantry-08-12",
        "heavy-cavalry-07-12",
        "field-artillery",
    ];
    let austrian = [
        "line-infantry-07-15",
        "grenz-infantry",
        "light-cavalry",
        "horse-artillery",
    ];
    Scenario {
        format: 1,
        id: ScenarioId::new("bench-600"),
        name: "Bench: Wagram-sized game".into(),
        date: "6 July 1809".into(),
        year: Some(1809),
        description: String::new(),
        table: Default::default(),
        scale: Scale::Battalion,
        measure_scale: Default::default(),
        points: 15000,
        turn_limit: 12,
        weather: Default::default(),
        defense: Default::default(),
        defender: None,
        first_player: None,
        teams: Vec::new(),
        optional_rules: vec![],
        terrain: vec![],
        sides: vec![
            side("French", "nap-french", [40, 70, 160], &french, 300, 1),
            side(
                "Austrian",
                "nap-austrian",
                [200, 40, 40],
                &austrian,
                300,
                1000,
            ),
        ],
    }
}

fn bench(c: &mut Criterion) {
    let lists: Vec<ArmyList> = shipped_lists().unwrap_or_default();
    let s = big_scenario();
    let stands: u32 = s
        .sides
        .iter()
        .flat_map(|d| &d.units)
        .map(|u| u32::from(u.stands))
        .sum();
    let labels = powderhorn::export::label_layout(&s, &lists, &LabelOptions::default())
        .map(|l| l.len())
        .unwrap_or(0);
    eprintln!("bench scenario: {stands} stands, {labels} labels");
    let mut g = c.benchmark_group("export");
    g.sample_size(10);
    g.bench_function("labels_600_stands", |b| {
        b.iter(|| labels_pdf(black_box(&s), &lists, &LabelOptions::default()).map(|v| v.len()))
    });
    g.bench_function("roster_600_stands", |b| {
        b.iter(|| roster_pdf(black_box(&s), &lists, &RosterOptions::default()).map(|v| v.len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
