//! What a rule ID is about, in our own words: a short title and one or two sentences for
//! every rule of the catalogue (`../shared/rules/bptc-catalogue.md`) and every one of our own
//! data checks (DATA-…). The window shows them when a rule ID is hovered (the dice log, a
//! refusal) and lists them all on the Rules page. They paraphrase the catalogue's rulings; none
//! copies its wording or the rulebook's (tests/rules_gists.rs checks both).
//!
//! [`gist`] is the one call most code needs; [`entry`] and [`all`] give the parts; an ID the
//! table lacks falls back to a sentence about its family ("FIRE": firing), never to nothing.

/// One rule in our own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleGist {
    /// The catalogue ID, e.g. "FIRE-14".
    pub id: &'static str,
    pub title: &'static str,
    pub text: &'static str,
}

/// The families of rule IDs in the order the rulebook takes them, with a sentence each.
pub const FAMILIES: &[(&str, &str)] = &[
    ("BAS", "Basics: the table, the scale of the miniatures and how stands are based."),
    ("GEN", "General principles: units of stands, attacks, hits, saves, knock-outs, suppression and disorder."),
    ("VIS", "Visibility: who can see whom, through and over terrain."),
    ("SEQ", "Sequence of play: each player turn runs Initiative, Command, Charge and End phases in turn."),
    ("INIT", "Initiative: what units may do on their own before any orders are given."),
    ("CMD", "Command: orders from commanders, the 2D6 command roll and its modifiers."),
    ("MOVE", "Movement and formations: how far and how units move, turn and change formation."),
    ("TERR", "Terrain: what woods, towns, hills, water and obstacles do to movement, sight and cover."),
    ("FIRE", "Firing: ranges, dice per stand, scores to hit, cover, saves and suppression."),
    ("ART", "Artillery: guns, their loads, limbers and special fire."),
    ("PIKE", "Pikes: units that still carry them."),
    ("SKIR", "Skirmishers: a brigade's screen of light troops."),
    ("CHG", "Charges and close combat: declaring, responding, fighting and what follows."),
    ("ENG", "Engineers: clearing, bridging, demolishing and sapping."),
    ("END", "The End phase and the end of the battle: hits turn into lost stands; turn limits."),
    ("BRK", "Breakpoints: when an army has lost too much and must withdraw."),
    ("OBJ", "Objectives: what each side must take or hold to win."),
    ("VP", "Victory points: what each side earns for what the other lost."),
    ("DEF", "Field defences: trenches, barricades and the like, bought before the battle."),
    ("ARMY", "Army building: how a force is chosen from its list."),
    ("COL", "The columns of an army list and what each means."),
    ("SOLO", "Playing alone."),
    ("OPT", "An optional rule a scenario may switch on."),
    ("DATA", "A check of the data itself (a reference or a value the rules cannot use)."),
];

/// Every rule we have words for, in the rulebook's order.
pub fn all() -> impl Iterator<Item = RuleGist> {
    GISTS
        .iter()
        .map(|(id, title, text)| RuleGist { id, title, text })
}

/// The leading rule ID of a citation: "FIRE-28 (b)" and "CMD-19 result 4" give "FIRE-28" and
/// "CMD-19"; "OPT-WEATHER-03" stays whole.
pub fn id_of(rule: &str) -> &str {
    let rule = rule.trim();
    let mut end = 0;
    let mut seen_digit = false;
    for (i, c) in rule.char_indices() {
        let ok = if seen_digit {
            c.is_ascii_digit()
        } else {
            c.is_ascii_uppercase() || c == '-' || c.is_ascii_digit()
        };
        if !ok {
            break;
        }
        if c.is_ascii_digit() && rule[..i].ends_with('-') {
            seen_digit = true;
        }
        end = i + c.len_utf8();
    }
    &rule[..end]
}

/// The family of an ID: "OPT-WEATHER-03" is "OPT", "FIRE-14" is "FIRE".
pub fn family_of(rule: &str) -> &str {
    rule.split('-').next().unwrap_or(rule)
}

/// The sentence of a family, if it is one of ours.
pub fn family_words(family: &str) -> Option<&'static str> {
    FAMILIES.iter().find(|(f, _)| *f == family).map(|(_, w)| *w)
}

/// The words for one rule ID (a citation with a tail such as "FIRE-28 (b)" finds FIRE-28).
pub fn entry(rule: &str) -> Option<RuleGist> {
    let id = id_of(rule);
    GISTS
        .iter()
        .find(|(i, _, _)| *i == id)
        .map(|(id, title, text)| RuleGist { id, title, text })
}

/// What a rule ID is about, in our own words: "FIRE-14 — Score to hit: Targets in the open are
/// hit on …". An ID we have no words for gets its family's sentence, and an unknown family a
/// plain "no summary", never an empty string.
pub fn gist(rule: &str) -> String {
    if let Some(g) = entry(rule) {
        return format!("{} — {}: {}", g.id, g.title, g.text);
    }
    match family_words(family_of(id_of(rule))) {
        Some(text) => format!("{rule} — {text}"),
        None => format!("{rule}: no summary for this rule yet"),
    }
}

/// (ID, title, our sentence) for every rule, in the rulebook's order.
#[rustfmt::skip]
const GISTS: &[(&str, &str, &str)] = &[
    // Basics
    ("BAS-01", "Figure size", "Any figure size from 2 to 20 mm will do; tiny figures halve every distance and large ones double it. Figures bigger than 20 mm play as 20 mm."),
    ("BAS-02", "Stands hold the numbers", "Figures are never counted: each stand has its attack dice, the damage it can take and its save. Commanders take up no room when measuring."),
    ("BAS-03", "Base sizes", "Foot stands are 2.5 by 1.5 cm, horse 3.5 by 2, guns 2.5 by 2.5 and transport 2.5 by 3.5; command stands here are 3 cm square."),
    ("BAS-04", "How big a game", "The book suggests a table of at least 180 by 240 cm and a few hundred stands at most; the app gives this as advice only."),
    ("BAS-05", "What you need at the table", "Six-sided dice, a tape in centimetres and markers for hits and suppression; the app keeps the markers as unit state."),
    ("BAS-06", "How much scenery", "Cover a third to a half of the table with terrain so no one sees from edge to edge; advice only."),
    // General principles
    ("GEN-01", "How play flows", "Sides take turns of four fixed phases until objectives are met or an army breaks; failed orders never hand the turn over early."),
    ("GEN-02", "One way to settle every attack", "Musketry, guns and melee all go through the same casualty steps, and hits from several attackers on one target add up."),
    ("GEN-03", "Units and scales", "Troops fight as units of several stands, and a scenario picks company, battalion (the default) or brigade scale."),
    ("GEN-04", "Company scale", "A unit is a company, a single gun with its limber, or a troop of horse; ranges from the lists are doubled."),
    ("GEN-05", "Battalion scale", "The default: a unit is a battalion, a two-gun section or a regiment of horse, and list ranges are used as printed."),
    ("GEN-06", "Brigade scale", "A unit is a whole brigade or a battery; list ranges are halved."),
    ("GEN-07", "What the scale changes", "Only weapon ranges taken from the army lists grow or shrink with the scale; moves and charge distances stay as they are."),
    ("GEN-08", "Formations are grouped per order", "A formation is simply the group of units given one order, and it may be made up differently each turn unless fixed formations are switched on."),
    ("GEN-09", "The Command", "All of one player's units together are his Command, his army for the battle."),
    ("GEN-10", "Attacks, Hits and Save", "Attacks is how many dice a stand throws, Hits how much damage it can soak up before it is lost, and Save the die score that wipes a hit away."),
    ("GEN-11", "Hits pile up, then cost stands", "Hits stay on a unit for the rest of the player turn; at the End phase every full stand's worth removes a stand and any leftover is dropped."),
    ("GEN-12", "Knocked out", "A unit whose hits this turn reach the total Hits of its stands is out of the game at once; some rules (a rout, a crushing charge defeat) knock it out directly."),
    ("GEN-13", "Suppression and falling back", "A hit unit may be suppressed; hit again while suppressed it falls back, and falling back too far is a rout."),
    ("GEN-14", "Disorder", "Winners of a charge are disordered for a while: two dice fewer and one less hit before they are knocked out."),
    ("GEN-15", "Exhaustion (overview)", "Charging horse also become exhausted; the app follows the firing chapter's version (FIRE-29), not the overview's lost die."),
    ("GEN-16", "The casualty steps", "Count the attack dice and their modifiers, roll for hits against the cover score, let the target save, check for a knock-out, then test for suppression or falling back."),
    // Visibility
    ("VIS-01", "Sight is needed", "A unit can only use initiative, fire or charge against an enemy it can see; there are no spotting rolls."),
    ("VIS-02", "Drawing sight lines", "It is enough that one straight line from any point of the observer's stands to any point of the target's stands is clear, inside the arc and within the limit."),
    ("VIS-03", "What a unit can see", "Ordinary units see only ahead of their front edge; command units and squares see all round."),
    ("VIS-04", "How far anyone sees", "Nothing beyond 100 cm is visible; bad weather or night cuts that to 40 or 10 cm."),
    ("VIS-05", "Looking into cover (general)", "The general 5 cm allowance for seeing into woods or towns gives way to the specific terrain distances; it only survives for hard-to-spot troops."),
    ("VIS-06", "Same hill level", "Two units on the same level of one hill are not blocked by that hill, though woods and units may still block them."),
    ("VIS-07", "What blocks sight", "Woods, towns, hills, walls and hedges and other units block sight lines; infantry skirmish lines do not."),
    ("VIS-08", "Hidden guns", "Enemy guns tucked into terrain or behind a wall that have not fired yet cannot be chosen as targets until they give themselves away."),
    ("VIS-09", "Walls, fences and hedges", "These block sight unless one of the two units touches the obstacle; dug-in troops stay hidden even then."),
    ("VIS-10", "Kinds of area terrain", "Low areas are fields, long grass and scrub; high areas are woods, orchards and built-up ground, each with a marked edge."),
    ("VIS-11", "Seeing across area terrain", "A sight line through an area is blocked unless one of the units stands on its edge."),
    ("VIS-12", "Seeing units inside terrain", "Hidden guns, scouts and dug-in troops are seen only from 5 cm; others from 10 cm in high areas and 20 cm in low ones."),
    ("VIS-13", "Over a low area", "A sight line may pass through one low area that neither unit is in, for no more than 10 cm of it."),
    ("VIS-14", "Hills and the crest", "A line through the hill's middle decides who on the slope is visible from below: those on the near side of it are."),
    ("VIS-15", "Looking down from a hill", "Units on high ground see over low areas, though woods and towns still block them."),
    ("VIS-16", "Who may dig in", "Only a defender may begin dug in, bought as a trench or dug-out in a points game; no one digs in during play."),
    ("VIS-17", "Dug-in troops stay hidden", "Dug-in units behind a wall or at the inner edge of an area are unseen until they move or fire, and once revealed they stay revealed."),
    // Sequence
    ("SEQ-01", "Starting play", "Once both sides are deployed the first player takes a full player turn, then the other."),
    ("SEQ-02", "Player turns and game turns", "Each side's turn is a player turn; one of each makes a game turn."),
    ("SEQ-03", "The four phases", "Every player turn runs Initiative, Command, Charge and End, always in that order."),
    ("SEQ-04", "When charges are fought", "Initiative charges are fought after all initiative actions, command charges once the order's actions are done, and the Charge phase settles anything left."),
    ("SEQ-05", "Housekeeping", "Fixed moments in the turn where the app replaces commanders, tests breakpoints, ends disorder and clears per-turn records."),
    // Initiative
    ("INIT-01", "Initiative", "Each active unit with a visible enemy within 20 cm may take one action of its own against the nearest such enemy, without orders."),
    ("INIT-02", "Who acts first", "The active player picks the order; each unit's nearest visible enemy is judged at the moment it acts."),
    ("INIT-03", "Who gets no initiative", "Suppressed units, commanders, units that took opportunity fire last turn and engineers busy with a task cannot use initiative."),
    ("INIT-04", "Firing on initiative", "The unit shoots once at its nearest visible enemy if it is within 20 cm, in range and in its cone; the result is settled at once."),
    ("INIT-05", "Evading", "The unit moves away from the nearest visible enemy up to its full move and may face any way; squares and immobile units cannot."),
    ("INIT-06", "Deploying on initiative", "With an enemy close, the unit may change formation, limber or unlimber, mount or dismount, or turn a gun."),
    ("INIT-07", "Charging on initiative", "A unit with an enemy in sight inside 20 cm may launch itself at the closest one, heading straight for the nearest edge it can see."),
    ("INIT-08", "Edges that cannot be reached", "A charger may not squeeze through gaps under 5 cm or cross other units or impassable ground to reach an edge."),
    ("INIT-09", "How a charge runs", "Declare, close to 2 cm, let the enemy react, make contact, then fight it out; a charger merely suppressed on the way still goes in, at a penalty."),
    ("INIT-10", "Who cannot charge; guns charged", "Commanders and guns never charge; a charged gun may turn to face, pull back, or fire canister, one of these only."),
    ("INIT-11", "Supporting on initiative", "A unit may use its initiative to join a fight within 10 cm, lining up behind a friendly unit in it."),
    ("INIT-12", "Reacting to a charge", "The charged unit and other unsuppressed friends that can see the charger may shoot at it or evade, one at a time."),
    ("INIT-13", "No change of heart", "After the defender has reacted, the charge cannot be called off."),
    ("INIT-14", "Evading a charge", "The defender slips away and the charger may follow in a straight line up to 20 cm from its start; if it is caught, the fight goes on."),
    ("INIT-15", "Horse meets a charge", "Mounted cavalry never stand to receive a charge: they evade or charge back, and both sides then count as charging."),
    ("INIT-16", "Engineer work on initiative", "Engineers may do one engineering task as their initiative action, even with no enemy near."),
    // Command
    ("CMD-01", "Command value", "A commander's rating is both the number his two dice must not exceed and the most orders he may get through in one turn."),
    ("CMD-02", "One commander at a time", "The active player picks a commander, who gives all his orders before another begins."),
    ("CMD-03", "Giving an order", "Name the commander, the units and what each will do, work out the modified value, roll two dice: equal or under succeeds."),
    ("CMD-04", "An order that works", "Each unit in it carries out its action straight away, or two actions on a command bonus."),
    ("CMD-05", "An order that fails", "That commander gives no more orders this turn; if it was the army commander, nobody on his side does."),
    ("CMD-06", "One commander per unit", "A unit takes orders from one commander a turn, possibly several in a row; once left alone or after a failure it cannot be ordered again."),
    ("CMD-07", "A unit on its own", "A unit cut off from all friends may order itself every other turn, only to move towards its nearest commander; it needs 7 or less on two dice."),
    ("CMD-08", "Repeat orders cost more", "Each further order to the same units this turn is one harder than the last, and units that used initiative start one down."),
    ("CMD-09", "Distance to the farthest unit", "Up to 20 cm costs nothing; beyond that the order is one harder for every started 20 cm."),
    ("CMD-10", "Measuring to the commander", "Command distance is measured edge to edge from the command stand to the nearest stand of the farthest unit ordered."),
    ("CMD-11", "Road moves are exempt", "Units that keep to a road for their whole move do not count when the app looks for the most distant unit of the order."),
    ("CMD-12", "Into dense terrain", "An order that takes any unit into, through or out of ground dense for it is one harder."),
    ("CMD-13", "Charging someone close", "An order to charge a visible enemy already within 10 cm is one harder."),
    ("CMD-14", "Other command modifiers", "A list of further bonuses and penalties from elsewhere: touching a column you order, the army commander picking up stragglers, weather and the like."),
    ("CMD-15", "What an order can do", "Ordered units move, deploy, fire or charge at once, in any order the player likes, each choosing its own action."),
    ("CMD-16", "Choosing targets under orders", "An ordered unit may shoot at any enemy it can see in range and in its cone, not only the nearest."),
    ("CMD-17", "Double one: command bonus", "The order succeeds whatever the odds, and each unit in it may act twice; it still counts as one order."),
    ("CMD-18", "Double six: blunder", "The order fails with all the usual consequences and a die is thrown on the blunder table."),
    ("CMD-19", "Blunder results", "One die picks a mishap for the units being ordered, from friendly fire and cross-fire to halting or charging wildly; units that do not fit a result do nothing."),
    ("CMD-20", "Commanders move last", "At the end of the Command phase each unsuppressed commander may move its full distance; one tied to a unit moves only with it."),
    ("CMD-21", "Commander alongside", "A commander touching a unit he commands adds his own bonus dice when that unit attacks."),
    ("CMD-22", "Commander caught up", "A commander touching a unit that is attacked shares its fate: suppressed, carried back or knocked out with it, with no dice of his own."),
    ("CMD-23", "Commanders do not fight", "A commander's attack figure is only his bonus to others; he never fires, charges or supports on his own."),
    ("CMD-24", "Commanders are not targets", "No one may aim fire or a charge at a commander, though shell bursts, canister and round shot can still catch him."),
    ("CMD-25", "Overrun commanders", "An enemy moving into a commander forces him to join a friendly unit within half his move, or he is knocked out."),
    ("CMD-26", "Commander joined to a unit", "A commander forced to join a unit stays with it until his side's next turn and shares whatever it suffers."),
    ("CMD-27", "The army commander", "The senior commander on a side is its army commander; everyone else is a subordinate headquarters."),
    ("CMD-28", "A replacement commander", "Once a game each lost commander may come back at the start of his side's turn, one point worse, unable to order or move that turn."),
    ("CMD-29", "The army commander steps in", "The army commander may try units a subordinate failed to order this turn, one harder than usual."),
    ("CMD-30", "The unit's command stand", "A unit's own command stand is a fighting stand of the unit and the centre of its formation, not a commander."),
    // Movement
    ("MOVE-01", "When units move", "Units move on initiative, under each successful order, in charges and their aftermath, and when they fall back."),
    ("MOVE-02", "How far a unit moves", "Up to its list move in any direction, measured along the path of the stand that travels farthest, less terrain and manoeuvre costs."),
    ("MOVE-03", "Crossing walls and hedges", "Troops halt on reaching an obstacle and cross it at the start of their next move, which they may then use in full."),
    ("MOVE-04", "Narrow gaps", "A unit cannot pass through a gap narrower than its current frontage."),
    ("MOVE-05", "Guns in forts", "Guns placed in fortifications never move."),
    ("MOVE-06", "Moving through friends", "A unit may pass through friendly units, but only half as far that move, and may not end on top of them."),
    ("MOVE-07", "Pushed through the enemy", "Any unit pushed through the enemy's ranks by a fall-back, retreat or evade is lost."),
    ("MOVE-08", "Moving past commanders", "Friendly commanders do not get in the way; moving into an enemy one overruns him."),
    ("MOVE-09", "Formations", "Five shapes a unit can take (line, loose line, two kinds of column and square) plus disorder forced on it by charges; switching shape is a deploy action."),
    ("MOVE-10", "Which formation changes are allowed", "A table of which formation may become which; nobody chooses to become disordered, and leaving disorder is a deploy."),
    ("MOVE-11", "Line", "Stands side by side, all may fire and a bonus save die is thrown, but the flanks are weak."),
    ("MOVE-12", "Extended line", "One loose rank with gaps between stands; all fire, but with one die fewer."),
    ("MOVE-13", "March column", "Stands one behind another: fast on roads, only the head fires, and any shot at it counts as hitting a flank."),
    ("MOVE-14", "Attack column", "Two stands wide and several deep; only the front pair fire and no save bonus applies."),
    ("MOVE-15", "Square", "One stand facing out on each side: it cannot move, has no flanks, sees all round and each face fires its own way."),
    ("MOVE-16", "Who may form square", "Not in American Civil War games, not before 1760, not cavalry and not poor or irregular foot."),
    ("MOVE-17", "Forced into square", "Foot shot at with enemy horse within 30 cm and no friendly horse near must form square at once; shots at a square get extra dice."),
    ("MOVE-18", "Square against horse", "In a fight with cavalry a square counts one step better protected; irregular horse may not charge one."),
    ("MOVE-19", "Disordered formation", "A jumble around the command stand: the unit moves normally, cannot charge and fires from its leader's facing."),
    ("MOVE-20", "Limbered guns", "A limbered gun moves and takes hits as its transport and cannot fire; unlimbered it uses the gun's own line."),
    ("MOVE-21", "Moving guns", "A gun is either towed at the limber's speed or pushed by its crew a short way; heavy siege pieces cannot be pushed."),
    ("MOVE-22", "Turning a gun", "Swinging an unlimbered gun round is a deploy; a charged gun may turn up to 90 degrees in response."),
    ("MOVE-23", "Limbering and unlimbering", "Either takes one deploy, and a gun may not do both under one order."),
    ("MOVE-24", "Prolonge", "A deployed gun with its limber touching may be dragged straight back its longer move distance and stay ready to fire."),
    ("MOVE-25", "Road bonus", "A column or limbered gun that spends its whole move on a road goes 5 cm further on foot, 10 cm if horsed."),
    ("MOVE-26", "Wheeling", "Foot or horse may swing round one flank while moving, at most 45 degrees a move for lines, measured along the outer arc."),
    ("MOVE-27", "About face", "Turning right round costs half the move; the rest may still be used."),
    ("MOVE-28", "Stepping back", "Foot may back away keeping their facing, up to three quarters of their move, which ends the move."),
    ("MOVE-29", "Oblique", "Foot or horse may drift up to 45 degrees off straight ahead, keeping facing, but not wheel in the same move."),
    ("MOVE-30", "Refusing a flank", "A line may bend one or both end stands back up to 45 degrees by a deploy; each bent stand then fires its own way."),
    // Terrain
    ("TERR-01", "Open ground", "Plain table: nothing slows movement."),
    ("TERR-02", "Walls, fences, hedges", "Troops halt at them and cross next move; limbered guns and wagons cannot cross at all."),
    ("TERR-03", "Kinds of area", "Low areas are fields and scrub, high areas woods, orchards and towns, each with a marked edge."),
    ("TERR-04", "Slowed inside areas", "Every centimetre inside a low area costs two of the move, inside a high area four."),
    ("TERR-05", "Halting at area edges", "A unit reaching an area stops just inside it; leaving, it stops at the edge before stepping out."),
    ("TERR-06", "Hills and mountains", "Hills do not slow anyone; mountains are closed except to foot or along a path."),
    ("TERR-07", "Wet ground", "Marsh is foot-only and slow, streams are crossed like walls, deep water only at bridges and fords."),
    ("TERR-08", "Dense ground", "Ground dense for a kind of troops cuts their move to a quarter and makes ordering them into it harder."),
    ("TERR-09", "Roads through dense ground", "A unit keeping to a road through dense ground moves normally, with the road bonus."),
    ("TERR-10", "Slow-downs do not stack", "Where several slow-downs apply to the same stretch, only the worst one counts."),
    ("TERR-11", "Frozen ground", "Snow does not slow anyone; frozen water and marsh are crossed like a wood."),
    ("TERR-12", "Impassable ground", "Cliffs, ravines and the like stop everyone unless a path runs through."),
    ("TERR-13", "Field defences in the way", "Stakes and ditches stop all but foot, who cross them like a wall; wire stops horses and towed guns until it is cleared."),
    ("TERR-14", "Commanders and terrain", "Commanders go where foot can go, never halting at edges or slowing, and only impassable ground stops them."),
    // Firing
    ("FIRE-01", "When units fire", "Once on initiative at the nearest enemy, once per fire action under orders, and once as opportunity fire in the enemy's turn."),
    ("FIRE-02", "Range", "Measure edge to edge; the target is in range if that is no more than the weapon's range after scaling."),
    ("FIRE-03", "Weapons", "Each unit's range reflects the arms it carried, as the army list's notes describe."),
    ("FIRE-04", "Fire cone", "A unit shoots ahead into a wedge widening 15 degrees each side from the ends of its firing front, out to its range."),
    ("FIRE-05", "Which stands fire", "All stands of a line, the head of a march column, the front pair of an attack column, and a square's faces that see the target."),
    ("FIRE-06", "Declare before rolling", "Range may be checked at any time, but every target of an order is named before any dice are thrown."),
    ("FIRE-07", "Shooting over units", "Nobody fires over other units, except guns from higher ground, or howitzers and mortars lobbing shells."),
    ("FIRE-08", "Attack dice", "Dice per stand times the stands that can fire; in a mixed unit each stand adds its own dice if the target is in its range."),
    ("FIRE-09", "Firing together", "Several units firing at one target in one order make a single attack with one save roll and one test."),
    ("FIRE-10", "Flank and rear shots", "A firer wholly outside the target's front cone shoots at its flank or rear."),
    ("FIRE-11", "Dice modifiers", "Fewer dice at a loose line, more at close range and at a flank or rear, more at a square."),
    ("FIRE-12", "More dice modifiers and the minimum", "Further additions and cuts from other rules; however many are taken away, a unit keeps at least one die."),
    ("FIRE-13", "First volley", "A unit's very first shot of the battle hits more easily: one is added to each of its to-hit dice."),
    ("FIRE-14", "Score to hit", "Targets in the open are hit on 4 or more, in light cover on 5 or more, in heavy cover and commanders only on a 6."),
    ("FIRE-15", "How much cover", "The app grades cover as open, soft, hard or full according to where the target stands."),
    ("FIRE-16", "Guns ignore some cover", "Artillery treats its target's cover as one step lighter: soft counts as open, hard as soft."),
    ("FIRE-17", "Saving throws", "A target with a save throws one die per hit, plus any bonus dice, and each die reaching its save cancels a hit."),
    ("FIRE-18", "Reading save values", "A blank, a dash, a zero or 'None' all mean no save; the other spellings all mean that score or better."),
    ("FIRE-19", "Save modifiers", "Hits on a flank or rear make the save one worse (6 stays 6); a unit in line gets one extra save die."),
    ("FIRE-20", "Knock-out check", "After saves, a unit whose hits this turn reach its total Hits is knocked out; otherwise the hits stay marked."),
    ("FIRE-21", "Towed loads", "A transport that is knocked out or suppressed takes its gun or load with it."),
    ("FIRE-22", "Suppression test", "A unit that survives throws one die per hit it kept; any die reaching the score needed to hit it suppresses it."),
    ("FIRE-23", "What suppression does", "A suppressed unit loses its next turn entirely (no initiative, orders or reactions), and a suppressed commander gives no orders and stays put."),
    ("FIRE-24", "Falling back", "A unit already suppressed that is hit again throws a die per hit and moves back that many centimetres, straight away from the shooter."),
    ("FIRE-25", "Not twice from one order", "A unit suppressed by an order does not also fall back from a later attack of that same order."),
    ("FIRE-26", "What falling back costs", "Going back more than 20 cm, into the enemy, into impassable ground or off the table knocks the unit out; dug-in troops and deployed guns stay put."),
    ("FIRE-27", "Steady and shaky troops", "Elite units throw one die fewer when falling back, poor ones one more."),
    ("FIRE-28", "Disorder after a charge", "Winners of a charge are disordered until after the next initiative phase: two dice fewer, one less Hit to be knocked out."),
    ("FIRE-29", "Tired horse", "Cavalry that charged are also exhausted for as long: one more Hit less and no evading."),
    ("FIRE-30", "Opportunity fire", "In the enemy's Command phase each unsuppressed unit may shoot once at an enemy that moves or fires in its sight."),
    ("FIRE-31", "Shooting at a mover", "The shooter picks a point on the enemy's move; the mover halts there for the shot and carries on unless suppressed."),
    ("FIRE-32", "The price of opportunity fire", "It is declared before measuring and wasted if out of range or cone; the unit then gets no initiative in its own next turn and orders cost it one."),
    ("FIRE-33", "No opportunity fire at chargers", "A charging or supporting unit is answered by reaction fire only, never by opportunity fire."),
    // Artillery
    ("ART-01", "Which ammunition", "Howitzers and mortars fire only shell; other guns fire round shot or shell at range and canister when charged."),
    ("ART-02", "Round shot", "The ball hits its target and ploughs on for 5 cm behind the first stand it strikes, attacking whatever is in its path."),
    ("ART-03", "Shell", "The burst attacks everything within 3 cm of where it lands, friends and commanders included."),
    ("ART-04", "Canister", "Fired only by a charged gun: every stand in the gun's cone within canister range is attacked."),
    ("ART-05", "Howitzers", "They fire only lobbed shell, get no close-range bonus, and their shell does nothing to troops in cover."),
    ("ART-06", "Regimental guns", "A scenario may attach a light howitzer stand to a foot unit; it moves and takes orders with the unit and fires as a howitzer."),
    ("ART-07", "Mortars", "They lob shell only, cannot be pushed by hand, and troops sheltering behind a wall they fire across save on 4 or more."),
    ("ART-08", "Lobbed shot may stray", "Dice decide whether high-angle fire lands where aimed; if not, more dice give the direction and how far it drifts."),
    ("ART-09", "Counter-battery", "Where a gun must shoot at the nearest enemy, it may choose the nearest enemy guns instead."),
    ("ART-10", "Artillery officers", "One for every six guns: a commander who orders only guns formed up together and firing at one target."),
    // Pikes and skirmishers
    ("PIKE-01", "Pikes against horse", "Horse cannot charge the front of a unit with pikes; its sides and rear are open as usual."),
    ("PIKE-02", "Pikes against foot", "Pikemen defending against foot in a charge count one step better protected."),
    ("SKIR-01", "Who gets a screen", "After 1760 a brigade fighting together may put out two skirmisher stands for every three foot units."),
    ("SKIR-02", "Placing the screen", "The screen stays within 5 cm in front of its brigade while it is in line or column of attack, and goes as soon as the enemy touches it."),
    ("SKIR-03", "The screen soaks up fire", "Shots through the screen lose a die per firing unit, and the hits land on the skirmishers first."),
    ("SKIR-04", "What a screen cannot do", "It blocks no sight, never charges or supports, and a charge that meets it sweeps it away and may carry on."),
    // Charges
    ("CHG-01", "What a charge is", "A move into contact followed by close fighting, always fought to a finish."),
    ("CHG-02", "Who may be charged", "On initiative only the nearest visible enemy within 20 cm; under orders any enemy the charger sees within reach."),
    ("CHG-03", "Charge distance and formation", "Foot and horse charge up to 20 cm, and only from line or attack column (some only from column)."),
    ("CHG-04", "The charge path", "The charger may first turn to face the target for free, then goes straight in; nothing may stand in the way."),
    ("CHG-05", "More than one target", "A charge touching several enemy units becomes a separate fight with each, in the order the attacker picks."),
    ("CHG-06", "Charging over obstacles", "Guns and commanders never charge, and a charge may cross an obstacle only if one side already touches it."),
    ("CHG-07", "Who may support", "A unit with attack dice within 10 cm that can see a friend in the fight may move up behind it to help; suppressed, disordered and squared units cannot."),
    ("CHG-08", "Limits on support", "Each unit supports only one fight per initiative phase or per order, shares the fight's outcome, and both sides may bring supporters."),
    ("CHG-09", "Firing at the charger", "The charged unit and friends within 10 cm may shoot at the chargers (never the supporters) as they come in."),
    ("CHG-10", "Making contact", "The charger hits the nearest edge it can see; each edge takes one charger, and gaps under 5 cm cannot be entered."),
    ("CHG-11", "Caught on the flank", "A unit hit in the side or rear fights only with the stands that touch the enemy."),
    ("CHG-12", "When fights are settled", "The timing of charge fights is as SEQ-04 sets out."),
    ("CHG-13", "Dice in close combat", "Per stand in contact: sabre-charging horse 4, other horse 3, foot 2, everyone else 1."),
    ("CHG-14", "Close-combat modifiers", "A die more for charging (first round) and for each supporter, a die less for each suppressed unit and for fighting to a flank."),
    ("CHG-15", "Other close-combat modifiers", "Extra dice for heavy horse and lancers in the charge and similar list rules, taken in the rounds they apply."),
    ("CHG-16", "Score to hit in a fight", "Chargers count as in the open in the first round; defenders use their own cover, and after that everyone is in the open."),
    ("CHG-17", "Where hits land", "The attackers' hits all go on the defender; the defenders' hits go on one charging unit picked by a fixed order."),
    ("CHG-18", "Saves in a fight", "Units save as against fire, but there is no suppression test or falling back from charge hits."),
    ("CHG-19", "Counting the score", "Each side adds up the hits its units in the fight have taken this turn, earlier ones included."),
    ("CHG-20", "A tie", "Fight another round at once with no charge bonuses and everyone in the open; if no one is touching any more, both stay put."),
    ("CHG-21", "A narrow win", "The side that took more hits is suppressed and pulls back half a move; the winners may push forward a little."),
    ("CHG-22", "A crushing win", "If the loser took twice the hits or more, its units in contact are knocked out and its supporters suppressed and driven back."),
    ("CHG-23", "One side wiped out", "If every unit in contact on one side is knocked out, it counts as a crushing win for the other side whatever the scores."),
    ("CHG-24", "Pushing forward", "Winners may advance up to 5 cm and turn, stopping short of 3 cm from any enemy in sight."),
    ("CHG-25", "Pulling back", "A loser moves half its move straight away from the enemy it fought without turning; running into the enemy or impassable ground knocks it out."),
    ("CHG-26", "After the fight", "Winning chargers are disordered (and horse exhausted), and commanders with the units share what happened to them."),
    // Engineers
    ("ENG-01", "Engineers", "An engineer stand attached to a foot unit makes the whole unit an engineer unit while it lasts."),
    ("ENG-02", "When engineers work", "A task takes the unit's initiative action and is cancelled if the engineers are suppressed before the phase ends; they cannot be ordered that turn."),
    ("ENG-03", "Clearing obstacles", "Engineers touching wire, stakes or abatis clear a 5 cm gap on a 3 or better and may then step into it."),
    ("ENG-04", "Bridging", "Engineers at water or a ditch lay 5 cm of bridge each initiative phase without a roll; a section can be shot away."),
    ("ENG-05", "Demolition", "Engineers against a fortification knock down a 5 cm stretch on a 4 or better."),
    ("ENG-06", "Saps and mines", "In a siege engineers dig a trench forward 5 cm each initiative phase."),
    // End of turn and of battle
    ("END-01", "Hits become lost stands", "At each End phase every unit loses a stand for each full stand's worth of hits taken, then its hits are wiped."),
    ("END-02", "Shaking off suppression", "The active side removes suppression markers from its own units placed in an earlier player turn."),
    ("END-03", "When the battle ends", "When a major objective is taken, the turns run out, an army breaks or a player gives up."),
    ("BRK-01", "Breakpoint", "Half a side's units, rounded up, not counting commanders, worked out at the start."),
    ("BRK-02", "Breakpoint test", "Once a side has lost that many units it rolls at the start of each later turn against its commander's value, harder for each further loss; failing means it breaks."),
    ("BRK-03", "After a break", "If the first player breaks, the other finishes the game turn and the battle ends; if the second breaks, it ends at once."),
    ("OBJ-01", "Who won on objectives", "Compare how far each side got towards its minor and major objectives to get a draw, a minor or a decisive result."),
    ("OBJ-02", "The ladder of results", "Results rank from decisive defeat up through draw to decisive victory with promotion."),
    ("VP-01", "Victory points", "Each side scores the points cost of everything the other lost, commanders and field defences included."),
    ("VP-02", "Cap for a side that withdrew", "A side that broke or gave up cannot end with more victory points than its opponent."),
    ("VP-03", "Twice the points", "Scoring at least double the opponent's victory points lifts your result one step up the ladder."),
    ("VP-04", "Handicap multiplier", "A per-side multiplier a scenario may set on victory points; it is 1 unless changed."),
    ("SOLO-01", "Playing alone", "No extra rules: the uncertain command dice make solo play work, and the computer opponent plays by the same rules."),
    // Field defences
    ("DEF-01", "Buying field defences", "A defender in a hasty or fixed position may buy obstacles, trenches and works with his points; some only suit fixed positions."),
    ("DEF-02", "How much may be spent", "At most a tenth of the points for a hasty defence and a quarter for a fixed one, inside the game's total."),
    ("DEF-03", "The defences and their costs", "Trenches, dug-outs, wire, ditches, stakes and works of earth, logs or stone, each with a price and a note of who may buy it."),
    ("DEF-04", "What each defence gives", "Trenches dig a unit in with light cover; works give light, heavy or full cover; wire, stakes and ditches only block."),
    ("DEF-05", "Placing defences", "They go in the defender's deployment area before troops are set out, in 10 by 5 cm sections."),
    ("DEF-06", "Lost defences score", "A defence cleared, demolished or destroyed, or a trench whose occupants are knocked out, gives its cost to the other side as victory points."),
    // Army building
    ("ARMY-01", "Points per stand", "The points figure is the price of one stand; a unit costs its stands times that."),
    ("ARMY-02", "Game sizes", "Around 1,500 points is a brigade; larger totals make a division or more."),
    ("ARMY-03", "Unit sizes", "Default and allowed numbers of stands for each arm, such as five stands for a foot unit."),
    ("ARMY-04", "Minimum and maximum", "The list limits count units of foot and horse and stands of everything else, for each full 1,500 points."),
    ("ARMY-05", "Foot is compulsory", "Every force needs foot, except an all-horse force, which uses the foot limits for its cavalry."),
    ("ARMY-06", "How many headquarters", "Each command level may have one headquarters for so many units, as the list's chart or nation text sets."),
    ("ARMY-07", "Excellent commanders and the army commander", "Lists cap the number of top-quality commanders per level, and every force needs at least one commander."),
    ("ARMY-08", "Chain of command", "Every unit gets a parent headquarters and each headquarters a senior one, up to the army commander."),
    ("ARMY-09", "Elite and poor units", "Some lists let units be made elite (tougher, steadier, dearer) or poor (shakier, cheaper), within limits."),
    ("ARMY-10", "Rows not bought alone", "Skirmisher profiles, dismounted horse and limbers come with other purchases rather than as units of their own."),
    ("ARMY-11", "Horse artillery", "Horse guns cost more; in the Civil War list they are an ordinary gun plus 10 points with a faster limber."),
    ("ARMY-12", "Dates on list rows", "A row dated to certain years may only be used in battles of those years."),
    ("ARMY-13", "Ratios", "Some troops come only in proportion to others, such as one artillery officer per six guns."),
    ("ARMY-14", "Historical forces", "Historical scenarios follow the real order of battle and the commanders' real standing."),
    ("ARMY-15", "Cost adjustments", "A summary of the extra or reduced prices for elite, poor, horse guns, morale grades and defences."),
    // List columns
    ("COL-01", "Troop name column", "The row's name, sometimes with years that limit when it may be used."),
    ("COL-02", "Arm column", "Foot, horse, guns, transport and so on; a horse-drawn limber is not cavalry for fighting."),
    ("COL-03", "Move column", "Centimetres per move; a pair of numbers means different things for guns, horse and other rows."),
    ("COL-04", "Attack column", "Dice per stand and range; for a commander, the bonus dice he lends to a unit he touches."),
    ("COL-05", "Hits column", "Damage one stand can take; a unit's total is the sum over its stands."),
    ("COL-06", "Save column", "The score needed to cancel a hit; lower is better and blanks mean none."),
    ("COL-07", "Points column", "Price per stand, or per commander."),
    ("COL-08", "Limit column", "How many may be fielded per 1,500 points, or a headquarters ratio."),
    ("COL-09", "Notes column", "Numbers pointing at that list's own special rules; the same number means different things in different lists."),
    ("COL-10", "Command chart", "Each commander's level, quality, command value, move, bonus dice, hits, save and price."),
    ("COL-11", "Sample lines", "The book's example lines are only illustrations; the army charts are what counts."),
    ("COL-12", "Light troops' save", "Light troops get a 5 or better save only where their row prints none at all."),
    ("COL-13", "Lancers, heavy, elite and poor notes", "Such notes say what a row may be made or what it always is, not a separate unit type."),
    // Optional rules
    ("OPT-AIRBURST-01", "Air burst", "Shell may be set to burst overhead: a smaller 2 cm zone at one die less, but the targets count as in the open."),
    ("OPT-SABER-01", "Sabre charge declared", "Horse may declare a sabre charge and then may not shoot until the fight is over."),
    ("OPT-SABER-02", "Sabre bonus", "Sabre-charging horse throw four dice a stand instead of three, in the first round only."),
    ("OPT-SABER-03", "Safe from sabres", "Squares deny the sabre bonus, and foot with rifles get an extra die against horse charging them."),
    ("OPT-SCOUT-01", "Sending out scouts", "Horse stands may be sent ahead as single scouts to find hidden enemy troops."),
    ("OPT-SCOUT-02", "Scouts moving and spotting", "After one successful order scouts roam freely and spot hidden enemies at 30 cm in the open, 15 cm in cover."),
    ("OPT-SCOUT-03", "Scouts in danger", "A scout that is shot at or touched leaves the table but is not counted as lost."),
    ("OPT-WEATHER-01", "Kinds of weather", "Normal, poor (rain, snow, haze) or extreme (fog, blizzard, storm)."),
    ("OPT-WEATHER-02", "Weather at the start", "Two dice before the game: 12 gives extreme weather, 10 or 11 poor, anything else normal."),
    ("OPT-WEATHER-03", "What weather does", "Poor weather makes every order one harder and limits sight to 40 cm; extreme makes orders two harder and sight 10 cm."),
    ("OPT-WEATHER-04", "Weather changing", "Two dice after each game turn: double six makes it one step worse, double one one step better."),
    ("OPT-NIGHT-01", "Night", "Night fights as poor weather that never improves; with weather too, the worse of the two applies."),
    ("OPT-CONSTR-01", "Buildings and works as targets", "Buildings and fortifications get their own hits and save for every 5 cm of length."),
    ("OPT-CONSTR-02", "Troops inside buildings", "Foot inside may use the building's save if it is better, and fire at them may damage the building too."),
    ("OPT-CONSTR-03", "Wrecking buildings", "Guns that can harm a building roll needing 6s, the damage stays for the rest of the battle, and enough of it brings the building down."),
    ("OPT-PRONE-01", "Lying down", "A unit lies down or gets up with a deploy action and is marked as prone."),
    ("OPT-PRONE-02", "Being prone", "Each unit shooting at prone troops does one hit fewer; prone troops are limited in what they can do."),
    ("OPT-MULTI-01", "Teams keep quiet", "With several players a side, each runs at least one formation and team-mates may only talk when a roll allows."),
    ("OPT-MULTI-02", "Talking rolls", "A command roll lets a player speak to a team-mate for a few seconds; both succeeding lets them talk both ways."),
    ("OPT-NATION-01", "Mixed nations", "In an allied army units take orders only from the army commander and headquarters of their own nation."),
    ("OPT-NATION-02", "Still one army", "Apart from orders, an allied army has one commander, one breakpoint and one points total."),
    ("OPT-NATION-03", "Separate allies", "When one of several allied armies on a side breaks, its units are suppressed at once and leave at the end of the turn."),
    ("OPT-FIXED-01", "Fixed formations", "Before the battle each unit is assigned to one commander's formation for good."),
    ("OPT-FIXED-02", "Ordering fixed formations", "Only a unit's own commander may order it, though he may order parts of his formation separately."),
    ("OPT-FIXED-03", "Moving a unit to another formation", "The army commander may hand a unit to another formation with a command roll measured to that formation's commander."),
    ("OPT-MORALE-01", "Morale grades", "A grade per unit sets what die suppresses it and how far it may fall back before it is lost, and changes its price."),
    ("OPT-MORALE-02", "Morale grades in a fight", "The grade may also set the score needed to hit the unit in close combat, in every round."),
    // Our own data checks
    ("DATA-01", "Army list installed", "Each side must name an army list this database has."),
    ("DATA-02", "Troop type in the list", "Every unit's troop type must be a row of its side's army list."),
    ("DATA-03", "Commander in the chart", "Every commander's level and quality must be a row of the list's command chart."),
    ("DATA-04", "Table size", "The table's width and depth must be numbers above zero and no more than 100 m."),
    ("DATA-05", "Lines and areas drawn properly", "A line needs two points and an area three corners, with no repeated neighbouring points and a sensible width."),
    ("DATA-06", "Coordinates", "Every coordinate must be a number and no more than 100 m beyond the table's edge."),
    ("DATA-07", "No self-crossing shapes", "An outline may not cross or touch itself; draw a looping road as two roads."),
    ("DATA-08", "Terrain on the table", "A terrain feature or defence may not lie wholly off the table."),
    ("DATA-09", "Shapes not too detailed", "A shape may have at most 4,096 corners; simplify larger ones."),
    ("DATA-10", "Pieces on the table", "A unit or commander must stand wholly on the table, at a position that is a number."),
    ("DATA-11", "Pieces not overlapping", "Two pieces may touch but not overlap; a commander may stand on his own side's troops only."),
    ("DATA-12", "Pieces on passable ground", "No unit or commander may be placed on ground it could not move through."),
    ("DATA-13", "Usable identifiers", "Every id in a scenario must be present, free of control characters and at most 100 characters long, so it can be stored and found again."),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_words_and_unknown_ids_say_so() {
        assert!(gist("FIRE-14").starts_with("FIRE-14 — Score to hit: "));
        assert!(gist("OPT-WEATHER-02").contains("Weather at the start"));
        // No entry, but a known family: the family's sentence.
        assert_eq!(
            gist("FIRE-99"),
            "FIRE-99 — Firing: ranges, dice per stand, scores to hit, cover, saves and suppression."
        );
        assert!(gist("XYZ-1").contains("no summary"));
    }

    #[test]
    fn a_citation_with_a_tail_finds_its_rule() {
        assert_eq!(id_of("FIRE-28 (b)"), "FIRE-28");
        assert_eq!(id_of("CMD-19 result 4"), "CMD-19");
        assert_eq!(id_of("OPT-WEATHER-03"), "OPT-WEATHER-03");
        assert_eq!(id_of("CHG-16,"), "CHG-16");
        assert_eq!(entry("FIRE-28 (b)").map(|g| g.id), Some("FIRE-28"));
        assert_eq!(family_of("OPT-NIGHT-01"), "OPT");
    }

    #[test]
    fn ids_are_unique_and_every_family_is_listed() {
        let mut seen = std::collections::BTreeSet::new();
        let mut n = 0;
        for g in all() {
            assert!(seen.insert(g.id), "{} twice", g.id);
            assert!(family_words(family_of(g.id)).is_some(), "{}", g.id);
            assert!(!g.title.is_empty() && g.text.ends_with('.'), "{}", g.id);
            n += 1;
        }
        assert!(n >= 290, "only {n} gists");
    }
}
