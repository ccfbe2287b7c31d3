//! Project pages from an http(s) index, through the on-disk cache: the page cache policy.
//!
//! In: an index base URL, a project name, the cache, the client and the run's flags (offline,
//! refresh, the default max-age, an optional target filter). Out: the parsed [`ProjectPage`], or
//! `None` when the index does not have the project.
//!
//! What is cached is not the page but its compact form (`super::super::compact`): a page is
//! parsed once, when it changes, and every later run reads the files back without parsing JSON
//! or HTML (the target filter applies on reading). Policy: a cached page fresh by its `max-age`
//! (the server's `Cache-Control` less its `Age`, else `IndexSettings::page_max_age`) is used as
//! is; a stale one is revalidated with `ETag` / `Last-Modified` (a 304 refreshes it); a page is
//! cached only once it parses; a 404/410 is remembered, so `--offline` can say "not on the index"
//! too; `--offline` answers from the cache alone and `--refresh` ignores it.

use std::sync::Arc;

use pep508_rs::PackageName;
use url::Url;

use super::{Inner, entry};
use crate::index::IndexError;
use crate::index::auth::SecretUrl;
use crate::index::cache::{Body, Bucket, EntryMeta};
use crate::index::client::{self, Reply, RequestOptions};
use crate::index::compact;
use crate::index::parse::{self, ProjectPage};

/// The longest a 404 is taken as the answer without asking again (seconds): an index that
/// answered 404 once by mistake (a deploy, a proxy) is asked again a minute later, not after
/// the page lifetime (10 minutes).
const NOT_FOUND_MAX_AGE: u64 = 60;

/// The content type a cached "404: no such project" is stored under.
const NOT_FOUND: &str = "x-planner/not-found";

/// The content type of a cached page in the compact form.
const COMPACT: &str = "x-planner/compact-page";

/// The PEP 691 JSON content type.
const PEP691_JSON: &str = "application/vnd.pypi.simple.v1+json";

/// One page asked of one index.
struct PageRequest<'a> {
    /// The index, for messages.
    base: &'a SecretUrl,
    /// The page URL (credentials included, for the request only).
    url: SecretUrl,
    /// Its cache key (no credentials).
    key: String,
    name: &'a PackageName,
    now: i64,
}

/// A cache entry as read: its header, body, and the page the body holds (`None`: a remembered
/// 404, or a body that is not a compact page).
struct Cached {
    meta: EntryMeta,
    body: Arc<Body>,
    page: Option<ProjectPage>,
}

impl Cached {
    fn not_found(&self) -> bool {
        self.meta.content_type.as_deref() == Some(NOT_FOUND)
    }
}

impl Inner {
    /// A page from an http(s) index (filtered for the target, if one is set).
    pub(super) async fn http_page(
        &self,
        base: &SecretUrl,
        name: &PackageName,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let url = page_url(base, name)?;
        let request = PageRequest {
            base,
            key: url.cache_key(),
            url,
            name,
            now: crate::clock::now().as_second(),
        };
        let cached = if self.refresh {
            None
        } else {
            self.read_cached(&request.key)
        };
        if self.offline {
            return offline_page(&request, cached);
        }
        if let Some(c) = &cached
            && c.meta.is_fresh(request.now)
        {
            if c.not_found() {
                log::debug!("{name}: not on {base} (remembered 404 in the cache, fresh)");
                return Ok(None);
            }
            if c.page.is_some() {
                log::debug!(
                    "{name}: {base} answered from the cache (fresh, {}s old of {}s)",
                    request.now - c.meta.fetched_at,
                    c.meta.max_age
                );
                return Ok(cached.and_then(|c| c.page));
            }
        }
        // Validators only for an entry that can answer a 304.
        let validators = cached
            .as_ref()
            .filter(|c| c.page.is_some())
            .map(|c| &c.meta);
        let options = RequestOptions {
            accept: Some(client::ACCEPT_SIMPLE),
            etag: validators.and_then(|m| m.etag.clone()),
            last_modified: validators.and_then(|m| m.last_modified.clone()),
            range: None,
            partial_only: false,
            body: client::BodyKind::Page,
            spool: false,
        };
        let reply = self.client.get(request.url.expose(), &options).await?;
        super::off_runtime(|| self.page_reply(&request, reply, cached))
    }

    /// The cached entry of a page, its body decoded when it is a page.
    /// A compact page checks the parts it reads itself (`compact`), so that a warm read of a
    /// page of 15,000 files reads only the files it keeps; anything else is checked whole.
    fn read_cached(&self, key: &str) -> Option<Cached> {
        let (meta, body) = self.cache.read_framed(Bucket::Pages, key)?;
        let body = Arc::new(body);
        let page = match meta.content_type.as_deref() {
            Some(COMPACT) => {
                let page = compact::decode(body.clone(), self.filter())?;
                // The page keeps the entry for its files' records, a few of which are read.
                body.release_resident();
                Some(page)
            }
            _ if body.is_intact(&meta) => None,
            _ => return None,
        };
        Some(Cached { meta, body, page })
    }

    /// What the server's reply to a page request means.
    fn page_reply(
        &self,
        request: &PageRequest<'_>,
        reply: Reply,
        cached: Option<Cached>,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let shown = request.url.to_string();
        match reply.status {
            304 => {
                let Some(Cached {
                    mut meta,
                    body,
                    page: Some(page),
                }) = cached
                else {
                    return Err(IndexError::Status {
                        url: shown,
                        status: 304,
                        context: " to an unconditional request".to_string(),
                    });
                };
                meta.fetched_at = request.now;
                meta.max_age = reply.max_age.unwrap_or(meta.max_age);
                log::debug!(
                    "{}: {} answered 304, the cached page is current",
                    request.name,
                    request.base
                );
                self.cache.write(Bucket::Pages, meta, &body);
                Ok(Some(page))
            }
            200 => self.fresh_page(request, reply).map(Some),
            404 | 410 => {
                // Remembered so that `--offline` can say "not on the index" too, but briefly:
                // a transient 404 must not hide a project for the page's whole lifetime.
                let max_age = reply
                    .max_age
                    .unwrap_or(self.default_max_age)
                    .min(NOT_FOUND_MAX_AGE);
                let not_found = Some(NOT_FOUND.to_string());
                let meta = entry(request.key.clone(), not_found, request.now, max_age);
                self.cache.write(Bucket::Pages, meta, b"");
                log::debug!("{}: not on {}", request.name, request.base);
                Ok(None)
            }
            401 | 403 => Err(IndexError::Unauthorized {
                index: request.base.to_string(),
                package: request.name.to_string(),
                url: shown,
                status: reply.status,
                auth_sources: self.client.auth_sources(),
            }),
            status => Err(IndexError::Status {
                url: shown,
                status,
                context: format!(" while fetching the project page of {}", request.name),
            }),
        }
    }

    /// A 200: the whole page must parse before its compact form is cached; the target filter
    /// applies to what is returned, not to what is cached.
    fn fresh_page(
        &self,
        request: &PageRequest<'_>,
        reply: Reply,
    ) -> Result<ProjectPage, IndexError> {
        let page_url = SecretUrl::new(reply.url.clone());
        let content_type = reply.content_type.as_deref();
        let page = parse_page(&reply.body, content_type, &page_url, request.name, None)?;
        let body = compact::encode(&page);
        let max_age = reply.max_age.unwrap_or(self.default_max_age);
        log::debug!(
            "{}: {} answered ({} files, {}, fresh for {max_age}s)",
            request.name,
            request.base,
            page.files.len(),
            content_type.unwrap_or("no content type")
        );
        let meta = EntryMeta {
            etag: reply.etag.clone(),
            last_modified: reply.last_modified.clone(),
            ..entry(
                request.key.clone(),
                Some(COMPACT.to_string()),
                request.now,
                max_age,
            )
        };
        self.cache.write(Bucket::Pages, meta, &body);
        match self.filter() {
            None => Ok(page),
            Some(filter) => {
                let mut page = compact::decode(Arc::new(body), Some(filter)).ok_or_else(|| {
                    IndexError::InvalidPage {
                        url: page_url.to_string(),
                        message: "the page does not survive its own compact form".to_string(),
                    }
                })?;
                // Built now: the whole compact page is in memory, not mapped.
                page.files = page.files.into_built();
                Ok(page)
            }
        }
    }
}

/// `--offline`: the cached page, whatever its age, or an error saying it is not cached.
fn offline_page(
    request: &PageRequest<'_>,
    cached: Option<Cached>,
) -> Result<Option<ProjectPage>, IndexError> {
    let (name, base) = (request.name, request.base);
    match cached {
        Some(c) if c.not_found() => {
            log::debug!("{name}: not on {base} (cached 404, --offline)");
            Ok(None)
        }
        Some(Cached {
            page: Some(page), ..
        }) => {
            log::debug!("{name}: {base} answered from the cache (--offline)");
            Ok(Some(page))
        }
        _ => Err(IndexError::Offline {
            what: format!("the project page of {}", request.name),
            url: request.url.to_string(),
        }),
    }
}

/// The project's page under an index base URL (`<base>/<name>/`).
fn page_url(base: &SecretUrl, name: &PackageName) -> Result<SecretUrl, IndexError> {
    let url: Url = base
        .expose()
        .join(&format!("{name}/"))
        .map_err(|e| IndexError::InvalidUrl {
            url: base.to_string(),
            message: e.to_string(),
        })?;
    Ok(SecretUrl::new(url))
}

/// A JSON page must name the project asked for.
pub(super) fn check_page_name(
    page: &ProjectPage,
    name: &PackageName,
    url: &str,
) -> Result<(), IndexError> {
    if let Some(stated) = &page.name
        && stated != name
    {
        return Err(IndexError::InvalidPage {
            url: url.to_string(),
            message: format!("the page is for `{stated}`, not `{name}`"),
        });
    }
    Ok(())
}

/// Parse a page by its reply's `Content-Type` (PEP 691 negotiation).
fn parse_page(
    body: &[u8],
    content_type: Option<&str>,
    url: &SecretUrl,
    name: &PackageName,
    filter: Option<parse::FileFilter<'_>>,
) -> Result<ProjectPage, IndexError> {
    let shown = url.to_string();
    let base = url.without_credentials();
    let json = match content_type {
        Some(PEP691_JSON) | Some("application/json") => true,
        Some("application/vnd.pypi.simple.v1+html")
        | Some("text/html")
        | Some("application/xhtml+xml") => false,
        None => body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{'),
        Some(other) => {
            return Err(IndexError::ContentType {
                url: shown,
                content_type: other.to_string(),
            });
        }
    };
    let parsed = if json {
        parse::simple_json_filtered(body, &base, filter)
    } else {
        parse::simple_html_filtered(body, &base, Some(name), filter)
    }
    .map_err(|e| IndexError::InvalidPage {
        url: shown.clone(),
        message: e.0,
    })?;
    check_page_name(&parsed, name, &shown)?;
    Ok(parsed)
}
