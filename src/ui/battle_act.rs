//! Acting on the battle table (issue #17 item 4): the decisions panel and the manoeuvres of
//! the selected unit, drawn in the battle page's left panel under the unit's own options.
//!
//! The decisions panel is driven by the engine's [`Battle::pending`]: for each decision the
//! battle waits for, a control that produces exactly the [`Action`] the engine accepts —
//! the order composer for a command roll (CMD-02..CMD-19, with the engine's own
//! [`Battle::order_preview`]: target number, every modifier with its rule ID, chances), the
//! response window of a charge (INIT-09..INIT-15, with the hand-over between players in
//! hot-seat, or the computer's answer in solo), supports (CHG-07, CHG-08), the combat to fight
//! (SEQ-04), consolidation (CHG-24), a replacement commander (CMD-28) and the breakpoint test
//! due (BRK-02).
//!
//! The manoeuvres (wheel, about face, retire, oblique, forward: MOVE-26..MOVE-29; prolonge and
//! manhandling for guns: MOVE-21, MOVE-24), self-orders (CMD-07), opportunity fire
//! (FIRE-30..FIRE-32) and engineering tasks (ENG-02..ENG-06) are each one `Action` that
//! [`Battle::check`] is asked about before it is offered: a refused manoeuvre is drawn
//! disabled with the refusal's rule ID and sentence as its hover text (and under "Why not?").
//! No rule is copied here: the only geometry worked out is where a manoeuvre ends, and the
//! engine judges it.
//!
//! Like every page it only reads the battle and emits [`AppCommand`]s. The engine's answers
//! are kept in [`ActState`] for the battle state they were given for, so a frame that changes
//! nothing asks nothing again.
//!
//! Layering: `ui`; reads `rules` (and the solo opponent's consolidation policy in `ai`), must
//! not import `crate::store`, `crate::app`, `rusqlite`, `rfd` or `std::fs`.

use super::battle::BattlePanel;
use super::widgets::RichTextExt as _;
use super::widgets::{palette, Emitter};
use super::{AppCommand, UiState, View};
use crate::geom::footprint::{heading, normalize_deg};
use crate::geom::Point;
use crate::rules::api::{Decision, OrderPreview, Pending};
use crate::rules::charge::Response;
use crate::rules::command::{OrderedUnit, UnitActionKind};
use crate::rules::engineering::EngineerTaskKind;
use crate::rules::{Action, Battle, BattleState, Manoeuvre, PieceId, Pose};
use egui::{RichText, Ui};

/// The order being put together in the composer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrderDraft {
    /// The command unit giving the order.
    pub command: Option<PieceId>,
    /// The units ticked, each with its declared action and flags.
    pub units: Vec<OrderedUnit>,
}

/// What the acting controls keep between frames: the draft order, the angle and distance
/// the manoeuvre buttons use, a commander waiting to be placed by a click on the table, and
/// the engine's answers for the state they were given for.
#[derive(Debug)]
pub struct ActState {
    pub order: OrderDraft,
    /// Degrees turned by a wheel, or off straight ahead by an oblique (MOVE-26, MOVE-29).
    pub angle_deg: f64,
    /// Centimetres moved by a retire, an oblique, a forward step, a prolonge.
    pub step_cm: f64,
    /// CMD-28: the next click on the table places this command unit.
    pub placing: Option<PieceId>,
    cache: Cache,
}

impl Default for ActState {
    fn default() -> Self {
        ActState {
            order: OrderDraft::default(),
            angle_deg: 15.0,
            step_cm: 5.0,
            placing: None,
            cache: Cache::default(),
        }
    }
}

/// The engine's answers for one battle state.
#[derive(Debug, Default)]
struct Cache {
    state: Option<BattleState>,
    entries: usize,
    pending: Option<Pending>,
    checks: Vec<(Action, Result<(), String>)>,
    preview: Option<(OrderDraft, Result<OrderPreview, String>)>,
}

/// How many checked actions the cache keeps before it starts again.
const CHECKS_KEPT: usize = 256;

impl Cache {
    /// Forgets every answer when the battle is no longer the one they were given for.
    fn sync(&mut self, engine: &Battle) {
        let same = self.entries == engine.entries().len()
            && self.state.as_ref().is_some_and(|s| s == engine.state());
        if !same {
            self.state = Some(engine.state().clone());
            self.entries = engine.entries().len();
            self.pending = None;
            self.checks.clear();
            self.preview = None;
        }
    }

    fn pending(&mut self, engine: &Battle) -> Pending {
        self.sync(engine);
        self.pending.get_or_insert_with(|| engine.pending()).clone()
    }

    /// `Ok` when the engine accepts `action` now, or its refusal in words ("MOVE-27: …").
    fn check(&mut self, engine: &Battle, action: &Action) -> Result<(), String> {
        self.sync(engine);
        if let Some((_, r)) = self.checks.iter().find(|(a, _)| a == action) {
            return r.clone();
        }
        if self.checks.len() >= CHECKS_KEPT {
            self.checks.clear();
        }
        let r = engine.check(action).map(|_| ()).map_err(|e| e.to_string());
        self.checks.push((action.clone(), r.clone()));
        r
    }

    fn preview(&mut self, engine: &Battle, draft: &OrderDraft) -> Result<OrderPreview, String> {
        self.sync(engine);
        if let Some((d, r)) = &self.preview {
            if d == draft {
                return r.clone();
            }
        }
        let r = match draft.command {
            Some(c) if !draft.units.is_empty() => engine
                .order_preview(c, &draft.units)
                .map_err(|e| e.to_string()),
            Some(_) => Err("Tick at least one unit to order.".to_string()),
            None => Err("Choose the command unit giving the order.".to_string()),
        };
        self.preview = Some((draft.clone(), r.clone()));
        r
    }
}

/// The decisions panel and the selected unit's manoeuvres (one call from the battle page).
pub fn panel(
    ui: &mut Ui,
    view: &View<'_>,
    panel: &BattlePanel,
    state: &mut UiState,
    out: &mut Emitter,
) {
    let Some(engine) = view.engine else {
        return;
    };
    if panel.ended || view.opponent.is_some() {
        return;
    }
    let pending = state.act.cache.pending(engine);
    // The units list below keeps some of the height; a long order scrolls.
    let max = (ui.available_height() * 0.6).max(160.0);
    egui::ScrollArea::vertical()
        .id_salt("battle-act")
        .max_height(max)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            // The answers the battle waits for first, then what the selected unit may do, then
            // the order composer (the longest).
            decisions(ui, engine, panel, &pending, state, out);
            if let Some(piece) = state.battle_selected {
                manoeuvres(ui, engine, piece, state, out);
                super::battle_comms::panel(ui, engine, piece, out); // OPT-SCOUT, OPT-MULTI
            }
            orders(ui, engine, &pending, state, out);
        });
}

/// A CMD-28 placement waiting for a click: the click places the command unit there, facing
/// as it did (or as its side's first unit does). Returns whether the click was taken.
pub fn table_click(view: &View<'_>, state: &mut UiState, at: Point, out: &mut Emitter) -> bool {
    let (Some(piece), Some(engine)) = (state.act.placing, view.engine) else {
        return false;
    };
    state.act.placing = None;
    out.send(AppCommand::BattleAction(Action::ReplaceCommand {
        piece,
        at: Pose {
            at,
            facing_deg: side_facing(engine, piece),
        },
    }));
    true
}

fn side_facing(engine: &Battle, piece: PieceId) -> f64 {
    let st = engine.state();
    st.piece(piece)
        .and_then(|p| p.pose)
        .or_else(|| {
            st.pieces
                .values()
                .filter(|q| q.id.side() == piece.side() && q.on_table())
                .find_map(|q| q.pose)
        })
        .map_or(0.0, |p| p.facing_deg)
}

fn name_of(engine: &Battle, id: PieceId) -> String {
    engine
        .state()
        .piece(id)
        .map_or_else(|| id.to_string(), |p| p.name.clone())
}

fn side_name(panel: &BattlePanel, side: usize) -> String {
    panel
        .side_names
        .get(side)
        .cloned()
        .unwrap_or_else(|| format!("Side {side}"))
}

fn heading_label(ui: &mut Ui, text: &str) {
    ui.add_space(4.0);
    ui.label(RichText::new(text).bold().color(palette::BLUE));
}

/// A button for an action the engine has been asked about: enabled when accepted, otherwise
/// disabled with the refusal as hover text. Returns the refusal, if any.
fn act_button(
    ui: &mut Ui,
    engine: &Battle,
    cache: &mut Cache,
    text: &str,
    hint: &str,
    action: Action,
    out: &mut Emitter,
) -> Option<String> {
    let verdict = cache.check(engine, &action);
    let r = ui.add_enabled(verdict.is_ok(), egui::Button::new(text));
    let r = if hint.is_empty() {
        r
    } else {
        r.on_hover_text(hint)
    };
    match verdict {
        Ok(()) => {
            if r.clicked() {
                out.send(AppCommand::BattleAction(action));
            }
            None
        }
        Err(why) => {
            r.on_disabled_hover_text(&why);
            Some(why)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions.

fn decisions(
    ui: &mut Ui,
    engine: &Battle,
    panel: &BattlePanel,
    pending: &Pending,
    state: &mut UiState,
    out: &mut Emitter,
) {
    let cache = &mut state.act.cache;
    for d in &pending.decisions {
        match d {
            Decision::ChargeResponse {
                side,
                target,
                chargers,
                responders,
            } => {
                let computer = panel.computer_sides.get(*side).copied().unwrap_or(false);
                egui::Frame::new()
                    .fill(palette::WARN_BG)
                    .stroke(egui::Stroke::new(1.0, palette::WARN))
                    .inner_margin(egui::Margin::same(8))
                    .show(ui, |ui| {
                        ui.set_width(ui.available_width());
                        let charged = name_of(engine, *target);
                        let by = chargers
                            .iter()
                            .map(|c| name_of(engine, *c))
                            .collect::<Vec<_>>()
                            .join(", ");
                        if computer {
                            ui.label(
                                RichText::new(format!(
                                    "The computer ({}) answers the charge on {charged}",
                                    side_name(panel, *side)
                                ))
                                .bold(),
                            );
                            ui.label(format!("Charged by {by} (INIT-09)."));
                            if ui
                                .add_enabled(
                                    panel.computer_to_play,
                                    egui::Button::new("Let the computer answer"),
                                )
                                .on_hover_text(
                                    "The computer responds with its units and closes the window",
                                )
                                .clicked()
                            {
                                out.send(AppCommand::OpponentPlay);
                            }
                            return;
                        }
                        ui.label(
                            RichText::new(format!(
                                "{} player: respond to the charge on {charged}",
                                side_name(panel, *side)
                            ))
                            .bold()
                            .color(palette::WARN),
                        );
                        ui.label(
                            RichText::new(format!(
                                "Charged by {by}. Hand the controls over: each unit below may \
                                 answer once (INIT-09..INIT-15), then close the window."
                            ))
                            .small(),
                        );
                        if responders.is_empty() {
                            ui.label(
                                RichText::new("No unit of this side may respond.")
                                    .color(palette::FAINT),
                            );
                        }
                        for r in responders {
                            ui.label(RichText::new(name_of(engine, r.piece)).strong());
                            ui.horizontal_wrapped(|ui| {
                                for response in &r.responses {
                                    let (text, rule) = response_words(engine, response);
                                    act_button(
                                        ui,
                                        engine,
                                        cache,
                                        &text,
                                        rule,
                                        Action::Respond {
                                            piece: r.piece,
                                            target: *target,
                                            response: response.clone(),
                                        },
                                        out,
                                    );
                                }
                            });
                        }
                        act_button(
                            ui,
                            engine,
                            cache,
                            "Done responding",
                            "Close the response window: the chargers that can still reach \
                             make contact (INIT-09 steps 4-5)",
                            Action::CloseResponse { target: *target },
                            out,
                        );
                    });
                ui.add_space(4.0);
            }
            Decision::Support {
                side,
                target,
                offers,
            } => {
                heading_label(
                    ui,
                    &format!(
                        "{}: supports for the combat at {} (CHG-07, CHG-08)",
                        side_name(panel, *side),
                        name_of(engine, *target)
                    ),
                );
                ui.horizontal_wrapped(|ui| {
                    for o in offers {
                        let text = format!(
                            "{} supports {}",
                            name_of(engine, o.piece),
                            name_of(engine, o.friend)
                        );
                        act_button(
                            ui,
                            engine,
                            cache,
                            &text,
                            "Move into support of the friend in contact (CHG-07, CHG-08)",
                            Action::Support {
                                piece: o.piece,
                                friend: o.friend,
                            },
                            out,
                        );
                    }
                });
            }
            Decision::FightCombat { target } => {
                heading_label(ui, &format!("Combat at {}", name_of(engine, *target)));
                act_button(
                    ui,
                    engine,
                    cache,
                    &format!("Fight the combat at {}", name_of(engine, *target)),
                    "Roll the combat to a finish (SEQ-04, CHG-12..CHG-26)",
                    Action::ResolveCharge { target: *target },
                    out,
                );
            }
            Decision::Consolidate { piece, .. } => {
                consolidate(ui, engine, cache, *piece, out);
            }
            Decision::ReplaceCommand { piece, .. } => {
                replace_command(ui, engine, cache, *piece, &mut state.act.placing, out);
                // `cache` is borrowed again below; nothing else needs `state` here.
            }
            Decision::BreakTestDue { side } => {
                ui.label(
                    RichText::new(format!(
                        "{}: breakpoint test when this phase ends (BRK-02)",
                        side_name(panel, *side)
                    ))
                    .color(palette::WARN),
                );
            }
            Decision::Phase { .. } | Decision::Order { .. } | Decision::Over { .. } => {}
        }
    }
}

/// A response in words, with the rule it is made under.
fn response_words(engine: &Battle, r: &Response) -> (String, &'static str) {
    match r {
        Response::Fire { at } => (
            format!("Fire at {}", name_of(engine, *at)),
            "Closing fire at a charger (INIT-12)",
        ),
        Response::Evade { limber: false, .. } => (
            "Evade".to_string(),
            "Evade directly away from the chargers (INIT-13)",
        ),
        Response::Evade { limber: true, .. } => (
            "Limber or mount, then evade".to_string(),
            "Guns limber, dismounted cavalry mount, then evade (INIT-13, INIT-05 b)",
        ),
        Response::CounterCharge => (
            "Counter-charge".to_string(),
            "Mounted cavalry meet the charge (INIT-15)",
        ),
        Response::Canister => (
            "Canister".to_string(),
            "The charged gun fires canister (ART-04)",
        ),
        Response::Pivot { .. } => (
            "Pivot to face".to_string(),
            "The charged gun turns up to 90° to face the charger (INIT-10)",
        ),
    }
}

/// CHG-24: forward 0..5 cm, each asked of the engine, and the computer's own choice.
fn consolidate(ui: &mut Ui, engine: &Battle, cache: &mut Cache, piece: PieceId, out: &mut Emitter) {
    heading_label(
        ui,
        &format!("{} may consolidate (CHG-24)", name_of(engine, piece)),
    );
    let Some(from) = engine.state().piece(piece).and_then(|p| p.pose) else {
        return;
    };
    let h = heading(from.facing_deg);
    ui.horizontal_wrapped(|ui| {
        ui.label("Forward");
        for cm in 0..=5u8 {
            let d = f64::from(cm);
            let to = Pose {
                at: Point::new(from.at.x + h.x * d, from.at.y + h.y * d),
                facing_deg: from.facing_deg,
            };
            act_button(
                ui,
                engine,
                cache,
                &format!("{cm} cm"),
                "Consolidate straight ahead by this much (CHG-24)",
                Action::Consolidate { piece, to },
                out,
            );
        }
    });
    let suggestion = crate::ai::tactics::consolidations(&engine.ctx())
        .into_iter()
        .find(|a| matches!(a, Action::Consolidate { piece: p, .. } if *p == piece));
    if let Some(a) = suggestion {
        act_button(
            ui,
            engine,
            cache,
            "The computer's choice",
            "Where the solo opponent would consolidate this unit",
            a,
            out,
        );
    }
}

/// CMD-28: the replacement placed where the engine accepts it (its old spot, or behind a unit
/// of its side), or by a click on the table.
fn replace_command(
    ui: &mut Ui,
    engine: &Battle,
    cache: &mut Cache,
    piece: PieceId,
    placing: &mut Option<PieceId>,
    out: &mut Emitter,
) {
    heading_label(
        ui,
        &format!("{} may be replaced (CMD-28)", name_of(engine, piece)),
    );
    let st = engine.state();
    let mut spots: Vec<Pose> = st.piece(piece).and_then(|p| p.pose).into_iter().collect();
    spots.extend(
        st.pieces
            .values()
            .filter(|q| q.id.side() == piece.side() && !q.id.is_command() && q.on_table())
            .filter_map(|q| q.pose)
            .map(|p| {
                let h = heading(p.facing_deg);
                Pose {
                    at: Point::new(p.at.x - h.x * 8.0, p.at.y - h.y * 8.0),
                    facing_deg: p.facing_deg,
                }
            }),
    );
    let spot = spots.into_iter().take(12).find(|at| {
        cache
            .check(engine, &Action::ReplaceCommand { piece, at: *at })
            .is_ok()
    });
    ui.horizontal_wrapped(|ui| {
        if let Some(at) = spot {
            if ui
                .button("Place at the suggested spot")
                .on_hover_text(format!(
                    "At ({:.0}, {:.0}) cm, facing {:.0}°",
                    at.at.x, at.at.y, at.facing_deg
                ))
                .clicked()
            {
                out.send(AppCommand::BattleAction(Action::ReplaceCommand {
                    piece,
                    at,
                }));
            }
        }
        let armed = *placing == Some(piece);
        let text = if armed {
            "Click the table to place it…"
        } else {
            "Place by clicking the table"
        };
        if ui.selectable_label(armed, text).clicked() {
            *placing = if armed { None } else { Some(piece) };
        }
    });
}

// ---------------------------------------------------------------------------------------------
// The order composer.

/// The order composer when a command unit may give an order (CMD-02..CMD-06, CMD-29).
fn orders(ui: &mut Ui, engine: &Battle, pending: &Pending, state: &mut UiState, out: &mut Emitter) {
    let orders: Vec<(PieceId, Vec<PieceId>)> = pending
        .decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Order { command, units, .. } => Some((*command, units.clone())),
            _ => None,
        })
        .collect();
    if orders.is_empty() {
        state.act.order = OrderDraft::default();
    } else {
        order_composer(ui, engine, &orders, state, out);
    }
}

const ORDER_KINDS: [UnitActionKind; 7] = [
    UnitActionKind::Move,
    UnitActionKind::Deploy,
    UnitActionKind::Fire,
    UnitActionKind::Charge,
    UnitActionKind::Support,
    UnitActionKind::Evade,
    UnitActionKind::EngineerTask,
];

fn order_composer(
    ui: &mut Ui,
    engine: &Battle,
    orders: &[(PieceId, Vec<PieceId>)],
    state: &mut UiState,
    out: &mut Emitter,
) {
    let act = &mut state.act;
    let draft = &mut act.order;
    let cache = &mut act.cache;
    // A command unit that may no longer order (or units no longer orderable) leave the draft.
    let allowed = draft
        .command
        .and_then(|c| orders.iter().find(|(k, _)| *k == c))
        .map(|(_, u)| u.clone());
    match &allowed {
        Some(units) => draft.units.retain(|u| units.contains(&u.piece)),
        None => *draft = OrderDraft::default(),
    }
    let before = draft.clone();
    egui::Frame::new()
        .fill(palette::CARD)
        .stroke(egui::Stroke::new(1.0, palette::RULE))
        .inner_margin(egui::Margin::same(8))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.label(RichText::new("Give an order (CMD-02..CMD-06)").bold());
            // Once a command unit is chosen the others fold away (a long list otherwise).
            match draft.command {
                Some(c) => {
                    ui.horizontal_wrapped(|ui| {
                        ui.label(
                            RichText::new(format!("Command: {}", name_of(engine, c))).strong(),
                        );
                        if ui
                            .small_button("Change")
                            .on_hover_text("Choose another command unit")
                            .clicked()
                        {
                            *draft = OrderDraft::default();
                        }
                    });
                }
                None => {
                    for (command, _) in orders {
                        let text = format!("Command: {}", name_of(engine, *command));
                        if ui.selectable_label(false, text).clicked() {
                            *draft = OrderDraft {
                                command: Some(*command),
                                units: Vec::new(),
                            };
                        }
                    }
                }
            }
            let Some(units) = allowed.filter(|_| draft.command.is_some()) else {
                ui.label(
                    RichText::new("Choose the command unit giving the order.")
                        .color(palette::FAINT),
                );
                return;
            };
            let enemies: Vec<(PieceId, String)> = engine
                .state()
                .pieces
                .values()
                .filter(|q| {
                    draft.command.is_some_and(|c| q.id.side() != c.side())
                        && !q.id.is_command()
                        && q.on_table()
                })
                .map(|q| (q.id, q.name.clone()))
                .collect();
            let preview = cache.preview(engine, draft);
            match &preview {
                Ok(p) => {
                    ui.label(
                        RichText::new(format!(
                            "Needs {} or less on 2D6 (command value {})",
                            p.target, p.value
                        ))
                        .strong(),
                    );
                    for m in &p.modifiers {
                        ui.horizontal_wrapped(|ui| {
                            ui.label(RichText::new(&m.rule).monospace().color(palette::BLUE))
                                .on_hover_text(crate::rules::gist::gist(&m.rule));
                            ui.label(RichText::new(format!("{} ({:+})", m.label, m.value)).small());
                        });
                    }
                    ui.label(format!(
                        "Success {:.0}% · double one {:.0}% · blunder {:.0}%",
                        p.success * 100.0,
                        p.bonus * 100.0,
                        p.blunder * 100.0
                    ));
                }
                Err(why) if draft.units.is_empty() => {
                    ui.label(RichText::new(why).color(palette::FAINT));
                }
                Err(why) => {
                    ui.label(RichText::new(why).color(palette::ERROR));
                }
            }
            let r = ui
                .add_enabled(preview.is_ok(), egui::Button::new("Roll for the order"))
                .on_hover_text("Roll 2D6 against the command value (CMD-03, CMD-04)");
            if let (true, Some(command)) = (r.clicked(), draft.command) {
                out.send(AppCommand::BattleAction(Action::IssueOrder {
                    command,
                    units: draft.units.clone(),
                }));
                draft.units.clear();
            }
            ui.separator();
            for piece in &units {
                let name = name_of(engine, *piece);
                let pos = draft.units.iter().position(|u| u.piece == *piece);
                let mut ticked = pos.is_some();
                if ui.checkbox(&mut ticked, format!("Order {name}")).changed() {
                    if ticked {
                        draft.units.push(OrderedUnit {
                            piece: *piece,
                            action: UnitActionKind::Move,
                            target: None,
                            road: false,
                            dense: false,
                        });
                    } else {
                        draft.units.retain(|u| u.piece != *piece);
                    }
                }
                let Some(u) = draft.units.iter_mut().find(|u| u.piece == *piece) else {
                    continue;
                };
                ui.indent(("order-unit", *piece), |ui| {
                    ordered_unit(ui, u, &enemies);
                });
            }
        });
    // The preview above was drawn for the draft as the frame began: show the change at once.
    if state.act.order != before {
        ui.ctx().request_repaint();
    }
    ui.add_space(4.0);
}

/// One ticked unit of the draft: its declared action, the target a Fire or Charge is aimed at
/// (CMD-13, FIRE-06) and the road and dense-terrain flags (CMD-11, CMD-12).
fn ordered_unit(ui: &mut Ui, u: &mut OrderedUnit, enemies: &[(PieceId, String)]) {
    ui.horizontal_wrapped(|ui| {
        let does = ui.label("to");
        egui::ComboBox::from_id_salt(("order-action", u.piece))
            .selected_text(u.action.label())
            .show_ui(ui, |ui| {
                for k in ORDER_KINDS {
                    ui.selectable_value(&mut u.action, k, k.label());
                }
            })
            .response
            .labelled_by(does.id);
        if matches!(u.action, UnitActionKind::Fire | UnitActionKind::Charge) {
            let current = u
                .target
                .and_then(|t| enemies.iter().find(|(id, _)| *id == t))
                .map_or("no target named", |(_, n)| n.as_str());
            let at = ui.label("at");
            egui::ComboBox::from_id_salt(("order-target", u.piece))
                .selected_text(current)
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut u.target, None, "no target named");
                    for (id, n) in enemies {
                        ui.selectable_value(&mut u.target, Some(*id), n);
                    }
                })
                .response
                .labelled_by(at.id)
                .on_hover_text("The enemy unit aimed at (CMD-13, FIRE-06)");
        } else {
            u.target = None;
        }
    });
    if matches!(
        u.action,
        UnitActionKind::Move | UnitActionKind::Charge | UnitActionKind::Support
    ) {
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut u.road, "by road")
                .on_hover_text("The whole move is along a road (CMD-11)");
            ui.checkbox(&mut u.dense, "dense terrain")
                .on_hover_text("The move goes into, through or out of dense terrain (CMD-12)");
        });
    } else {
        u.road = false;
        u.dense = false;
    }
}

// ---------------------------------------------------------------------------------------------
// Manoeuvres and the selected unit's other actions.

/// `p` turned about `c` by `deg` clockwise (the facing convention: 0 = +y, clockwise).
fn rotate(p: Point, c: Point, deg: f64) -> Point {
    let (s, co) = deg.to_radians().sin_cos();
    let (vx, vy) = (p.x - c.x, p.y - c.y);
    Point::new(c.x + vx * co + vy * s, c.y - vx * s + vy * co)
}

fn ahead(p: Pose, bearing_deg: f64, cm: f64) -> Point {
    let h = heading(bearing_deg);
    Point::new(p.at.x + h.x * cm, p.at.y + h.y * cm)
}

/// The manoeuvres offered for a unit: (label, what it does, action).
fn manoeuvre_actions(
    engine: &Battle,
    piece: PieceId,
    angle: f64,
    step: f64,
) -> Vec<(String, &'static str, Action)> {
    let ctx = engine.ctx();
    let Some(p) = engine.state().piece(piece) else {
        return Vec::new();
    };
    let (Some(from), Some(fp)) = (
        p.pose,
        crate::rules::geometry::straight_footprint_of(&ctx, p),
    ) else {
        return Vec::new();
    };
    let mv = |to: Pose, manoeuvre: Manoeuvre| Action::Move {
        piece,
        via: Vec::new(),
        to,
        manoeuvre,
    };
    let mut out = Vec::new();
    if let Some(front) = fp.fronts.first() {
        for (text, theta, pivot) in [
            ("Wheel left", -angle, front.left),
            ("Wheel right", angle, front.right),
        ] {
            let to = Pose {
                at: rotate(from.at, pivot, theta),
                facing_deg: normalize_deg(from.facing_deg + theta),
            };
            out.push((
                format!("{text} {angle:.0}°"),
                "Pivot on a flank stand (MOVE-26)",
                mv(to, Manoeuvre::Wheel),
            ));
        }
    }
    let c = fp.centroid();
    let turned = Pose {
        at: Point::new(2.0 * c.x - from.at.x, 2.0 * c.y - from.at.y),
        facing_deg: normalize_deg(from.facing_deg + 180.0),
    };
    out.push((
        "About face".to_string(),
        "Turn to face the rear, for half the move (MOVE-27)",
        mv(turned, Manoeuvre::AboutFace),
    ));
    let back = Pose {
        at: ahead(from, from.facing_deg + 180.0, step),
        facing_deg: from.facing_deg,
    };
    out.push((
        format!("Retire {step:.0} cm"),
        "Straight back, facing kept (MOVE-28)",
        mv(back, Manoeuvre::Retire),
    ));
    for (text, off) in [("Oblique left", -angle), ("Oblique right", angle)] {
        let to = Pose {
            at: ahead(from, from.facing_deg + off, step),
            facing_deg: from.facing_deg,
        };
        out.push((
            format!("{text} {step:.0} cm"),
            "Forward at an angle, facing kept (MOVE-29)",
            mv(to, Manoeuvre::Advance),
        ));
    }
    out.push((
        format!("Forward {step:.0} cm"),
        "Straight ahead (MOVE-02)",
        mv(
            Pose {
                at: ahead(from, from.facing_deg, step),
                facing_deg: from.facing_deg,
            },
            Manoeuvre::Advance,
        ),
    ));
    out
}

/// Actions offered only where the engine accepts them: a gun's prolonge and manhandling,
/// a self-order, opportunity fire at the enemy that just acted, engineering tasks ahead.
fn other_actions(
    engine: &Battle,
    piece: PieceId,
    step: f64,
) -> Vec<(String, &'static str, Action)> {
    let Some(from) = engine.state().piece(piece).and_then(|p| p.pose) else {
        return Vec::new();
    };
    let mut out = vec![
        (
            format!("Prolonge {step:.0} cm back"),
            "The gun is drawn straight back by its limber (MOVE-24)",
            Action::Move {
                piece,
                via: Vec::new(),
                to: Pose {
                    at: ahead(from, from.facing_deg + 180.0, step),
                    facing_deg: from.facing_deg,
                },
                manoeuvre: Manoeuvre::Prolonge,
            },
        ),
        (
            format!("Manhandle {step:.0} cm forward"),
            "The crew moves the gun (MOVE-21)",
            Action::Move {
                piece,
                via: Vec::new(),
                to: Pose {
                    at: ahead(from, from.facing_deg, step),
                    facing_deg: from.facing_deg,
                },
                manoeuvre: Manoeuvre::Manhandle,
            },
        ),
        (
            "Self-order towards its command".to_string(),
            "An isolated unit orders itself to move towards its command (CMD-07)",
            Action::SelfOrder { piece },
        ),
    ];
    // FIRE-30..FIRE-32: the enemy unit that moved or fired under the last order.
    let last = engine.entries().last().and_then(|e| match &e.action {
        Action::Move { piece, .. } => Some(*piece),
        Action::Fire { firers, .. } => firers.first().copied(),
        _ => None,
    });
    if let Some(target) = last.filter(|t| t.side() != piece.side()) {
        out.push((
            format!("Opportunity fire at {}", name_of(engine, target)),
            "Fire at an enemy that moved or fired under an order (FIRE-30..FIRE-32)",
            Action::OpportunityFire {
                firers: vec![piece],
                target,
                at: None,
            },
        ));
    }
    // OPT-CONSTR-03: buildings and works the guns may fire at, with their damage so far.
    for c in engine.construction_offers(piece) {
        out.push((
            format!("Fire at {} ({}/{} hits)", c.name, c.hits, c.of),
            "Guns fire at a building or work: 6s hit, its saves, the hits stay (OPT-CONSTR-03)",
            Action::FireAtConstruction {
                firers: vec![piece],
                construction: c.construction,
                at: None,
            },
        ));
    }
    out.extend(transfer_actions(engine, piece));
    let front = ahead(from, from.facing_deg, 2.5);
    for (task, rule) in [
        (
            EngineerTaskKind::Clear,
            "Clear 5 cm of obstacle ahead (ENG-03)",
        ),
        (
            EngineerTaskKind::Bridge,
            "Lay a 5 cm pontoon section ahead (ENG-04)",
        ),
        (
            EngineerTaskKind::Demolish,
            "Demolish 5 cm of a work ahead (ENG-05)",
        ),
        (
            EngineerTaskKind::Sap,
            "Dig 5 cm of sap trench ahead (ENG-06)",
        ),
    ] {
        let mut text = task.label().to_string();
        if let Some(first) = text.get(..1) {
            text = format!("{}{}", first.to_uppercase(), text.get(1..).unwrap_or(""));
        }
        out.push((
            text,
            rule,
            Action::EngineerTask {
                piece,
                task,
                at: front,
            },
        ));
    }
    out
}

/// OPT-FIXED-03 (fixed formations on): "Transfer to …" for a unit of the CO's own formation,
/// one per other HQ, placed at the first spot beside it the rules accept.
fn transfer_actions(engine: &Battle, piece: PieceId) -> Vec<(String, &'static str, Action)> {
    use crate::rules::allegiance::{
        army_co, army_of, check_transfer, fixed_formations, formation_of, transfer_spots,
    };
    let ctx = engine.ctx();
    if !fixed_formations(ctx.scenario) {
        return Vec::new();
    }
    let side = piece.side();
    let co = army_co(&ctx, side, army_of(&ctx, piece));
    let own = formation_of(&ctx, piece).map(|hq| PieceId::Hq { side, hq });
    let (Some(unit), true) = (ctx.state.piece(piece), own.is_some() && own == co) else {
        return Vec::new();
    };
    let Some(s) = ctx.scenario.sides.get(side) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for h in s.hqs.iter().filter(|h| !h.fao) {
        let id = PieceId::Hq { side, hq: h.id };
        let Some(hp) = ctx.state.piece(id).filter(|_| Some(id) != co) else {
            continue;
        };
        if let Some(at) = transfer_spots(&ctx, hp, unit)
            .into_iter()
            .find(|at| check_transfer(&ctx, piece, h.id, *at).is_ok())
        {
            out.push((
                format!("Transfer to {}", h.name),
                "The CO sends the unit to join this HQ's formation: a command roll, then it is placed beside that HQ (OPT-FIXED-03)",
                Action::Transfer {
                    piece,
                    to_hq: h.id,
                    at,
                },
            ));
        }
    }
    out
}

fn manoeuvres(
    ui: &mut Ui,
    engine: &Battle,
    piece: PieceId,
    state: &mut UiState,
    out: &mut Emitter,
) {
    let on_table = engine.state().piece(piece).is_some_and(|p| p.on_table());
    if !on_table || piece.is_command() {
        return;
    }
    let act = &mut state.act;
    heading_label(ui, "Manoeuvres");
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("angle");
        ui.add(
            egui::DragValue::new(&mut act.angle_deg)
                .range(1.0..=45.0)
                .speed(1.0)
                .suffix("°"),
        )
        .labelled_by(l.id);
        let l = ui.label("distance");
        ui.add(
            egui::DragValue::new(&mut act.step_cm)
                .range(0.5..=60.0)
                .speed(0.5)
                .suffix(" cm"),
        )
        .labelled_by(l.id);
    });
    let mut refusals = Vec::new();
    ui.horizontal_wrapped(|ui| {
        for (text, hint, action) in manoeuvre_actions(engine, piece, act.angle_deg, act.step_cm) {
            if let Some(why) = act_button(ui, engine, &mut act.cache, &text, hint, action, out) {
                refusals.push((text, why));
            }
        }
    });
    let others: Vec<_> = other_actions(engine, piece, act.step_cm)
        .into_iter()
        .filter(|(_, _, a)| act.cache.check(engine, a).is_ok())
        .collect();
    if !others.is_empty() {
        ui.horizontal_wrapped(|ui| {
            for (text, hint, action) in others {
                act_button(ui, engine, &mut act.cache, &text, hint, action, out);
            }
        });
    }
    if !refusals.is_empty() {
        egui::CollapsingHeader::new("Why not?")
            .id_salt(("why-not", piece))
            .show(ui, |ui| {
                // One line per reason: the orders gate often refuses every manoeuvre alike.
                let mut reasons: Vec<(Vec<&str>, &str)> = Vec::new();
                for (text, why) in &refusals {
                    match reasons.iter_mut().find(|(_, w)| *w == why.as_str()) {
                        Some((texts, _)) => texts.push(text),
                        None => reasons.push((vec![text], why)),
                    }
                }
                for (texts, why) in reasons {
                    ui.label(RichText::new(format!("{}: {why}", texts.join(", "))).small());
                }
            });
    }
    ui.add_space(4.0);
}
