//! Major lines of a version: a version in, the first version of its major line
//! ([`line_floor`]) or of the next one ([`next_line`]) out. A major line is cut at the first
//! non-zero release segment, so below 1.0 each minor line is a major line of its own.

use pep440_rs::Version;

/// The first version of `version`'s major line: its release up to the first non-zero segment
/// (`2.1.3` -> `2`, `0.38.6` -> `0.38`).
pub fn line_floor(version: &Version) -> Version {
    let release = version.release();
    let cut = release
        .iter()
        .position(|&n| n != 0)
        .unwrap_or(release.len().saturating_sub(1));
    Version::new(
        release[..=cut.min(release.len().saturating_sub(1))]
            .iter()
            .copied(),
    )
    .with_epoch(version.epoch())
}

/// The first version of the major line after `version`'s (`2.1.3` -> `3`, `0.38.6` -> `0.39`).
pub fn next_line(version: &Version) -> Version {
    let floor = line_floor(version);
    let mut release = floor.release().to_vec();
    if let Some(last) = release.last_mut() {
        *last += 1;
    }
    Version::new(release).with_epoch(version.epoch())
}
