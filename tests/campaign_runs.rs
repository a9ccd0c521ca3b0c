//! Campaign runs kept in the store (issue #19 items 3 and 8): a run of the shipped Danube
//! campaign played battle by battle through stored battle sessions, with the store closed and
//! reopened between battles, ends exactly as the same campaign played straight through by
//! `campaign::play::autoplay` with the same seed; the end of a battle and the carry into the
//! next land together; a battle still being fought cannot be carried.

use powderhorn::ai::Limits;
use powderhorn::campaign::play::autoplay;
use powderhorn::model::CampaignId;
use powderhorn::session::campaign::{
    begin_run, campaign_scenarios, finish_battle, start_next, CampaignError, NextBattle,
};
use powderhorn::store::{RunStatus, Store};

fn danube() -> CampaignId {
    CampaignId("danube-1809".into())
}

#[test]
fn a_stored_run_reopened_between_battles_ends_as_one_played_straight_through() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("camp.sqlite");
    let seed = 5;
    let (campaign, scenarios, lists) = {
        let store = Store::open(&db).unwrap();
        let c = store.load_campaign(&danube()).unwrap();
        let s = campaign_scenarios(&store, &c).unwrap();
        (c, s, store.army_lists().unwrap())
    };
    assert_eq!(campaign.battles.len(), 3, "the sample links three battles");
    let straight = autoplay(&campaign, &scenarios, &lists, seed, &Limits::default()).unwrap();
    assert!(straight.stopped.is_none(), "{:?}", straight.stopped);

    let run = {
        let mut store = Store::open(&db).unwrap();
        begin_run(&mut store, &danube(), seed, "").unwrap()
    };
    for i in 0..3 {
        // A fresh store each battle: nothing is carried in memory.
        let mut store = Store::open(&db).unwrap();
        let rec = store.load_campaign_run(run).unwrap();
        assert_eq!(rec.played, i);
        let next = rec.next().expect("a battle waits");
        assert_eq!(next.pos, i);
        // The carry into it is the straight run's, change for change.
        assert_eq!(next.start.carry_in.changes, straight.battles[i].carry_in);
        let mut session = start_next(&mut store, run, &lists, NextBattle::COMPUTER).unwrap();
        session
            .play_ai(
                &mut store,
                [true, true],
                powderhorn::ai::Until::End,
                &mut |_| true,
            )
            .unwrap();
        drop(session);
        drop(store);
        let mut store = Store::open(&db).unwrap();
        let rec = finish_battle(&mut store, run).unwrap();
        let end = rec.battles[i].end.as_ref().expect("the battle is over");
        assert_eq!(end.after.changes, straight.battles[i].outcome);
        assert_eq!(end.result.winner, straight.battles[i].result.winner);
        assert_eq!(end.result.vps, straight.battles[i].result.vps);
    }
    let store = Store::open(&db).unwrap();
    let rec = store.load_campaign_run(run).unwrap();
    assert_eq!(rec.status, RunStatus::Ended);
    assert_eq!(rec.played, 3);
    assert!(rec.next().is_none());
    assert_eq!(rec.forces, straight.forces);
    let summaries = store.campaign_runs(Some(&danube())).unwrap();
    assert_eq!(summaries.len(), 1);
    assert_eq!((summaries[0].played, summaries[0].battles), (3, 3));
}

#[test]
fn a_battle_still_being_fought_is_not_carried_and_changes_nothing() {
    let mut store = Store::open_in_memory().unwrap();
    let lists = store.army_lists().unwrap();
    let run = begin_run(&mut store, &danube(), 2, "club night").unwrap();
    let before = store.load_campaign_run(run).unwrap();
    assert_eq!(before.name, "club night");
    // Not started: nothing to finish.
    let e = finish_battle(&mut store, run).unwrap_err();
    assert!(matches!(e, CampaignError::NotNow(_)), "{e}");
    let _session = start_next(&mut store, run, &lists, NextBattle::COMPUTER).unwrap();
    let e = finish_battle(&mut store, run).unwrap_err();
    assert!(e.to_string().contains("still being fought"), "{e}");
    let after = store.load_campaign_run(run).unwrap();
    assert_eq!(after.played, 0);
    assert_eq!(after.forces, before.forces);
    assert_eq!(after.battles.len(), 1);
    // Starting it again resumes the same session instead of a second battle.
    let again = start_next(&mut store, run, &lists, NextBattle::COMPUTER).unwrap();
    assert_eq!(Some(again.id()), after.battles[0].battle_id);
}

#[test]
fn two_runs_of_one_campaign_side_by_side_keep_their_own_forces() {
    let mut store = Store::open_in_memory().unwrap();
    let lists = store.army_lists().unwrap();
    let a = begin_run(&mut store, &danube(), 1, "a").unwrap();
    let b = begin_run(&mut store, &danube(), 2, "b").unwrap();
    powderhorn::session::campaign::autoplay_next(&mut store, a, &lists, &mut |_| true).unwrap();
    let ra = store.load_campaign_run(a).unwrap();
    let rb = store.load_campaign_run(b).unwrap();
    assert_eq!((ra.played, rb.played), (1, 0));
    assert_ne!(
        ra.forces, rb.forces,
        "run a carried its first battle, b did not"
    );
    store.delete_campaign_run(b).unwrap();
    assert_eq!(store.campaign_runs(None).unwrap().len(), 1);
}
