//! The delta loop: snapshot, act, wait until the UI settles, snapshot, diff.
//!
//! A [`Session`] is written against [`uidelta_backend::Backend`] only. It
//! keeps the latest snapshot of every application it has seen and one ref
//! table, so refs stay stable across actions; targets are refs (`e12`) or
//! [`selector`]s; settling follows [`settle`].

mod error;
pub mod selector;
mod session;
pub mod settle;

pub use error::{Error, Result};
pub use session::{
    ActOptions, ActionOutcome, AppDiff, AppId, AwayRef, Condition, DragEnd, KnownApp, SavedApp,
    SavedGoneRef, SavedSession, Session, WaitOutcome, WindowAction,
};
pub use settle::{Quiet, Settle, Settled};
