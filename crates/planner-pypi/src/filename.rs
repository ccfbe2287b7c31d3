//! Wheel and sdist file names (PEP 427, PEP 625), with compressed tag sets expanded.

use std::str::FromStr;
use std::sync::Arc;

use pep440_rs::{Version, VersionParseError};
use pep508_rs::{InvalidNameError, PackageName};
use rustc_hash::FxHashMap as HashMap;

use crate::tags::Tag;

/// A release file name, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DistFilename {
    /// `{name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl`
    Wheel(WheelFilename),
    /// `{name}-{ver}.tar.gz` (or `.zip`, `.tar.bz2`, ...)
    Sdist(SdistFilename),
}

impl DistFilename {
    /// The normalized project name.
    pub fn name(&self) -> &PackageName {
        match self {
            DistFilename::Wheel(w) => &w.name,
            DistFilename::Sdist(s) => &s.name,
        }
    }

    /// The version.
    pub fn version(&self) -> &Version {
        match self {
            DistFilename::Wheel(w) => &w.version,
            DistFilename::Sdist(s) => &s.version,
        }
    }
}

/// A wheel file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WheelFilename {
    /// The normalized project name.
    pub name: PackageName,
    /// The version.
    pub version: Version,
    /// The optional build tag: its number and the rest.
    pub build: Option<(u64, String)>,
    /// Every `python-abi-platform` triple the compressed tag set expands to (shared by the
    /// wheels of a page with the same tag set).
    pub tags: Arc<[Tag]>,
}

/// An sdist file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SdistFilename {
    /// The normalized project name.
    pub name: PackageName,
    /// The version.
    pub version: Version,
}

/// Why a file name does not parse.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "miette", derive(miette::Diagnostic))]
#[error("`{filename}` is not a valid wheel or sdist file name: {reason}")]
pub struct FilenameError {
    /// The file name.
    pub filename: String,
    /// What is wrong.
    pub reason: String,
}

impl FromStr for DistFilename {
    type Err = FilenameError;
    fn from_str(filename: &str) -> Result<Self, Self::Err> {
        FilenameMemo::default().parse(filename)
    }
}

/// Parses file names of one page, each distinct name, version and wheel tag set once: a page
/// lists the same few of each on hundreds of files (a release's wheels share a version, a
/// platform's wheels share a tag set), and versions and names are shared, not copied.
#[derive(Default)]
pub struct FilenameMemo {
    names: HashMap<String, PackageName>,
    versions: HashMap<String, Version>,
    tags: HashMap<String, Arc<[Tag]>>,
}

impl FilenameMemo {
    /// Parse one file name (`.whl`, or an sdist extension).
    pub fn parse(&mut self, filename: &str) -> Result<DistFilename, FilenameError> {
        let err = |reason: &str| FilenameError {
            filename: filename.to_string(),
            reason: reason.to_string(),
        };
        if let Some(stem) = filename.strip_suffix(".whl") {
            let (name, version, build, tag_text) = wheel_parts(stem).map_err(err)?;
            let name = self.name(name).map_err(|e| err(&e.to_string()))?;
            let version = self.version(version).map_err(|e| err(&e.to_string()))?;
            let build = build.map(build_tag).transpose().map_err(err)?;
            let tags = self.tags(tag_text);
            return Ok(DistFilename::Wheel(WheelFilename {
                name,
                version,
                build,
                tags,
            }));
        }
        self.sdist(filename).map(DistFilename::Sdist).map_err(err)
    }

    fn sdist(&mut self, filename: &str) -> Result<SdistFilename, &'static str> {
        let stem = [".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar"]
            .iter()
            .find_map(|ext| filename.strip_suffix(ext))
            .ok_or("unknown extension")?;
        // The version is after the last dash whose remainder parses as a version.
        let (name, version) = stem
            .rmatch_indices('-')
            .find_map(|(i, _)| {
                let version = self.version(&stem[i + 1..]).ok()?;
                let name = self.name(&stem[..i]).ok()?;
                Some((name, version))
            })
            .ok_or("no `-{version}` suffix")?;
        Ok(SdistFilename { name, version })
    }

    fn name(&mut self, text: &str) -> Result<PackageName, InvalidNameError> {
        parse_once(&mut self.names, text)
    }

    fn version(&mut self, text: &str) -> Result<Version, VersionParseError> {
        parse_once(&mut self.versions, text)
    }

    /// Every `python-abi-platform` triple a compressed tag set (`py-abi-plat`) expands to.
    pub fn tags(&mut self, text: &str) -> Arc<[Tag]> {
        if let Some(tags) = self.tags.get(text) {
            return tags.clone();
        }
        let tags: Arc<[Tag]> = crate::tags::expand_set(text)
            .map(|(p, a, pl)| Tag {
                interpreter: p.to_string(),
                abi: a.to_string(),
                platform: pl.to_string(),
            })
            .collect();
        self.tags.insert(text.to_string(), tags.clone());
        tags
    }
}

/// `text` parsed, or the value `parsed` holds for it from an earlier parse.
fn parse_once<T: FromStr + Clone>(
    parsed: &mut HashMap<String, T>,
    text: &str,
) -> Result<T, T::Err> {
    if let Some(value) = parsed.get(text) {
        return Ok(value.clone());
    }
    let value = T::from_str(text)?;
    parsed.insert(text.to_string(), value.clone());
    Ok(value)
}

/// A wheel stem's name, version, build tag and compressed tag set (`py-abi-plat`).
type WheelParts<'s> = (&'s str, &'s str, Option<&'s str>, &'s str);

/// A wheel's build tag: its leading number and the rest (`1a` -> `(1, "a")`).
pub fn build_tag(text: &str) -> Result<(u64, String), &'static str> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let number = text[..digits]
        .parse::<u64>()
        .map_err(|_| "a build tag must start with a digit")?;
    Ok((number, text[digits..].to_string()))
}

fn wheel_parts(stem: &str) -> Result<WheelParts<'_>, &'static str> {
    let parts: Vec<&str> = stem.split('-').collect();
    match parts.as_slice() {
        [n, v, _, _, _] => Ok((n, v, None, &stem[n.len() + v.len() + 2..])),
        [n, v, b, _, _, _] => Ok((n, v, Some(b), &stem[n.len() + v.len() + b.len() + 3..])),
        _ => Err("a wheel name has 5 or 6 dash-separated parts"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compressed_set_ranks_as_its_expanded_tags() {
        let tags = crate::tags::Tags::new(
            [
                "cp312-cp312-manylinux_2_28_x86_64",
                "cp312-abi3-manylinux_2_17_x86_64",
                "py3-none-any",
            ]
            .iter()
            .map(|t| t.parse().unwrap())
            .collect(),
        );
        for set in [
            "cp312-cp312-manylinux_2_17_x86_64.manylinux_2_28_x86_64",
            "cp39.cp312-abi3-manylinux_2_17_x86_64",
            "py2.py3-none-any",
            "cp311-cp311-win_amd64",
        ] {
            let name = format!("demo-1.0-{set}.whl");
            let Ok(DistFilename::Wheel(wheel)) = name.parse() else {
                panic!("{name} parses");
            };
            let expanded = wheel.tags;
            assert_eq!(
                tags.best_rank_of_set(set),
                tags.best_rank(expanded.iter()),
                "{set}"
            );
            let first = &expanded[0];
            assert_eq!(
                crate::tags::first_of_set(set),
                (
                    first.interpreter.as_str(),
                    first.abi.as_str(),
                    first.platform.as_str()
                )
            );
            assert_eq!(crate::tags::compress_set(&expanded), set);
        }
        assert_eq!(
            tags.best_rank_of_set("cp312-cp312-manylinux_2_17_x86_64.manylinux_2_28_x86_64"),
            Some(0)
        );
        assert_eq!(tags.best_rank_of_set("cp311-cp311-win_amd64"), None);
    }

    #[test]
    fn expands_compressed_tag_sets() {
        let f: DistFilename =
            "triton-3.6.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
                .parse()
                .unwrap();
        let DistFilename::Wheel(w) = f else { panic!() };
        assert_eq!(w.name.as_ref(), "triton");
        assert_eq!(w.version.to_string(), "3.6.0");
        assert_eq!(w.tags.len(), 2);
        assert_eq!(w.tags[1].to_string(), "cp312-cp312-manylinux_2_28_x86_64");
    }

    #[test]
    fn parses_build_tags_and_sdists() {
        let f: DistFilename = "foo_bar-1.0-1a-py3-none-any.whl".parse().unwrap();
        let DistFilename::Wheel(w) = f else { panic!() };
        assert_eq!(w.build, Some((1, "a".to_string())));
        let f: DistFilename = "flash-linear-attention-0.5.1.tar.gz".parse().unwrap();
        assert_eq!(f.name().as_ref(), "flash-linear-attention");
        assert_eq!(f.version().to_string(), "0.5.1");
        assert!("foo-1.0-py3-none.whl".parse::<DistFilename>().is_err());
        assert!(
            "foo-1.0-bad-py3-none-any.whl"
                .parse::<DistFilename>()
                .is_err()
        );
        assert!("foo.exe".parse::<DistFilename>().is_err());
    }
}
