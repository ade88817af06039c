//! What the platform adapters' live mirrors share: how captures use them
//! (`UIDELTA_MIRROR`) and where checked captures' times go
//! (`UIDELTA_MIRROR_TIMES`).

use std::io::Write;
use std::path::{Path, PathBuf};

/// How captures use live mirrors of the applications' trees and pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MirrorUse {
    /// Read only what changed, where the platform vouches for it.
    #[default]
    On,
    /// Read the whole tree every time.
    Off,
    /// Compare a capture read in part with a whole read; log differences
    /// and answer the whole read.
    Check,
    /// Compare, and fail on a difference (for tests).
    Strict,
}

impl MirrorUse {
    /// From `UIDELTA_MIRROR`: unset, empty or `on`, `off`, `check`,
    /// `strict`; any other word is `off`, with a warning.
    pub fn from_env() -> MirrorUse {
        match std::env::var("UIDELTA_MIRROR").as_deref() {
            Err(_) | Ok("") | Ok("on") => MirrorUse::On,
            Ok("off") => MirrorUse::Off,
            Ok("check") => MirrorUse::Check,
            Ok("strict") => MirrorUse::Strict,
            Ok(other) => {
                tracing::warn!(
                    "UIDELTA_MIRROR={other:?} is not one of off, on, check, strict: off"
                );
                MirrorUse::Off
            }
        }
    }

    /// Whether captures read in part are compared with a whole read.
    pub fn checks(self) -> bool {
        matches!(self, MirrorUse::Check | MirrorUse::Strict)
    }
}

/// The file of `UIDELTA_MIRROR_TIMES`, if set.
pub fn times_file() -> Option<PathBuf> {
    std::env::var_os("UIDELTA_MIRROR_TIMES")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// One line of a times file: `app`, how the capture read it (`part` or
/// `whole:REASON`), then the milliseconds of the capture through the
/// mirror and of a whole read, tab-separated (`uidelta-bench --bin mirror
/// -- --times FILE` sums them up).
pub fn times_line(app: &str, how: &str, mirror_ms: f64, whole_ms: f64) -> String {
    let app: String = app
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("{app}\t{how}\t{mirror_ms:.3}\t{whole_ms:.3}\n")
}

/// Appends [`times_line`] to `path`; a failure is logged, not returned.
pub fn write_times(path: &Path, app: &str, how: &str, mirror_ms: f64, whole_ms: f64) {
    let line = times_line(app, how, mirror_ms, whole_ms);
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        tracing::warn!("writing the mirror's times to {}: {e}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_times_line_says_the_app_the_reading_and_both_times() {
        assert_eq!(
            times_line("gedit", "part", 4.25, 31.5),
            "gedit\tpart\t4.250\t31.500\n"
        );
        assert_eq!(
            times_line("odd\tname", "whole:first capture", 30.0, 29.0),
            "odd name\twhole:first capture\t30.000\t29.000\n"
        );
    }
}
