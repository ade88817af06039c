//! Conformance suite: one task of at least six steps per real application
//! an agent is given, each diff asserted line by line.

#[path = "../common/mod.rs"]
mod common;

mod steps;

mod calculator;
mod featherpad;
mod file_chooser;
mod firefox;
mod gedit;
mod gimp;
mod mousepad;
mod nautilus;
mod office;
mod terminal;
mod thunar;
mod thunderbird;
mod vlc;
mod zenity;
