//! planner-pypi: the parts of planner that read Python packaging formats and local files, with no
//! network, terminal or command line beneath them.
//!
//! In: bytes and text (core metadata, requirement strings, wheel and sdist file names, file URLs,
//! hash lists, zip and tar archives, files on disk). Out: plain typed values and errors. The
//! planner crate re-exports these modules where its stages name them (`planner::metadata`,
//! `planner::index::zip`, ...), and the fuzz targets use them without the rest of planner.
//!
//! - [`metadata`]: core metadata (`METADATA`, `PKG-INFO`, `.metadata`), requirement predicates
//!   ([`metadata::requirement`]) and version lines ([`metadata::version_line`]);
//! - [`tags`]: wheel tags and a target's ranked tag list;
//! - [`filename`], [`urls`], [`hashes`]: a release file's name, URL and digests;
//! - [`zip`] and [`sdist`]: members of wheels and sdists, read under caps;
//! - [`terminal`]: the terminal sanitizer's core (outside text made safe to show);
//! - [`bounded`]: the one capped reader of local files; [`atomic`]: the one atomic file writer.

// Unit tests read their own fixtures directly; clippy.toml bans that in the code they test.
#![cfg_attr(test, allow(clippy::disallowed_methods))]
// No unsafe code at all here: what needs it (memory maps, libc calls) lives in planner.
#![forbid(unsafe_code)]
// A library's own lint (the test and bench crates' helpers are `pub` for their modules).
#![warn(unreachable_pub)]

pub mod atomic;
pub mod bounded;
pub mod filename;
pub mod hashes;
pub mod metadata;
pub mod sdist;
pub mod tags;
pub mod terminal;
pub mod urls;
pub mod zip;
