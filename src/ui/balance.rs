//! Scenario → Balance…: a window that has the computer play a scenario many times on both
//! sides and shows which side is favoured and why (issue #20 item 3).
//!
//! The form takes the number of games, the threads (0: all cores), the first dice seed and how
//! each side is played (the standard opponent, or the hold baseline that only fires from where
//! it stands, `ai::Policy`; `battle balance --policy`); Start asks the app to run them off the UI thread ([`BalanceAsk::Start`]). While they run the
//! window shows a progress bar, games done of the total, the time so far and an estimate of the
//! time left, and Stop ([`BalanceAsk::Stop`]: the games finished make the report). The report
//! (`ai::balance::BalanceReport`) shows who played each side, the verdict in words, the win and draw rates with their
//! 95% intervals, histograms (egui_plot) of each side's VPs and stands lost and of the game
//! length, how the games ended (END-03), how often each objective was reached (OBJ-01) and how
//! often each unit came through.
//!
//! The app draws this window after the pages ([`window`]) with what it knows of the run
//! ([`BalanceShown`]); like every page it only emits [`AppCommand`]s.

use super::battle_result::side_colour;
use super::commands::AppCommand;
use super::widgets::palette;
use crate::ai::balance::{percent, BalanceReport, Spread};
use crate::ai::Policy;
use crate::model::ScenarioId;
use crate::rules::report::short_names;
use crate::rules::victory::ObjectiveLevel;
use crate::session::balance::duration_words;
use egui::{RichText, Ui};
use egui_plot::{Bar, BarChart, Corner, Legend, Plot};
use std::time::Duration;

/// What the app is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BalanceAsk {
    Start {
        scenario: ScenarioId,
        runs: usize,
        /// 0: all cores.
        threads: usize,
        seed: u64,
        /// How each side is played.
        policies: [Policy; 2],
    },
    /// Stop after the games in progress; the finished ones make the report.
    Stop,
}

/// The window's form, kept between frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BalanceForm {
    /// The scenario the window is open for (id and name); None: closed.
    pub open: Option<(ScenarioId, String)>,
    pub runs: usize,
    pub threads: usize,
    pub seed: u64,
    /// How each side is played (default: both by the standard opponent).
    pub policies: [Policy; 2],
}

impl Default for BalanceForm {
    fn default() -> Self {
        BalanceForm {
            open: None,
            runs: 200,
            threads: 0,
            seed: 1,
            policies: [Policy::Standard; 2],
        }
    }
}

/// A policy as the window offers it.
pub fn policy_choice(p: Policy) -> &'static str {
    match p {
        Policy::Standard => "Standard opponent",
        Policy::Hold => "Hold (baseline: fires from where it stands)",
    }
}

/// The choices of the per-side box, in order.
const POLICIES: [Policy; 2] = [Policy::Standard, Policy::Hold];

/// "French: Standard opponent; Austrian: Hold (baseline: fires from where it stands)".
pub fn policies_words(short: &[String; 2], policies: [Policy; 2]) -> String {
    let [s0, s1] = short;
    let [p0, p1] = policies;
    format!("{s0}: {}; {s1}: {}", policy_choice(p0), policy_choice(p1))
}

impl BalanceForm {
    pub fn open_for(&mut self, id: ScenarioId, name: String) {
        self.open = Some((id, name));
    }
}

/// A run in progress as the window shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BalanceLive {
    pub done: usize,
    pub total: usize,
    pub elapsed: Duration,
    pub eta: Option<Duration>,
    pub threads: usize,
    /// Stop was asked for; the games in progress are finishing.
    pub stopping: bool,
    /// How each side is played in this run.
    pub policies: [Policy; 2],
}

/// What the app knows of the balance run, for one frame.
#[derive(Debug, Clone, Copy, Default)]
pub struct BalanceShown<'a> {
    /// The run in progress.
    pub live: Option<BalanceLive>,
    /// The last report (of the scenario named in `report_of`).
    pub report: Option<&'a BalanceReport>,
    /// The scenario id the report is of.
    pub report_of: Option<&'a ScenarioId>,
    /// "1,000 games in 12.3 s on 2 threads", "Stopped after 120 of 1,000 games …".
    pub note: &'a str,
    /// Why the last run could not start or finish.
    pub error: Option<&'a str>,
    /// The names of the sides of the scenario the window is open for (None: not known; the
    /// form then says "First side" and "Second side").
    pub sides: Option<&'a [String; 2]>,
}

/// Draws the window when it is open; the commands it emits.
pub fn window(
    ctx: &egui::Context,
    shown: &BalanceShown<'_>,
    form: &mut BalanceForm,
) -> Vec<AppCommand> {
    let mut out = Vec::new();
    let Some((id, name)) = form.open.clone() else {
        return out;
    };
    let mut open = true;
    let screen = ctx.content_rect();
    egui::Window::new(format!("Balance of {name}"))
        .id(egui::Id::unique("balance-window"))
        .open(&mut open)
        .collapsible(false)
        .resizable(true)
        .default_size([
            (screen.width() - 80.0).clamp(300.0, 980.0),
            (screen.height() - 100.0).clamp(240.0, 820.0),
        ])
        .max_height(screen.height() - 40.0)
        .max_width(screen.width() - 20.0)
        .default_pos([40.0, 50.0])
        .show(ctx, |ui| {
            let short = shown.sides.map_or_else(
                || ["First side".to_string(), "Second side".to_string()],
                short_names,
            );
            form_row(ui, shown, form, &id, &mut out);
            policy_row(ui, shown, form, &short);
            ui.separator();
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    if let Some(live) = shown.live {
                        progress(ui, &live, &short, &mut out);
                    }
                    if let Some(e) = shown.error {
                        ui.label(RichText::new(e).color(palette::ERROR));
                    }
                    let report = shown
                        .report
                        .filter(|_| shown.report_of == Some(&id) && shown.live.is_none());
                    match report {
                        Some(r) => {
                            if !shown.note.is_empty() {
                                ui.label(RichText::new(shown.note).color(palette::FAINT));
                            }
                            report_view(ui, r);
                        }
                        None if shown.live.is_none() => {
                            ui.label(
                                "The computer plays both sides of this scenario as many times as \
                                 you ask, each game with its own dice, and the report shows which \
                                 side wins how often and why. Choose the number of games and how \
                                 each side is played, and press Start. Hold is a baseline that \
                                 never moves and only fires from where it stands: playing the \
                                 standard opponent against it shows what moving and charging are \
                                 worth.",
                            );
                        }
                        None => {}
                    }
                });
        });
    if !open {
        // Closing the window ends its games too: a run nobody can see or stop would keep both
        // cores busy with no word of it.
        if shown.live.is_some() {
            out.push(AppCommand::Balance(BalanceAsk::Stop));
        }
        form.open = None;
    }
    out
}

fn form_row(
    ui: &mut Ui,
    shown: &BalanceShown<'_>,
    form: &mut BalanceForm,
    id: &ScenarioId,
    out: &mut Vec<AppCommand>,
) {
    let running = shown.live.is_some();
    ui.horizontal_wrapped(|ui| {
        ui.label("Games");
        ui.add_enabled(
            !running,
            egui::DragValue::new(&mut form.runs)
                .range(1..=100_000)
                .speed(10.0),
        )
        .on_hover_text("How many games to play: more games give narrower intervals");
        ui.add_space(8.0);
        ui.label("Threads");
        ui.add_enabled(
            !running,
            egui::DragValue::new(&mut form.threads)
                .range(0..=256)
                .custom_formatter(|v, _| {
                    if v < 0.5 {
                        "all cores".to_string()
                    } else {
                        format!("{v:.0}")
                    }
                }),
        )
        .on_hover_text("How many games to play at once (0: one per core); the report is the same for any number");
        ui.add_space(8.0);
        ui.label("First seed");
        ui.add_enabled(!running, egui::DragValue::new(&mut form.seed))
            .on_hover_text("The dice seed of the first game; game k uses this seed + k, the game 'battle autoplay' plays with it");
        ui.add_space(12.0);
        if ui
            .add_enabled(!running, egui::Button::new(RichText::new("Start").strong()))
            .on_hover_text("Play the games with the computer on both sides")
            .clicked()
        {
            out.push(AppCommand::Balance(BalanceAsk::Start {
                scenario: id.clone(),
                runs: form.runs.max(1),
                threads: form.threads,
                seed: form.seed,
                policies: form.policies,
            }));
        }
    });
}

/// A choice per side: the standard opponent or the hold baseline.
fn policy_row(ui: &mut Ui, shown: &BalanceShown<'_>, form: &mut BalanceForm, short: &[String; 2]) {
    let running = shown.live.is_some();
    let options: Vec<(Policy, String)> = POLICIES
        .iter()
        .map(|p| (*p, policy_choice(*p).to_string()))
        .collect();
    ui.horizontal_wrapped(|ui| {
        ui.add_enabled_ui(!running, |ui| {
            for (side, policy) in form.policies.iter_mut().enumerate() {
                let name = short.get(side).cloned().unwrap_or_default();
                ui.label(RichText::new(format!("{name} played by:")).color(side_colour(side)));
                if let Some(p) = super::widgets::combo(
                    ui,
                    ("balance-policy", side),
                    &format!("{name} played by"),
                    policy,
                    &options,
                    290.0,
                ) {
                    *policy = p;
                }
                ui.add_space(12.0);
            }
        })
        .response
        .on_hover_text(
            "The standard opponent plans, moves, charges and fires; hold never moves and only \
             fires from where it stands, a baseline to measure the standard opponent against",
        );
    });
}

fn progress(ui: &mut Ui, live: &BalanceLive, short: &[String; 2], out: &mut Vec<AppCommand>) {
    let fraction = if live.total == 0 {
        1.0
    } else {
        live.done as f32 / live.total as f32
    };
    ui.add(
        egui::ProgressBar::new(fraction)
            .show_percentage()
            .text(format!("{} / {} games", live.done, live.total)),
    );
    ui.horizontal(|ui| {
        let left = live.eta.map_or_else(
            || "time left: after the first game".to_string(),
            |d| format!("about {} left", duration_words(d)),
        );
        ui.label(format!(
            "{} games done of {} on {} thread{}; {} so far, {left}",
            live.done,
            live.total,
            live.threads,
            if live.threads == 1 { "" } else { "s" },
            duration_words(live.elapsed),
        ));
        if live.stopping {
            ui.label(RichText::new("Stopping after the games in play…").color(palette::WARN));
        } else if ui
            .button("Stop")
            .on_hover_text("Stop after the games in play; the report shows the games finished")
            .clicked()
        {
            out.push(AppCommand::Balance(BalanceAsk::Stop));
        }
    });
    ui.label(
        RichText::new(format!(
            "Played by — {}",
            policies_words(short, live.policies)
        ))
        .color(palette::FAINT),
    );
}

#[allow(clippy::needless_range_loop)] // sides index several parallel arrays
fn report_view(ui: &mut Ui, r: &BalanceReport) {
    let short = short_names(&r.sides);
    ui.label(
        RichText::new(format!(
            "Played by — {}",
            policies_words(&short, r.policies)
        ))
        .color(palette::FAINT),
    );
    ui.add_space(4.0);
    egui::Frame::new()
        .fill(palette::CARD)
        .stroke(egui::Stroke::new(1.0, palette::RULE))
        .corner_radius(4.0)
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            ui.label(RichText::new(&r.verdict).color(palette::INK));
        });
    ui.add_space(6.0);
    ui.label(
        RichText::new("Results, with 95% intervals")
            .strong()
            .color(palette::BLUE),
    );
    egui::Grid::new("balance-results")
        .num_columns(2)
        .spacing([24.0, 4.0])
        .striped(true)
        .show(ui, |ui| {
            for s in 0..2 {
                ui.label(RichText::new(format!("{} win", short[s])).color(side_colour(s)));
                ui.label(r.wins[s].words());
                ui.end_row();
            }
            ui.label("Draw");
            ui.label(r.draws.words());
            ui.end_row();
            if r.unfinished > 0 {
                ui.label("Stopped before the end");
                ui.label(r.unfinished.to_string());
                ui.end_row();
            }
            for e in r.ends.iter().filter(|e| e.rate.count > 0) {
                ui.label(format!("Ended {} (END-03)", e.label));
                ui.label(e.rate.words());
                ui.end_row();
            }
        });
    ui.add_space(8.0);
    let width = ui.available_width();
    let columns = if width > 900.0 {
        3
    } else if width > 560.0 {
        2
    } else {
        1
    };
    let plot_w = (width / columns as f32 - 12.0).max(160.0);
    ui.horizontal_wrapped(|ui| {
        histogram(
            ui,
            "balance-vps",
            "Victory points (VP-01)",
            "VPs",
            &short,
            [Some(&r.vps[0]), Some(&r.vps[1])],
            plot_w,
        );
        histogram(
            ui,
            "balance-losses",
            "Stands lost",
            "stands lost",
            &short,
            [Some(&r.stands_lost[0]), Some(&r.stands_lost[1])],
            plot_w,
        );
        histogram(
            ui,
            "balance-turns",
            "Game length",
            "game turns",
            &short,
            [Some(&r.turns), None],
            plot_w,
        );
    });
    ui.add_space(8.0);
    ui.label(
        RichText::new("Objectives reached (OBJ-01)")
            .strong()
            .color(palette::BLUE),
    );
    egui::Grid::new("balance-objectives")
        .num_columns(3)
        .spacing([16.0, 4.0])
        .striped(true)
        .show(ui, |ui| {
            for o in &r.objectives {
                let level = match o.level {
                    ObjectiveLevel::Major => "major",
                    _ => "minor or better",
                };
                ui.label(
                    RichText::new(format!(
                        "{} {level}",
                        short.get(o.side).cloned().unwrap_or_default()
                    ))
                    .color(side_colour(o.side)),
                );
                ui.label(o.rate.words());
                ui.label(RichText::new(&o.description).color(palette::FAINT))
                    .on_hover_text(&o.description);
                ui.end_row();
            }
        });
    ui.add_space(8.0);
    ui.label(
        RichText::new("Units: how often each came through, and the stands it lost on average")
            .strong()
            .color(palette::BLUE),
    );
    ui.columns(2, |cols| {
        for (s, col) in cols.iter_mut().enumerate() {
            col.label(RichText::new(&r.sides[s]).strong().color(side_colour(s)));
            egui::Grid::new(("balance-units", s))
                .num_columns(3)
                .spacing([10.0, 2.0])
                .striped(true)
                .show(col, |ui| {
                    ui.label(RichText::new("survives").color(palette::FAINT));
                    ui.label(RichText::new("lost").color(palette::FAINT));
                    ui.label(RichText::new("unit").color(palette::FAINT));
                    ui.end_row();
                    for u in r.units.iter().filter(|u| u.unit.side == s) {
                        let rate = percent(u.survived.rate);
                        let text = if u.survived.rate < 0.5 {
                            RichText::new(rate).color(palette::ERROR)
                        } else {
                            RichText::new(rate)
                        };
                        ui.label(text).on_hover_text(format!(
                            "{} of {} games, 95% interval {}",
                            u.survived.count,
                            u.survived.games,
                            u.survived.words()
                        ));
                        ui.label(format!("{:.1} of {}", u.mean_stands_lost, u.unit.stands));
                        let hq = if u.unit.command { " (HQ)" } else { "" };
                        ui.label(format!("{}{hq}", u.unit.name));
                        ui.end_row();
                    }
                });
        }
    });
}

/// One histogram: a bar per bin and side (side 0 on the left half of the bin, side 1 on the
/// right), or one bar per bin for a measure of the whole game.
#[allow(clippy::too_many_arguments)]
fn histogram(
    ui: &mut Ui,
    id: &str,
    title: &str,
    x_label: &str,
    short: &[String; 2],
    spreads: [Option<&Spread>; 2],
    width: f32,
) {
    ui.vertical(|ui| {
        ui.set_width(width);
        ui.label(RichText::new(title).strong().color(palette::BLUE));
        let both = spreads[1].is_some();
        let mut charts = Vec::new();
        for (side, spread) in spreads.iter().enumerate() {
            let Some(spread) = spread else { continue };
            let bars: Vec<Bar> = spread
                .bins
                .iter()
                .map(|b| {
                    let w = (b.to - b.from) as f64;
                    let (centre, bw) = if both {
                        (b.from as f64 + w * (0.25 + 0.5 * side as f64), w * 0.45)
                    } else {
                        (b.from as f64 + w * 0.5, w * 0.9)
                    };
                    let range = if b.to - b.from == 1 {
                        b.from.to_string()
                    } else {
                        format!("{}–{}", b.from, b.to - 1)
                    };
                    Bar::new(centre, b.count as f64)
                        .width(bw)
                        .name(format!("{range}: {} games", b.count))
                })
                .collect();
            let name = if both {
                short[side].clone()
            } else {
                "games".to_string()
            };
            let colour = if both {
                side_colour(side)
            } else {
                palette::BLUE
            };
            charts.push(BarChart::new(name, bars).color(colour));
        }
        // From 0 (every measure here is a count) to a bin beyond the last, so a single bin
        // does not fill the whole plot.
        let last = spreads
            .iter()
            .flatten()
            .filter_map(|s| s.bins.last())
            .map(|b| (b.to + (b.to - b.from)) as f64)
            .fold(1.0, f64::max);
        Plot::new(id)
            .height(150.0)
            .include_x(0.0)
            .include_x(last)
            .width(width)
            .legend(Legend::default().position(Corner::RightTop))
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .include_y(0.0)
            .x_axis_label(x_label)
            .y_axis_label("games")
            .show(ui, |p| {
                for c in charts {
                    p.bar_chart(c);
                }
            });
        let line: Vec<String> = spreads
            .iter()
            .enumerate()
            .filter_map(|(side, s)| {
                s.map(|s| {
                    let who = if both {
                        format!("{}: ", short[side])
                    } else {
                        String::new()
                    };
                    format!(
                        "{who}median {} (quartiles {}–{}), range {}–{}",
                        s.median, s.q1, s.q3, s.min, s.max
                    )
                })
            })
            .collect();
        ui.label(RichText::new(line.join("; ")).small().color(palette::FAINT));
    });
}
