//! Undo and redo for the scenario editor: a stack of whole-`Scenario` snapshots per scenario.
//!
//! A scenario is a few kilobytes, so snapshots are simpler and safer than inverse operations:
//! undo can never disagree with what an edit did. Each scenario keeps its own history, so
//! switching between scenarios and back still undoes the right thing. The stacks are capped.
//! No store and no egui: `app` saves whatever state undo or redo lands on.

use crate::model::{Scenario, ScenarioId};
use std::collections::BTreeMap;

/// How many steps back one scenario keeps.
pub const DEPTH: usize = 200;

#[derive(Debug, Default)]
struct Stacks {
    undo: Vec<Scenario>,
    redo: Vec<Scenario>,
}

/// Snapshot stacks for every scenario edited in this session.
#[derive(Debug, Default)]
pub struct History {
    by_scenario: BTreeMap<ScenarioId, Stacks>,
}

impl History {
    /// Records the state before an edit; a new edit drops the redo tail.
    pub fn record(&mut self, before: Scenario) {
        let st = self.by_scenario.entry(before.id.clone()).or_default();
        st.undo.push(before);
        if st.undo.len() > DEPTH {
            st.undo.remove(0);
        }
        st.redo.clear();
    }

    /// The state to go back to from `current`, remembering `current` for redo.
    pub fn undo(&mut self, current: &Scenario) -> Option<Scenario> {
        let st = self.by_scenario.get_mut(&current.id)?;
        let prev = st.undo.pop()?;
        st.redo.push(current.clone());
        Some(prev)
    }

    pub fn redo(&mut self, current: &Scenario) -> Option<Scenario> {
        let st = self.by_scenario.get_mut(&current.id)?;
        let next = st.redo.pop()?;
        st.undo.push(current.clone());
        Some(next)
    }

    pub fn can_undo(&self, id: &ScenarioId) -> bool {
        self.by_scenario.get(id).is_some_and(|s| !s.undo.is_empty())
    }

    pub fn can_redo(&self, id: &ScenarioId) -> bool {
        self.by_scenario.get(id).is_some_and(|s| !s.redo.is_empty())
    }

    /// Forgets a scenario (deleted or replaced by an import).
    pub fn forget(&mut self, id: &ScenarioId) {
        self.by_scenario.remove(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::edit::template;
    use crate::model::ListId;

    #[test]
    fn undo_then_redo_walks_the_snapshots() {
        let lists = [ListId::new("a"), ListId::new("b")];
        let s0 = template(ScenarioId::new("x"), "X", &lists, &[]);
        let mut s1 = s0.clone();
        s1.points = 2000;
        let mut h = History::default();
        h.record(s0.clone());
        assert!(h.can_undo(&s0.id));
        let back = h.undo(&s1).unwrap();
        assert_eq!(back, s0);
        assert!(h.can_redo(&s0.id));
        assert_eq!(h.redo(&back).unwrap(), s1);
        // A new edit drops the redo tail.
        h.undo(&s1);
        h.record(s0.clone());
        assert!(!h.can_redo(&s0.id));
    }
}
