//! What the UI can ask for: [`AppCommand`]s, the scenario edits inside them, and the table of
//! user-facing verbs ([`Verb`]) whose label, tooltip and shortcut are defined together.
//!
//! The UI only *describes* a change; `crate::app` decides whether it is possible, applies it to
//! the open scenario (with an undo snapshot), writes it to the store and reports failures. This
//! file imports no store and no file system: a command is plain data, so tests can build and
//! compare them.

use crate::export::{LabelOptions, Paper, RosterOptions};
use crate::model::validate::Subject;
use crate::model::{
    Campaign, CampaignId, DefensePosture, FeatureId, Hq, HqId, ListId, MeasureScale, OptionalRule,
    Placement, Scale, Scenario, ScenarioId, Table, TerrainFeature, TroopType, TroopTypeId, Unit,
    UnitId, Weather,
};
use egui::{Key, KeyboardShortcut, Modifiers};

/// A request from the UI to the app. Applied in order after the frame is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum AppCommand {
    /// Open a scenario in the order-of-battle editor (loads it from the store).
    OpenScenario(ScenarioId),
    /// Change the open scenario. The app snapshots it for undo, applies, validates and saves.
    Edit(ScenarioEdit),
    Undo,
    Redo,
    /// A new scenario from the template: two empty sides on the lists given.
    NewScenario {
        name: String,
        lists: [ListId; 2],
    },
    DuplicateScenario(ScenarioId),
    /// Already confirmed by the user.
    DeleteScenario(ScenarioId),
    /// Ask for a file, then import it (never replacing an existing scenario without asking).
    ImportScenarioDialog,
    /// The user confirmed that an imported file may replace the scenario with the same id.
    ImportScenarioReplacing(std::path::PathBuf),
    /// Ask where to save, then export.
    ExportScenarioDialog(ScenarioId),
    /// Ask where to save the PDF (suggesting a name from the scenario id), then print it in
    /// the background with a progress bar.
    PrintDialog {
        scenario: ScenarioId,
        print: Print,
    },
    /// Print straight to `path`, in the background: what the save dialog leads to, without the
    /// dialog (the tests use it).
    PrintTo {
        scenario: ScenarioId,
        print: Print,
        path: std::path::PathBuf,
    },
    /// Stop the background job; a PDF not yet written is not written.
    CancelJob,
    /// Scenario → Balance…: start or stop the games (`ui::balance`).
    Balance(super::balance::BalanceAsk),
    AddUserTroopType(ListId, TroopType),
    RemoveUserTroopType(ListId, TroopTypeId),
    SaveCampaign(Campaign),
    OpenCampaign(CampaignId),
    /// Begin a run of a campaign (issue #19 item 5).
    NewCampaignRun {
        campaign: CampaignId,
        name: String,
        seed: u64,
    },
    SelectCampaignRun(i64),
    DeleteCampaignRun(i64),
    /// Open the run's next battle in the battle window (start it, or resume it).
    PlayCampaignBattle {
        run: i64,
        how: super::campaigns::PlayHow,
    },
    /// The run's battle is over: write its end and carry into the next.
    CarryCampaignBattle(i64),
    /// The computer plays the run's next battle on both sides in the background, then carries.
    AutoplayCampaignBattle(i64),
    StopCampaignJob,
    /// A battle of the run fought without the app, as entered by hand.
    EnterCampaignResult {
        run: i64,
        result: crate::campaign::HandResult,
    },
    /// Print the roster (or the base labels) of the run's next battle, with the carried
    /// strength: a unit's labels are its stands as the carry left them.
    PrintCarried {
        run: i64,
        labels: bool,
    },
    DismissMessage(usize),
    /// Start and store a new battle, then show it.
    StartBattle(super::battle::StartRequest),
    /// Resume a stored battle where it was left.
    OpenBattle(i64),
    /// Back to the list of battles (the battle stays stored as it is).
    CloseBattle,
    /// Perform an action in the open battle (with the dice typed in, for physical dice).
    BattleAction(crate::rules::Action),
    BattleUndo,
    BattleRedo,
    /// Let the computer take its decisions now, one action at a time.
    OpponentPlay,
    /// Stop the computer after the action in hand.
    OpponentStop,
    /// The pause after each of the computer's actions, in ms.
    OpponentPace(u64),
    /// Ask where to save the open battle's battle file (docs/battle-file.md), then write it.
    ExportBattleDialog,
    /// Write the open battle's battle file to `path` (what the dialog leads to; tests use it).
    ExportBattleTo(std::path::PathBuf),
    /// Ask where to save the open battle's result as PDF, then print it in the background.
    PrintResultDialog(crate::export::Paper),
    /// Print the open battle's result to `path`, in the background.
    PrintResultTo {
        paper: crate::export::Paper,
        path: std::path::PathBuf,
    },
    /// Ask where to save the dice log's `text` (suggesting `file_name`) and write it there.
    SaveDiceLog {
        file_name: String,
        text: String,
    },
}

/// What to print from a scenario, with the same options as `powderhorn export`
/// (docs/export.md): a roster to play from, or labels for the bases.
#[derive(Debug, Clone, PartialEq)]
pub enum Print {
    Roster(RosterOptions),
    Labels(LabelOptions),
}

impl Print {
    /// Only this side (by name); `None`: every side.
    pub fn side(&self) -> Option<&str> {
        match self {
            Print::Roster(o) => o.side.as_deref(),
            Print::Labels(o) => o.side.as_deref(),
        }
    }

    pub fn paper(&self) -> Paper {
        match self {
            Print::Roster(o) => o.paper,
            Print::Labels(o) => o.paper,
        }
    }
}

/// One change to the open scenario. Side numbers index `Scenario::sides`.
#[derive(Debug, Clone, PartialEq)]
pub enum ScenarioEdit {
    Settings(Box<ScenarioSettings>),
    AddSide {
        list: ListId,
    },
    /// Name, list and colour of a side.
    SetSide {
        side: usize,
        name: String,
        list: ListId,
        colour: [u8; 3],
    },
    DeleteSide(usize),
    /// A new HQ under `parent` (`None`: a commanding officer).
    AddHq {
        side: usize,
        parent: Option<HqId>,
    },
    /// Replace an HQ (name, mounted, commander). A changed level or quality resets the command
    /// value to the chart's.
    SetHq {
        side: usize,
        hq: Box<Hq>,
    },
    /// Re-parent an HQ; refused when the new parent is the HQ itself or beneath it.
    MoveHq {
        side: usize,
        hq: HqId,
        parent: Option<HqId>,
    },
    /// Delete an HQ; its sub-HQs and units move up to its parent.
    DeleteHq {
        side: usize,
        hq: HqId,
    },
    /// Replace an HQ's commander with a new, unnamed one on the same chart row.
    ReplaceCommander {
        side: usize,
        hq: HqId,
    },
    AddUnit {
        side: usize,
        hq: HqId,
    },
    SetUnit {
        side: usize,
        unit: Box<Unit>,
    },
    DeleteUnit {
        side: usize,
        unit: UnitId,
    },
    /// The table editor: a drawn terrain feature (its id is replaced by the next free one).
    /// Refused when its outline is not a usable shape on the table (DATA-05..09).
    AddFeature(Box<TerrainFeature>),
    /// Replace the feature with this id (reshaped, moved, another kind); checked the same way.
    SetFeature(Box<TerrainFeature>),
    DeleteFeature(FeatureId),
    /// Where a unit starts (`None`: off the table, not yet placed).
    PlaceUnit {
        side: usize,
        unit: UnitId,
        at: Option<Placement>,
    },
    PlaceHq {
        side: usize,
        hq: HqId,
        at: Option<Placement>,
    },
    /// Lay every unit and HQ of the side out in line in its deployment zone.
    DeploySide(usize),
    /// Lay an HQ, its units and everything under it out in line in the side's zone, clear of
    /// the side's other placed pieces.
    DeployHq {
        side: usize,
        hq: HqId,
    },
    /// A side's deployment zone or an objective's area (an empty ring clears it). Refused when
    /// the ring is not a usable area on the table (DATA-05..07).
    SetArea {
        side: usize,
        area: SideArea,
        ring: Vec<crate::geom::Point>,
    },
    /// A ready-made piece of terrain (one or several features) centred at a table point, as
    /// one edit; each feature is checked as a drawn one is.
    AddPiece {
        piece: ReadyMade,
        at: crate::geom::Point,
    },
    /// The table editor's Defences tool: a field defence bought and placed for `side` (its id
    /// is replaced by the next free one). Refused when the purchase breaks DEF-01..03 (not the
    /// defender, an item the posture does not offer, over the budget) or its outline is not a
    /// usable shape on the table; placement problems (DEF-05) are allowed and shown.
    AddDefense {
        side: usize,
        defense: Box<crate::model::FieldDefense>,
    },
    /// Replace the side's defence with this id (moved, more or fewer sections, an occupant);
    /// checked the same way, the budget only when it costs more.
    SetDefense {
        side: usize,
        defense: Box<crate::model::FieldDefense>,
    },
    /// Sell a bought defence back (its points return to the budget).
    DeleteDefense {
        side: usize,
        id: crate::model::DefenseId,
    },
    /// What a side's major (or minor) objective asks, in words (OBJ-01).
    SetObjectiveText {
        side: usize,
        major: bool,
        description: String,
    },
}

/// Ready-made terrain for fast authoring: drop, then reshape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadyMade {
    Wood,
    Village,
    /// A farmhouse inside a walled yard.
    Farm,
    /// A hill of two contours.
    Hill,
    /// A river across the whole table with a road bridging it.
    RiverWithBridge,
    Road,
}

impl ReadyMade {
    pub const ALL: [ReadyMade; 6] = [
        ReadyMade::Wood,
        ReadyMade::Village,
        ReadyMade::Farm,
        ReadyMade::Hill,
        ReadyMade::RiverWithBridge,
        ReadyMade::Road,
    ];
    pub fn label(self) -> &'static str {
        match self {
            ReadyMade::Wood => "Wood",
            ReadyMade::Village => "Village",
            ReadyMade::Farm => "Farm with walls",
            ReadyMade::Hill => "Hill, two contours",
            ReadyMade::RiverWithBridge => "River with a bridge",
            ReadyMade::Road => "Road",
        }
    }
}

/// The areas a side owns on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideArea {
    DeploymentZone,
    MajorObjective,
    MinorObjective,
}

impl SideArea {
    pub const ALL: [SideArea; 3] = [
        SideArea::DeploymentZone,
        SideArea::MajorObjective,
        SideArea::MinorObjective,
    ];
    pub fn label(self) -> &'static str {
        match self {
            SideArea::DeploymentZone => "Deployment zone",
            SideArea::MajorObjective => "Major objective",
            SideArea::MinorObjective => "Minor objective",
        }
    }
    /// The ring this names on a side.
    pub fn of(self, side: &crate::model::Side) -> &[crate::geom::Point] {
        match self {
            SideArea::DeploymentZone => &side.deployment_zone,
            SideArea::MajorObjective => &side.objectives.major.area,
            SideArea::MinorObjective => &side.objectives.minor.area,
        }
    }
}

/// The scenario-wide fields the settings form edits, as one value so that a form can change
/// one field and send the whole.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSettings {
    pub name: String,
    pub date: String,
    pub year: Option<u16>,
    pub description: String,
    pub table: Table,
    pub scale: Scale,
    /// BAS-01: the miniature scale.
    pub measure_scale: MeasureScale,
    pub points: u32,
    pub turn_limit: u32,
    pub weather: Weather,
    pub defense: DefensePosture,
    pub defender: Option<usize>,
    /// SEQ-01: the side that moves first (`None`: a roll-off).
    pub first_player: Option<usize>,
    pub optional_rules: Vec<OptionalRule>,
}

impl ScenarioSettings {
    pub fn of(s: &Scenario) -> Self {
        ScenarioSettings {
            name: s.name.clone(),
            date: s.date.clone(),
            year: s.year,
            description: s.description.clone(),
            table: s.table,
            scale: s.scale,
            measure_scale: s.measure_scale,
            points: s.points,
            turn_limit: s.turn_limit,
            weather: s.weather,
            defense: s.defense,
            defender: s.defender,
            first_player: s.first_player,
            optional_rules: s.optional_rules.clone(),
        }
    }

    pub fn apply_to(self, s: &mut Scenario) {
        s.name = self.name;
        s.date = self.date;
        s.year = self.year;
        s.description = self.description;
        s.table = self.table;
        s.scale = self.scale;
        s.measure_scale = self.measure_scale;
        s.points = self.points;
        s.turn_limit = self.turn_limit;
        s.weather = self.weather;
        s.defense = self.defense;
        s.defender = self.defender;
        s.first_player = self.first_player;
        s.optional_rules = self.optional_rules;
    }
}

/// What the tree and inspector have selected in the order-of-battle editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Selection {
    #[default]
    Scenario,
    Side(usize),
    Hq(usize, HqId),
    Unit(usize, UnitId),
}

impl Selection {
    /// The validation subject a selection shows problems for.
    pub fn subject(self) -> Subject {
        match self {
            Selection::Scenario => Subject::Scenario,
            Selection::Side(s) => Subject::Side(s),
            Selection::Hq(s, h) => Subject::Hq(s, h),
            Selection::Unit(s, u) => Subject::Unit(s, u),
        }
    }
}

/// The user-facing verbs. Label, tooltip and shortcut live in one table ([`Verb::spec`]) so a
/// button, a menu entry and a key press can never disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Undo,
    Redo,
    NewScenario,
    DuplicateScenario,
    DeleteScenario,
    ImportScenario,
    ExportScenario,
    PrintRoster,
    PrintLabels,
    /// "Print…" on a scenario row: opens it and the print options.
    PrintScenario,
    /// In the print options: choose the file, then write.
    SavePdf,
    CancelJob,
    AddSide,
    DeleteSide,
    AddCo,
    AddHq,
    DeleteHq,
    ReplaceCommander,
    AddUnit,
    DeleteUnit,
    AddTroopType,
    RemoveTroopType,
}

/// How a verb presents itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerbSpec {
    pub label: &'static str,
    pub tooltip: &'static str,
    pub shortcut: Option<KeyboardShortcut>,
    /// A second key for the same verb (Ctrl+Y for redo).
    pub alt_shortcut: Option<KeyboardShortcut>,
}

const fn ctrl(key: Key) -> Option<KeyboardShortcut> {
    Some(KeyboardShortcut::new(Modifiers::COMMAND, key))
}

const fn ctrl_shift(key: Key) -> Option<KeyboardShortcut> {
    Some(KeyboardShortcut::new(
        Modifiers::COMMAND.plus(Modifiers::SHIFT),
        key,
    ))
}

impl Verb {
    /// Verbs with a global keyboard shortcut, most specific first (Ctrl+Shift+Z before Ctrl+Z:
    /// egui matches shortcuts ignoring extra Shift).
    pub const WITH_SHORTCUTS: [Verb; 5] = [
        Verb::Redo,
        Verb::Undo,
        Verb::NewScenario,
        Verb::ImportScenario,
        Verb::PrintRoster,
    ];

    pub const fn spec(self) -> VerbSpec {
        let (label, tooltip, shortcut, alt_shortcut) = match self {
            Verb::Undo => (
                "Undo",
                "Undo the last change to this scenario",
                ctrl(Key::Z),
                None,
            ),
            Verb::Redo => (
                "Redo",
                "Redo the change last undone",
                ctrl_shift(Key::Z),
                ctrl(Key::Y),
            ),
            Verb::NewScenario => (
                "New scenario",
                "Create a scenario with two empty sides on the lists chosen",
                ctrl(Key::N),
                None,
            ),
            Verb::DuplicateScenario => {
                ("Duplicate", "Copy this scenario under a new id", None, None)
            }
            Verb::DeleteScenario => (
                "Delete",
                "Delete this scenario from the database (asks first)",
                None,
                None,
            ),
            Verb::ImportScenario => (
                "Import…",
                "Read a scenario JSON file into the database",
                ctrl(Key::O),
                None,
            ),
            Verb::ExportScenario => ("Export…", "Write this scenario to a JSON file", None, None),
            Verb::PrintRoster => (
                "Print roster…",
                "Save a PDF roster to play from: chain of command, stat lines, breakpoints",
                ctrl(Key::P),
                None,
            ),
            Verb::PrintLabels => (
                "Print labels…",
                "Save PDF sheets of stat labels, each the size of its base, with cut marks",
                None,
                None,
            ),
            Verb::PrintScenario => (
                "Print…",
                "Open this scenario and print its roster or base labels as PDF",
                None,
                None,
            ),
            Verb::SavePdf => (
                "Save PDF…",
                "Choose where to save the PDF, then write it (the window stays usable)",
                None,
                None,
            ),
            Verb::CancelJob => ("Stop", "Stop printing: the PDF is not written", None, None),
            Verb::AddSide => (
                "Add side",
                "Add a side with an empty order of battle",
                None,
                None,
            ),
            Verb::DeleteSide => (
                "Delete side",
                "Delete this side and its whole order of battle",
                None,
                None,
            ),
            Verb::AddCo => (
                "Add commanding officer",
                "Add the side's CO, the root of its chain of command (CMD-27)",
                None,
                None,
            ),
            Verb::AddHq => ("Add sub-HQ", "Add an HQ commanded by this one", None, None),
            Verb::DeleteHq => (
                "Delete HQ",
                "Delete this HQ; its sub-HQs and units move up to its parent",
                None,
                None,
            ),
            Verb::ReplaceCommander => (
                "Replace commander",
                "Remove this commander and put a new, unnamed one in his place",
                None,
                None,
            ),
            Verb::AddUnit => ("Add unit", "Add a unit under this HQ", None, None),
            Verb::DeleteUnit => ("Delete unit", "Delete this unit", None, None),
            Verb::AddTroopType => (
                "Add troop type",
                "Add this row to the list's troop chart (saved in the database, marked 'user')",
                None,
                None,
            ),
            Verb::RemoveTroopType => ("Remove", "Remove this user-made troop type", None, None),
        };
        VerbSpec {
            label,
            tooltip,
            shortcut,
            alt_shortcut,
        }
    }

    pub fn label(self) -> &'static str {
        self.spec().label
    }
}
