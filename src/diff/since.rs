//! `planner diff --since WHEN`: what was installed or replaced in one environment since then,
//! reconstructed from the install records' file times (each dist-info folder, its `RECORD` and
//! `INSTALLER`), newest first, each with the broken edges it introduced.
//!
//! This is a reconstruction, not a history: a removed dist leaves no record, a replaced one
//! leaves only its new version, and copying or touching the folders changes the times.

use std::path::Path;
use std::str::FromStr;
use std::time::SystemTime;

use jiff::Timestamp;
use serde::Serialize;

use super::{DistState, EdgeChange, broken_edges};
use crate::inventory::{DistFormat, Inventory};

/// `schema` of `planner diff --since --format json`.
pub(crate) const SINCE_SCHEMA: &str = "planner-diff-since/1";

/// What the caveat says, in every output.
pub(crate) const CAVEAT: &str = "reconstructed from install-record file times (dist-info folder, RECORD, \
INSTALLER): removed dists and replaced versions leave no trace, and copying or touching the \
environment changes the times";

/// Why `--since` cannot answer.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum SinceError {
    /// `WHEN` is neither a date, a timestamp nor a duration.
    #[error(
        "`{0}` is not a date (2025-11-30), a timestamp (2025-11-30T12:00:00Z) or a duration (3d, 12h, 90m, 2w)"
    )]
    #[diagnostic(
        code(planner::diff::since),
        help(
            "a duration counts back from now (`--since 1d` for the last 24 hours, `--since 2w`); a date is read in this machine's time zone"
        )
    )]
    BadWhen(String),
    /// `WHEN` names a time after now (a negative duration, or a future date): nothing can have
    /// been installed since then, so the answer would be an empty list that means nothing.
    #[error("`{when}` is {at}, in the future: nothing can have been installed since then")]
    #[diagnostic(
        code(planner::diff::since_future),
        help(
            "a duration counts back from now and is positive (`--since 3d` for the last three days, not `-3d`); a date or timestamp must be in the past"
        )
    )]
    Future {
        /// `WHEN` as given.
        when: String,
        /// The instant it names.
        at: Timestamp,
    },
    /// The environment has no install records (a snapshot).
    #[error("`{0}` is a snapshot: it has no install records, so --since needs a venv")]
    #[diagnostic(
        code(planner::diff::since_snapshot),
        help("pass the venv itself, or compare two snapshots with `planner diff A B`")
    )]
    NoRecords(String),
}

/// One dist installed or replaced since `WHEN`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Installed {
    /// The dist.
    pub name: String,
    /// What is installed now.
    pub now: DistState,
    /// The newest of the folder's, `RECORD`'s and `INSTALLER`'s modification times.
    pub installed_at: Timestamp,
    /// Broken edges it introduced: broken now, and it is the newer of the edge's two ends.
    pub broken: Vec<EdgeChange>,
}

/// One file edited in place since `WHEN` (by its modification time), with its dist.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Edited {
    /// The dist that owns it.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The file, relative to site-packages, as its `RECORD` writes it.
    pub path: String,
    /// When it was last modified.
    pub modified: Timestamp,
    /// `edited`: its `RECORD` lists it and it differs; `unowned`: it is in the dist's package
    /// folders and no `RECORD` lists it.
    pub kind: EditKind,
}

/// How a file found by `--since` stands against the install records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum EditKind {
    /// Listed in its dist's `RECORD`, and differs from it.
    Edited,
    /// In the dist's package folders, listed by no `RECORD`.
    Unowned,
}

/// The answer.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SinceReport {
    /// Always [`SINCE_SCHEMA`].
    pub schema: &'static str,
    /// The environment.
    pub environment: String,
    /// The cut-off.
    pub since: Timestamp,
    /// What this is reconstructed from ([`CAVEAT`]).
    pub caveat: &'static str,
    /// Newest first.
    pub installed: Vec<Installed>,
    /// Files that differ from their dist's `RECORD` and were modified since `WHEN`, newest
    /// first (from the dists' file checks: empty where none was made).
    pub edited: Vec<Edited>,
}

impl SinceReport {
    /// Whether nothing was installed, replaced or edited since `WHEN`.
    pub(crate) fn is_empty(&self) -> bool {
        self.installed.is_empty() && self.edited.is_empty()
    }
}

/// The files of `inventory`'s dists edited in place, or added where no `RECORD` owns them,
/// since `since`, newest first.
fn edited_since(inventory: &Inventory, since: Timestamp) -> Vec<Edited> {
    let mut edited: Vec<Edited> = Vec::new();
    for dist in &inventory.dists {
        let Some(files) = &dist.files else { continue };
        let changed = files
            .changes
            .iter()
            .map(|c| (&c.path, &c.modified, EditKind::Edited));
        let unowned = files
            .unowned
            .iter()
            .flatten()
            .map(|f| (&f.path, &f.modified, EditKind::Unowned));
        for (path, modified, kind) in changed.chain(unowned) {
            let Some(modified) = modified.as_deref().and_then(|m| m.parse().ok()) else {
                continue;
            };
            if modified >= since {
                edited.push(Edited {
                    name: dist.name().to_string(),
                    version: dist.version().to_string(),
                    path: path.clone(),
                    modified,
                    kind,
                });
            }
        }
    }
    edited.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
    edited
}

#[cfg(test)]
/// Parse `WHEN` relative to `now`: `3d`, `12h`, `90m`, `2w`, `45s`, a date or a timestamp.
pub(crate) fn parse_when(text: &str, now: Timestamp) -> Result<Timestamp, SinceError> {
    parse_when_in(text, now, &jiff::tz::TimeZone::system()).map(|(at, _)| at)
}

/// [`parse_when`], with a date or a date-time without an offset read in `tz`; the second value
/// says how such a time was read (`None` when `WHEN` named its own instant).
pub(crate) fn parse_when_in(
    text: &str,
    now: Timestamp,
    tz: &jiff::tz::TimeZone,
) -> Result<(Timestamp, Option<String>), SinceError> {
    let (at, note) = parse_instant(text, now, tz)?;
    if at > now {
        return Err(SinceError::Future {
            when: text.escape_default().to_string(),
            at,
        });
    }
    Ok((at, note))
}

/// The instant `WHEN` names, future or past.
fn parse_instant(
    text: &str,
    now: Timestamp,
    tz: &jiff::tz::TimeZone,
) -> Result<(Timestamp, Option<String>), SinceError> {
    let bad = || SinceError::BadWhen(text.escape_default().to_string());
    let trimmed = text.trim();
    // A duration in jiff's friendly format (`3d`, `12h`, `90m`, `2w`, `1h30m`, `2 days`, `3d
    // ago`) or ISO 8601 (`P3D`), counted back from now on the calendar of `tz` (a day across a
    // daylight-saving change is that calendar day).
    if let Ok(span) = jiff::Span::from_str(trimmed) {
        // `3d ago` is jiff's -3d: the same past instant as `3d`.
        let span = if trimmed.ends_with("ago") {
            span.abs()
        } else {
            span
        };
        let at = now
            .to_zoned(tz.clone())
            .checked_sub(span)
            .map_err(|_| bad())?;
        return Ok((at.timestamp(), None));
    }
    if let Ok(ts) = Timestamp::from_str(trimmed) {
        return Ok((ts, None));
    }
    // A date alone is its midnight; a date-time keeps its time. Either is local time.
    let civil = if trimmed.contains(['T', 't', ' ']) {
        jiff::civil::DateTime::from_str(trimmed).map_err(|_| bad())?
    } else {
        jiff::civil::Date::from_str(trimmed)
            .map_err(|_| bad())?
            .to_datetime(jiff::civil::Time::midnight())
    };
    let zoned = civil.to_zoned(tz.clone()).map_err(|_| bad())?;
    let name = tz.iana_name().unwrap_or("the system time zone");
    let note = format!(
        "`{}` has no UTC offset: read as local time in {name} ({}), {}",
        text.escape_default(),
        zoned.offset(),
        zoned.timestamp()
    );
    Ok((zoned.timestamp(), Some(note)))
}

/// When a dist was installed: the newest of its folder's, `RECORD`'s and `INSTALLER`'s times.
pub(crate) fn install_time(dist_info: &Path) -> Option<Timestamp> {
    let times = [
        dist_info.to_path_buf(),
        dist_info.join("RECORD"),
        dist_info.join("INSTALLER"),
    ]
    .into_iter()
    .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
    .max()?;
    Timestamp::try_from(times).ok().or_else(|| {
        let secs = times.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_secs();
        Timestamp::from_second(i64::try_from(secs).ok()?).ok()
    })
}

/// What was installed or replaced in `inventory` since `since`.
pub(crate) fn since(
    label: &str,
    inventory: &Inventory,
    since: Timestamp,
) -> Result<SinceReport, SinceError> {
    if inventory
        .dists
        .iter()
        .all(|d| d.format == DistFormat::Snapshot)
        && !inventory.dists.is_empty()
    {
        return Err(SinceError::NoRecords(label.to_string()));
    }
    let times: Vec<(usize, Timestamp)> = inventory
        .dists
        .iter()
        .enumerate()
        .filter_map(|(i, d)| install_time(&d.path).map(|t| (i, t)))
        .collect();
    let time_of = |name: &str| {
        times
            .iter()
            .find(|(i, _)| inventory.dists[*i].name().as_ref() == name)
            .map(|(_, t)| *t)
    };
    let edges = broken_edges(inventory);
    let mut installed: Vec<Installed> = times
        .iter()
        .filter(|(_, t)| *t >= since)
        .map(|(i, t)| {
            let dist = &inventory.dists[*i];
            let name = dist.name().to_string();
            let broken = edges
                .values()
                .filter(|e| {
                    let dependent = e.dependent.split(' ').next().unwrap_or_default();
                    let ends = [dependent, e.dependency.as_str()];
                    // The edge belongs to the newer of its ends (a missing end counts as old).
                    ends.contains(&name.as_str())
                        && ends
                            .iter()
                            .filter_map(|n| time_of(n))
                            .all(|other| other <= *t)
                })
                .cloned()
                .collect();
            Installed {
                name,
                now: DistState::of(dist),
                installed_at: *t,
                broken,
            }
        })
        .collect();
    installed.sort_by(|a, b| {
        b.installed_at
            .cmp(&a.installed_at)
            .then_with(|| a.name.cmp(&b.name))
    });
    Ok(SinceReport {
        schema: SINCE_SCHEMA,
        environment: label.to_string(),
        since,
        caveat: CAVEAT,
        edited: edited_since(inventory, since),
        installed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_dates_and_timestamps() {
        let now: Timestamp = "2026-01-10T00:00:00Z".parse().unwrap();
        // A cut-off after now is refused, not answered with an empty list.
        for future in ["-3d", "-1h", "2026-01-11", "2026-01-10T00:00:01Z"] {
            assert!(
                matches!(parse_when(future, now), Err(SinceError::Future { .. })),
                "{future}"
            );
        }
        assert_eq!(
            parse_when("3d", now).unwrap().to_string(),
            "2026-01-07T00:00:00Z"
        );
        assert_eq!(
            parse_when("12h", now).unwrap().to_string(),
            "2026-01-09T12:00:00Z"
        );
        assert_eq!(
            parse_when("2w", now).unwrap().to_string(),
            "2025-12-27T00:00:00Z"
        );
        assert_eq!(
            parse_when("2026-01-01T06:00:00Z", now).unwrap().to_string(),
            "2026-01-01T06:00:00Z"
        );
        assert!(parse_when("2026-01-01", now).is_ok());
        // Without an offset: local time, the time of day kept, and said so.
        let now: Timestamp = "2026-12-10T00:00:00Z".parse().unwrap();
        let tz = jiff::tz::TimeZone::fixed(jiff::tz::offset(2));
        let (at, note) = parse_when_in("2026-12-01T23:30:00", now, &tz).unwrap();
        assert_eq!(at.to_string(), "2026-12-01T21:30:00Z");
        assert!(note.unwrap().contains("local time"));
        let (at, _) = parse_when_in("2026-12-01 23:30", now, &tz).unwrap();
        assert_eq!(at.to_string(), "2026-12-01T21:30:00Z");
        let (at, _) = parse_when_in("2026-12-01", now, &tz).unwrap();
        assert_eq!(at.to_string(), "2026-11-30T22:00:00Z");
        let (_, note) = parse_when_in("2026-12-01T23:30:00Z", now, &tz).unwrap();
        assert!(note.is_none());
        assert!(parse_when("2026-12-01T25:30:00", now).is_err());
        assert!(parse_when("yesterday", now).is_err());
        assert!(parse_when("3x", now).is_err());
        // jiff's friendly durations: mixed units, words, `ago`, ISO 8601, years and months.
        for (when, at) in [
            ("1h30m", "2026-12-09T22:30:00Z"),
            ("2 days", "2026-12-08T00:00:00Z"),
            ("3d ago", "2026-12-07T00:00:00Z"),
            ("P1D", "2026-12-09T00:00:00Z"),
            ("1mo", "2026-11-10T00:00:00Z"),
            ("1y", "2025-12-10T00:00:00Z"),
        ] {
            let (got, _) = parse_when_in(when, now, &jiff::tz::TimeZone::UTC).unwrap();
            assert_eq!(got.to_string(), at, "{when}");
        }
    }
}
