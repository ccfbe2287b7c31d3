//! What a reviewer opens next to a finding: the pinned release's notes and changelog, a compare
//! link between the base's and the head's versions, the release's age, and a permalink to the
//! flagged line.
//!
//! In: a [`Review`], the index it was judged against (the pinned release's `Project-URL`s from
//! the metadata the judging already read, its upload time from the project page), the clock,
//! and the repository's web home when it is known ([`WebRepo`]: from `GITHUB_SERVER_URL` /
//! `GITHUB_REPOSITORY` in GitHub Actions, else `git remote get-url origin`). Out: each finding's
//! [`ReleaseLinks`] and permalink, filled in place. A compare link names only tags that exist:
//! where the GitHub API can be asked ([`ForgeTags`], in GitHub Actions with the workflow's
//! token), the repository's own tag list decides (`vX` or `X`, the spelling the project's URLs
//! show tried first), and a version with no tag gets no link; elsewhere nothing reaches the
//! network beyond what the index already holds, and the tag names are read from the project's
//! own URLs where they show a tag (`.../releases/tag/v1.2`); where none does, there is no compare
//! link (a guessed `vX` pointed at tags that do not exist), only the release-notes links. Every
//! URL kept is http(s) without credentials; labels and URLs are still untrusted text, escaped by
//! each renderer.

use pep440_rs::Version;
use pep508_rs::PackageName;
use serde::Serialize;
use url::Url;

use super::Review;
use super::forge::{ForgeTags, existing_tag};
use crate::index::IndexSource;
use crate::metadata::requirement::exact_version;

/// One link from a project's metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Link {
    /// The `Project-URL` label as written (`Changelog`).
    pub label: String,
    /// The URL (http(s), no credentials).
    pub url: String,
}

/// A compare view between the base's and the head's versions in the source repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Compare {
    /// The compare URL (`https://github.com/o/r/compare/v2.3...v2.4`).
    pub url: String,
    /// The base's tag name.
    pub from: String,
    /// The head's tag name.
    pub to: String,
    /// Always `false`: the tag spelling is read from the project's own URLs or tag list, never
    /// guessed (a project whose URLs show no tag gets no compare link). Kept for the JSON
    /// schema.
    pub guessed: bool,
    /// Whether both tags were found in the repository's tag list (the forge's API); `false`:
    /// spelled as the project's URLs spell tags, not checked.
    pub checked: bool,
}

/// The pinned release, for a reviewer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ReleaseLinks {
    /// The pinned version (`==X`).
    pub version: Version,
    /// The base's version on the same name in the same file, when it was pinned there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was: Option<Version>,
    /// When the index says the release was uploaded (its earliest file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uploaded: Option<jiff::Timestamp>,
    /// Whole days from `uploaded` to the review's clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_days: Option<i64>,
    /// Release-notes and changelog links (`Project-URL`s labelled so).
    pub notes: Vec<Link>,
    /// The source repository's web home, when a `Project-URL` (or `Home-page`) is a GitHub or
    /// GitLab repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The compare view from `was` to `version`, when both and the repository are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<Compare>,
}

/// Which forge a repository lives on (their URL layouts differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Forge {
    /// github.com or a GitHub Enterprise server.
    GitHub,
    /// gitlab.com or a self-hosted GitLab.
    GitLab,
}

/// A repository's web home: `https://github.com/owner/repo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WebRepo {
    /// The forge.
    pub forge: Forge,
    /// `https://host/owner/repo`, without a trailing slash, `.git` or credentials.
    pub home: Url,
}

impl WebRepo {
    /// GitHub Actions' `GITHUB_SERVER_URL` and `GITHUB_REPOSITORY` (`owner/repo`).
    pub(crate) fn from_actions(server: &str, repository: &str) -> Option<WebRepo> {
        let server = http_url(server)?;
        let (owner, name) = repository.trim().split_once('/')?;
        let home = server.join(&format!("{}/{}", owner, name)).ok()?;
        (valid_segment(owner) && valid_segment(name)).then_some(WebRepo {
            forge: Forge::GitHub,
            home,
        })
    }

    /// A git remote URL (`git@github.com:o/r.git`, `https://github.com/o/r`,
    /// `ssh://git@gitlab.com/g/sub/p.git`), when its host is GitHub's or a GitLab's.
    pub(crate) fn from_remote(remote: &str) -> Option<WebRepo> {
        let remote = remote.trim();
        let (host, path) = if let Some(rest) = remote.strip_prefix("git@") {
            rest.split_once(':')?
        } else {
            let url = Url::parse(remote).ok()?;
            if !matches!(url.scheme(), "https" | "http" | "ssh" | "git") {
                return None;
            }
            let host = url.host_str()?.to_string();
            let path = url.path().trim_start_matches('/').to_string();
            return WebRepo::on_host(&host, &path);
        };
        WebRepo::on_host(host, path)
    }

    /// A repository URL from a project's metadata (`https://github.com/o/r/blob/main/X.md`
    /// names `https://github.com/o/r`).
    fn from_project_url(url: &Url) -> Option<WebRepo> {
        if !matches!(url.scheme(), "https" | "http") {
            return None;
        }
        WebRepo::on_host(url.host_str()?, url.path().trim_start_matches('/'))
    }

    fn on_host(host: &str, path: &str) -> Option<WebRepo> {
        let host = host.to_ascii_lowercase();
        let forge = if host == "github.com" || host == "www.github.com" {
            Forge::GitHub
        } else if host == "gitlab.com" || host.starts_with("gitlab.") {
            Forge::GitLab
        } else {
            return None;
        };
        let segments: Vec<&str> = path
            .trim_end_matches('/')
            .split('/')
            .take_while(|s| *s != "-")
            .collect();
        let take = match forge {
            Forge::GitHub => 2,
            // GitLab groups nest; the project ends where a view (`blob`, `tree`, ...) begins.
            Forge::GitLab => segments
                .iter()
                .position(|s| matches!(*s, "blob" | "tree" | "tags" | "releases" | "issues"))
                .unwrap_or(segments.len()),
        };
        if take < 2 || segments.len() < take {
            return None;
        }
        let mut parts: Vec<&str> = segments[..take].to_vec();
        let last = parts.pop()?.trim_end_matches(".git");
        parts.push(last);
        if !parts.iter().all(|s| valid_segment(s)) {
            return None;
        }
        let host = if host == "www.github.com" {
            "github.com"
        } else {
            &host
        };
        let home = Url::parse(&format!("https://{host}/{}", parts.join("/"))).ok()?;
        Some(WebRepo { forge, home })
    }

    /// `https://github.com/o/r/blob/COMMIT/path/to/file#L12` (GitLab: `/-/blob/`).
    pub(crate) fn permalink(&self, commit: &str, file: &str, line: usize) -> Option<String> {
        let mut url = self.home.clone();
        {
            let mut segments = url.path_segments_mut().ok()?;
            if self.forge == Forge::GitLab {
                segments.push("-");
            }
            segments.push("blob").push(commit);
            segments.extend(file.split('/'));
        }
        url.set_fragment(Some(&format!("L{line}")));
        Some(url.to_string())
    }

    /// The compare view between two tags.
    fn compare(&self, from: &str, to: &str) -> Option<String> {
        let mut url = self.home.clone();
        {
            let mut segments = url.path_segments_mut().ok()?;
            if self.forge == Forge::GitLab {
                segments.push("-");
            }
            segments.push("compare").push(&format!("{from}...{to}"));
        }
        Some(url.to_string())
    }
}

/// An owner, group or repository name as forges allow them.
fn valid_segment(text: &str) -> bool {
    !text.is_empty()
        && text != "."
        && text != ".."
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// `text` as an http(s) URL without credentials.
fn http_url(text: &str) -> Option<Url> {
    let url = Url::parse(text.trim()).ok()?;
    let clean = matches!(url.scheme(), "https" | "http")
        && url.username().is_empty()
        && url.password().is_none()
        && url.host_str().is_some();
    clean.then_some(url)
}

/// A `Project-URL` label in PEP 753's normal form: lower case, letters and digits only.
fn normalized_label(label: &str) -> String {
    label
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The labels PEP 753 (and common use) give release notes and changelogs.
const NOTE_LABELS: [&str; 8] = [
    "changelog",
    "changes",
    "releasenotes",
    "history",
    "news",
    "whatsnew",
    "releases",
    "changelogs",
];

/// The release-notes and changelog links of a project's URLs.
pub(crate) fn note_links(urls: &[(String, String)]) -> Vec<Link> {
    let mut out: Vec<Link> = Vec::new();
    for (label, url) in urls {
        let Some(url) = http_url(url) else {
            continue;
        };
        if NOTE_LABELS.contains(&normalized_label(label).as_str())
            && !out.iter().any(|l| l.url == url.as_str())
        {
            out.push(Link {
                label: label.clone(),
                url: url.to_string(),
            });
        }
    }
    out
}

/// The source repository among a project's URLs: the first GitHub or GitLab repository,
/// labels that name the source first.
pub(crate) fn repository(urls: &[(String, String)]) -> Option<WebRepo> {
    let source_first = |label: &str| {
        let label = normalized_label(label);
        !matches!(
            label.as_str(),
            "source" | "sourcecode" | "repository" | "code" | "github" | "gitlab"
        )
    };
    let mut ordered: Vec<&(String, String)> = urls.iter().collect();
    ordered.sort_by_key(|(label, _)| source_first(label));
    ordered
        .into_iter()
        .filter_map(|(_, url)| http_url(url))
        .find_map(|url| WebRepo::from_project_url(&url))
}

/// Whether the project's own URLs name tags as `vX` (`Some(true)`) or `X` (`Some(false)`):
/// a path segment after `tag`, `tags`, `tree`, `blob` or `compare` that is a version.
pub(crate) fn tag_prefix(urls: &[(String, String)]) -> Option<bool> {
    for (_, url) in urls {
        let Some(url) = http_url(url) else {
            continue;
        };
        let Some(segments) = url.path_segments() else {
            continue;
        };
        let segments: Vec<&str> = segments.collect();
        for pair in segments.windows(2) {
            if !matches!(pair[0], "tag" | "tags" | "tree" | "blob" | "compare") {
                continue;
            }
            let tag = pair[1].split("...").next().unwrap_or_default();
            let (v, rest) = match tag.strip_prefix('v') {
                Some(rest) => (true, rest),
                None => (false, tag),
            };
            if rest.starts_with(|c: char| c.is_ascii_digit()) && rest.parse::<Version>().is_ok() {
                return Some(v);
            }
        }
    }
    None
}

/// The compare view from `was` to `version` on `repo`: between the tags the repository's tag
/// list has (`forge`, where the API answers), else spelled as the project's `urls` spell tags,
/// else none.
fn compare_link(
    repo: &WebRepo,
    urls: &[(String, String)],
    (was, version): (&Version, &Version),
    forge: Option<&ForgeTags>,
) -> Option<Compare> {
    let spelled = tag_prefix(urls);
    let listed = forge.filter(|_| repo.forge == Forge::GitHub);
    let (from, to, checked) = match listed.and_then(|f| f.tags(&repo.home)) {
        Some(tags) => {
            let v_first = spelled.unwrap_or(true);
            let from = existing_tag(&tags, was, v_first)?;
            (from, existing_tag(&tags, version, v_first)?, true)
        }
        None => {
            let v = if spelled? { "v" } else { "" };
            (format!("{v}{was}"), format!("{v}{version}"), false)
        }
    };
    repo.compare(&from, &to).map(|url| Compare {
        url,
        from,
        to,
        guessed: false,
        checked,
    })
}

/// The links of `name==version` (the base had `was`) from what the index holds: its files'
/// upload time and one file's metadata; the compare link's tags checked on `forge` when given.
/// Whatever cannot be read is left out; this never fails.
pub(crate) fn release_links(
    index: &dyn IndexSource,
    (name, version, was): (&PackageName, &Version, Option<&Version>),
    now: jiff::Timestamp,
    forge: Option<&ForgeTags>,
) -> Option<ReleaseLinks> {
    let project = index.project(name).ok()??;
    let files: Vec<&crate::index::DistFile> = project
        .files
        .iter()
        .filter(|f| f.filename.version() == version)
        .collect();
    let uploaded = files.iter().filter_map(|f| f.upload_time).min();
    // A wheel's metadata first: it is static, and the judging read it already.
    let file = files
        .iter()
        .find(|f| matches!(f.filename, crate::index::DistFilename::Wheel(_)))
        .or_else(|| files.first())?;
    let urls = index
        .metadata(&project, file)
        .map(|m| m.project_urls.clone())
        .unwrap_or_default();
    let repository = repository(&urls);
    let compare = match (&repository, was) {
        (Some(repo), Some(was)) if was != version => {
            compare_link(repo, &urls, (was, version), forge)
        }
        _ => None,
    };
    Some(ReleaseLinks {
        version: version.clone(),
        was: was.cloned(),
        uploaded,
        age_days: uploaded.map(|at| (now.as_second() - at.as_second()).div_euclid(86_400)),
        notes: note_links(&urls),
        repository: repository.map(|r| r.home.to_string()),
        compare,
    })
}

/// Fill in each finding's release links and the permalinks to its lines (`web`: the reviewed
/// repository's web home, when known; `forge`: where compare links' tags are checked).
pub(crate) fn annotate(
    review: &mut Review,
    index: &dyn IndexSource,
    now: jiff::Timestamp,
    web: Option<&WebRepo>,
    forge: Option<&ForgeTags>,
) {
    let head = review.head.commit.clone();
    for finding in &mut review.findings {
        let pin = &finding.pin;
        if let Some(web) = web {
            finding.permalink = web.permalink(&head, &pin.file, pin.line);
        }
        let Some(version) = exact_version(&pin.requirement).cloned() else {
            continue;
        };
        let was = finding
            .was
            .as_deref()
            .and_then(|w| crate::metadata::parse_requirement(w).ok())
            .filter(|w| w.name == pin.requirement.name)
            .and_then(|w| exact_version(&w).cloned());
        let release = (pin.name(), &version, was.as_ref());
        finding.release = release_links(index, release, now, forge);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(l, u)| (l.to_string(), u.to_string()))
            .collect()
    }

    #[test]
    fn remotes_of_every_spelling_name_the_web_home_without_credentials() {
        for (remote, home) in [
            (
                "git@github.com:psf/requests.git",
                "https://github.com/psf/requests",
            ),
            (
                "https://github.com/psf/requests",
                "https://github.com/psf/requests",
            ),
            (
                "https://x-access-token:s3cret@github.com/psf/requests.git",
                "https://github.com/psf/requests",
            ),
            (
                "ssh://git@github.com/psf/requests.git",
                "https://github.com/psf/requests",
            ),
            (
                "git@gitlab.com:group/sub/project.git",
                "https://gitlab.com/group/sub/project",
            ),
        ] {
            let web = WebRepo::from_remote(remote).unwrap_or_else(|| panic!("{remote}"));
            assert_eq!(web.home.as_str(), home, "{remote}");
        }
        for remote in [
            "/srv/git/repo.git",
            "https://example.com/o/r",
            "git@github.com:only-owner",
            "file:///github.com/o/r",
        ] {
            assert_eq!(WebRepo::from_remote(remote), None, "{remote}");
        }
        let web = WebRepo::from_actions("https://github.com", "psf/requests").unwrap();
        assert_eq!(
            web.permalink("abc123", "deps/requirements dev.txt", 7)
                .unwrap(),
            "https://github.com/psf/requests/blob/abc123/deps/requirements%20dev.txt#L7"
        );
        assert_eq!(WebRepo::from_actions("https://github.com", "../x"), None);
        let lab = WebRepo::from_remote("https://gitlab.com/g/p.git").unwrap();
        assert_eq!(
            lab.permalink("abc", "a/b.txt", 3).unwrap(),
            "https://gitlab.com/g/p/-/blob/abc/a/b.txt#L3"
        );
    }

    #[test]
    fn project_urls_give_notes_repository_and_tag_spelling() {
        let idna = urls(&[
            (
                "Changelog",
                "https://github.com/kjd/idna/blob/master/HISTORY.md",
            ),
            ("Issue tracker", "https://github.com/kjd/idna/issues"),
            ("Source", "https://github.com/kjd/idna"),
            ("Home-page", "https://github.com/kjd/idna"),
        ]);
        assert_eq!(
            note_links(&idna),
            [Link {
                label: "Changelog".into(),
                url: "https://github.com/kjd/idna/blob/master/HISTORY.md".into()
            }]
        );
        assert_eq!(
            repository(&idna).unwrap().home.as_str(),
            "https://github.com/kjd/idna"
        );
        // `master` is a branch, not a version: no tag spelling shown.
        assert_eq!(tag_prefix(&idna), None);
        let tagged = urls(&[
            (
                "Release notes",
                "https://github.com/o/r/releases/tag/v2.1.0",
            ),
            ("Source", "javascript:alert(1)"),
            ("Code", "https://user:pw@github.com/o/r"),
        ]);
        assert_eq!(tag_prefix(&tagged), Some(true));
        assert_eq!(note_links(&tagged).len(), 1);
        // No clean URL names the repository except the notes' own.
        assert_eq!(
            repository(&tagged).unwrap().home.as_str(),
            "https://github.com/o/r"
        );
        let bare = urls(&[("Changes", "https://gitlab.com/g/p/-/tags/1.4")]);
        assert_eq!(tag_prefix(&bare), Some(false));
    }
}
