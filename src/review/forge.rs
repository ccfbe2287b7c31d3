//! The tags a project's GitHub repository really has, for compare links that point only at
//! tags that exist.
//!
//! In: the GitHub API's address and a token ([`GitHubApi`]: in GitHub Actions `GITHUB_API_URL`
//! and the workflow's `GITHUB_TOKEN`), planner's cache folder, whether the run is offline, and
//! the GitHub repositories asked about (their web homes, `https://github.com/OWNER/REPO`). Out: each repository's tag names
//! ([`ForgeTags::tags`]), asked of the API once per repository (`GET
//! /repos/OWNER/REPO/git/matching-refs/tags`: every tag in one answer) and kept in the cache
//! folder (`forge-tags/`) for a day; `None` where the API cannot say (no answer, an error, a
//! repository on another host, offline with nothing cached). The token goes in the
//! `Authorization` header only: it is never written to the cache, a message or the log.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use url::Url;

/// How long a repository's cached tag list is used before the API is asked again (seconds).
const FRESH_SECS: i64 = 86_400;

/// The longest answer read (a repository with tens of thousands of tags stays under it).
const MAX_ANSWER_BYTES: usize = 32 << 20;

/// The GitHub API to ask and the token to ask with.
#[derive(Clone)]
pub(crate) struct GitHubApi {
    /// `https://api.github.com` (or a GitHub Enterprise server's API).
    pub url: Url,
    /// The web host whose repositories that API answers for (`github.com`).
    pub host: String,
    /// The token (never printed: see the `Debug` below).
    pub token: String,
}

impl std::fmt::Debug for GitHubApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHubApi")
            .field("url", &self.url.as_str())
            .field("host", &self.host)
            .field("token", &"****")
            .finish()
    }
}

impl GitHubApi {
    /// From GitHub Actions' variables: `GITHUB_TOKEN` and `GITHUB_API_URL` must both be set
    /// (an http(s) URL without credentials); `GITHUB_SERVER_URL` names the web host (default
    /// `github.com`).
    pub(crate) fn from_env(get: &dyn Fn(&str) -> Option<String>) -> Option<GitHubApi> {
        let token = get("GITHUB_TOKEN").filter(|t| !t.trim().is_empty())?;
        let url = Url::parse(get("GITHUB_API_URL")?.trim()).ok()?;
        let clean = matches!(url.scheme(), "https" | "http")
            && url.username().is_empty()
            && url.password().is_none();
        let host = get("GITHUB_SERVER_URL")
            .and_then(|s| Url::parse(s.trim()).ok()?.host_str().map(str::to_string))
            .unwrap_or_else(|| "github.com".to_string());
        clean.then(|| GitHubApi {
            url,
            host: host.to_ascii_lowercase(),
            token: token.trim().to_string(),
        })
    }
}

/// A repository's tags as cached.
#[derive(Serialize, Deserialize)]
struct Cached {
    /// When the API answered (Unix seconds).
    fetched: i64,
    /// The tag names (`refs/tags/` dropped).
    tags: BTreeSet<String>,
}

/// One answer of `git/matching-refs`.
#[derive(Deserialize)]
struct Ref {
    #[serde(rename = "ref")]
    name: String,
}

/// Tag lists asked of the GitHub API, once per repository per run, cached between runs.
pub(crate) struct ForgeTags {
    api: GitHubApi,
    cache: Option<PathBuf>,
    offline: bool,
    now: jiff::Timestamp,
    known: Mutex<HashMap<String, Option<Arc<BTreeSet<String>>>>>,
}

impl ForgeTags {
    /// Tag lists from `api`, cached under `cache` (`None`: not cached); `offline`: the cache
    /// only.
    pub(crate) fn new(
        api: GitHubApi,
        cache: Option<PathBuf>,
        offline: bool,
        now: jiff::Timestamp,
    ) -> ForgeTags {
        ForgeTags {
            api,
            cache,
            offline,
            now,
            known: Mutex::new(HashMap::new()),
        }
    }

    /// The tag names of the GitHub repository at `home`, when the API (or the cache) can say.
    pub(crate) fn tags(&self, home: &Url) -> Option<Arc<BTreeSet<String>>> {
        if home.host_str() != Some(self.api.host.as_str()) {
            return None;
        }
        let path = home.path().trim_matches('/').to_string();
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tags) = known.get(&path) {
            return tags.clone();
        }
        let tags = self.cached(&path, true).or_else(|| {
            let fetched = (!self.offline).then(|| self.fetch(&path)).flatten();
            match fetched {
                Some(tags) => {
                    self.store(&path, &tags);
                    Some(tags)
                }
                // An old list is better than none when the API does not answer.
                None => self.cached(&path, false),
            }
        });
        let tags = tags.map(Arc::new);
        known.insert(path, tags.clone());
        tags
    }

    /// The cache file of `owner/repo` (`forge-tags/HOST/OWNER/REPO.json`; the segments are
    /// a repository's as [`super::links`] accepts them: no `/`, `..` or `\`).
    fn cache_file(&self, path: &str) -> Option<PathBuf> {
        let (owner, repo) = path.split_once('/')?;
        let folder = self.cache.as_ref()?.join("forge-tags").join(&self.api.host);
        Some(folder.join(owner).join(format!("{repo}.json")))
    }

    /// The cached tags of `owner/repo` (`fresh`: only when asked for less than a day ago).
    fn cached(&self, path: &str, fresh: bool) -> Option<BTreeSet<String>> {
        let file = self.cache_file(path)?;
        let text = crate::bounded::read_to_string(&file, MAX_ANSWER_BYTES as u64).ok()?;
        let cached: Cached = serde_json::from_str(&text).ok()?;
        let age = self.now.as_second() - cached.fetched;
        (!fresh || (0..FRESH_SECS).contains(&age)).then_some(cached.tags)
    }

    fn store(&self, path: &str, tags: &BTreeSet<String>) {
        let Some(file) = self.cache_file(path) else {
            return;
        };
        let cached = Cached {
            fetched: self.now.as_second(),
            tags: tags.clone(),
        };
        let written = file.parent().map(std::fs::create_dir_all).transpose();
        let body = serde_json::to_vec(&cached).unwrap_or_default();
        if let Err(err) =
            written.and_then(|_| crate::atomic::write(&file, &body, crate::atomic::Mode::File))
        {
            log::debug!("tags of {path} not cached in {}: {err}", file.display());
        }
    }

    /// Ask the API for every tag of `owner/repo`.
    fn fetch(&self, path: &str) -> Option<BTreeSet<String>> {
        let mut url = self.api.url.clone();
        url.path_segments_mut()
            .ok()?
            .pop_if_empty()
            .push("repos")
            .extend(path.split('/'))
            .extend(["git", "matching-refs", "tags"]);
        let answer = get(&url, &self.api.token);
        match answer {
            // No such repository (or it is private): no tags, and no need to ask again.
            Ok(None) => Some(BTreeSet::new()),
            Ok(Some(body)) => {
                let refs: Vec<Ref> = serde_json::from_slice(&body).ok()?;
                let tags = refs
                    .into_iter()
                    .filter_map(|r| r.name.strip_prefix("refs/tags/").map(str::to_string))
                    .collect();
                Some(tags)
            }
            Err(err) => {
                log::debug!("the tags of {path} were not had from {url}: {err}");
                None
            }
        }
    }
}

/// GET `url` with the token, on a runtime of its own (one small request per repository);
/// `None` for a 404.
fn get(url: &Url, token: &str) -> Result<Option<Vec<u8>>, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        // The process-wide TLS provider (ring); installed already by the index's client.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(concat!("planner/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(10))
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .map_err(|e| e.to_string())?;
        let reply = client
            .get(url.clone())
            .header("Accept", "application/vnd.github+json")
            .header("X-GitHub-Api-Version", "2022-11-28")
            .bearer_auth(token)
            .send()
            .await
            .map_err(|e| e.without_url().to_string())?;
        if reply.status() == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !reply.status().is_success() {
            return Err(format!("HTTP {}", reply.status().as_u16()));
        }
        let body = reply
            .bytes()
            .await
            .map_err(|e| e.without_url().to_string())?;
        if body.len() > MAX_ANSWER_BYTES {
            return Err(format!("an answer of {} bytes", body.len()));
        }
        Ok(Some(body.to_vec()))
    })
}

/// The tag among `tags` that names `version`: spelled as the project's URLs spell tags first
/// (`v_first`), then the other way (`vX`, `X`).
pub(crate) fn existing_tag(
    tags: &BTreeSet<String>,
    version: &pep440_rs::Version,
    v_first: bool,
) -> Option<String> {
    let (with_v, bare) = (format!("v{version}"), version.to_string());
    let order = if v_first {
        [with_v, bare]
    } else {
        [bare, with_v]
    };
    order.into_iter().find(|t| tags.contains(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_is_asked_only_with_a_token_and_its_address() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        let both = env(&[
            ("GITHUB_TOKEN", "s3cret"),
            ("GITHUB_API_URL", "https://api.github.com"),
        ]);
        let api = GitHubApi::from_env(&both).unwrap();
        assert_eq!(api.host, "github.com");
        assert!(!format!("{api:?}").contains("s3cret"));
        assert!(GitHubApi::from_env(&env(&[("GITHUB_TOKEN", "s3cret")])).is_none());
        let no_token = env(&[("GITHUB_API_URL", "https://api.github.com")]);
        assert!(GitHubApi::from_env(&no_token).is_none());
        let with_credentials = env(&[
            ("GITHUB_TOKEN", "s3cret"),
            ("GITHUB_API_URL", "https://u:p@api.github.com"),
        ]);
        assert!(GitHubApi::from_env(&with_credentials).is_none());
        let enterprise = env(&[
            ("GITHUB_TOKEN", "s3cret"),
            ("GITHUB_API_URL", "https://ghe.example/api/v3"),
            ("GITHUB_SERVER_URL", "https://GHE.example"),
        ]);
        assert_eq!(
            GitHubApi::from_env(&enterprise).unwrap().host,
            "ghe.example"
        );
    }

    #[test]
    fn a_version_names_the_tag_that_exists() {
        let tags: BTreeSet<String> = ["v3.19", "3.20", "release-1"]
            .into_iter()
            .map(String::from)
            .collect();
        let v = |s: &str| s.parse::<pep440_rs::Version>().unwrap();
        assert_eq!(existing_tag(&tags, &v("3.19"), false).unwrap(), "v3.19");
        assert_eq!(existing_tag(&tags, &v("3.20"), true).unwrap(), "3.20");
        assert_eq!(existing_tag(&tags, &v("3.21"), true), None);
    }
}
