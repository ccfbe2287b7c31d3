//! Project pages from an http(s) index, through the on-disk cache: the page cache policy.
//!
//! In: an index base URL, a project name, the cache, the client and the run's flags (offline,
//! refresh, the default max-age, an optional target filter). Out: the parsed [`ProjectPage`], or
//! `None` when the index does not have the project.
//!
//! Policy: a cached page fresh by its `max-age` (the server's `Cache-Control`, else
//! `IndexSettings::page_max_age`) is used as is; a stale one is revalidated with `ETag` /
//! `Last-Modified` (a 304 refreshes it); a page is cached only once it parses; a 404/410 is
//! remembered, so `--offline` can say "not on the index" too; `--offline` answers from the cache
//! alone and `--refresh` ignores it. With a target filter, the filtered page is cached beside the
//! whole one as PEP 691 JSON (keyed by the target's tags, fresh as long as the whole page is).

use pep508_rs::PackageName;
use url::Url;

use super::{Inner, entry};
use crate::index::IndexError;
use crate::index::auth::SecretUrl;
use crate::index::cache::{Bucket, EntryMeta};
use crate::index::client::{self, Reply, RequestOptions};
use crate::index::parse::{self, ProjectPage};

/// The content type a cached "404: no such project" is stored under.
const NOT_FOUND: &str = "x-planner/not-found";

/// The PEP 691 JSON content type.
const PEP691_JSON: &str = "application/vnd.pypi.simple.v1+json";

/// When a page was fetched (Unix seconds) and how long it stays fresh (seconds).
type Freshness = Option<(i64, u64)>;

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

impl Inner {
    /// A page from an http(s) index. With a target filter, the filtered page is cached beside
    /// the whole one (keyed by the target's tags, fresh as long as the whole page is), so a
    /// warm run reads a few kilobytes per project instead of re-parsing megabytes.
    pub(super) async fn http_page(
        &self,
        base: &SecretUrl,
        name: &PackageName,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let Some(target) = &self.target_key else {
            return self.http_page_whole(base, name, &mut None).await;
        };
        let secret = page_url(base, name)?;
        let key = format!("{}#target={target}", secret.cache_key());
        let now = crate::clock::now().as_second();
        if !self.refresh
            && let Some((meta, body)) = self.cache.read(Bucket::Pages, &key)
            && (self.offline || meta.is_fresh(now))
            && let Ok(page) = parse_page(&body, Some(PEP691_JSON), &secret, name, None)
        {
            log::debug!("{name}: {base} answered from the cache (page filtered for the target)");
            return Ok(Some(page));
        }
        let mut freshness = None;
        let page = self.http_page_whole(base, name, &mut freshness).await?;
        if let (Some(page), Some((fetched_at, max_age))) = (&page, freshness) {
            let body = parse::simple_json_page(name, &page.files);
            let meta = entry(key, Some(PEP691_JSON.to_string()), fetched_at, max_age);
            self.cache.write(Bucket::Pages, meta, &body);
        }
        Ok(page)
    }

    /// The whole page (filtered when parsed, if a target is set); `freshness` receives the
    /// page's fetch time and max-age when it was found.
    async fn http_page_whole(
        &self,
        base: &SecretUrl,
        name: &PackageName,
        freshness: &mut Freshness,
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
            self.cache.read(Bucket::Pages, &request.key)
        };
        if self.offline {
            return self.offline_page(&request, cached, freshness);
        }
        if let Some((meta, body)) = &cached
            && meta.is_fresh(request.now)
        {
            if meta.content_type.as_deref() == Some(NOT_FOUND) {
                log::debug!("{name}: not on {base} (remembered 404 in the cache, fresh)");
                return Ok(None);
            }
            if let Ok(page) = self.parse_cached(&request, meta, body) {
                log::debug!(
                    "{name}: {base} answered from the cache (fresh, {}s old of {}s)",
                    request.now - meta.fetched_at,
                    meta.max_age
                );
                *freshness = Some((meta.fetched_at, meta.max_age));
                return Ok(Some(page));
            }
        }
        let options = RequestOptions {
            accept: Some(client::ACCEPT_SIMPLE),
            etag: cached.as_ref().and_then(|(m, _)| m.etag.clone()),
            last_modified: cached.as_ref().and_then(|(m, _)| m.last_modified.clone()),
            range: None,
        };
        let reply = self.client.get(request.url.expose(), &options).await?;
        self.page_reply(&request, reply, cached, freshness)
    }

    /// `--offline`: the cached page, whatever its age, or an error saying it is not cached.
    fn offline_page(
        &self,
        request: &PageRequest<'_>,
        cached: Option<(EntryMeta, Vec<u8>)>,
        freshness: &mut Freshness,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let Some((meta, body)) = cached else {
            return Err(IndexError::Offline {
                what: format!("the project page of {}", request.name),
                url: request.url.to_string(),
            });
        };
        if meta.content_type.as_deref() == Some(NOT_FOUND) {
            log::debug!(
                "{}: not on {} (cached 404, --offline)",
                request.name,
                request.base
            );
            return Ok(None);
        }
        log::debug!(
            "{}: {} answered from the cache (--offline)",
            request.name,
            request.base
        );
        *freshness = Some((meta.fetched_at, meta.max_age));
        self.parse_cached(request, &meta, &body).map(Some)
    }

    fn parse_cached(
        &self,
        request: &PageRequest<'_>,
        meta: &EntryMeta,
        body: &[u8],
    ) -> Result<ProjectPage, IndexError> {
        let content_type = meta.content_type.as_deref();
        parse_page(
            body,
            content_type,
            &request.url,
            request.name,
            self.filter(),
        )
    }

    /// What the server's reply to a page request means.
    fn page_reply(
        &self,
        request: &PageRequest<'_>,
        reply: Reply,
        cached: Option<(EntryMeta, Vec<u8>)>,
        freshness: &mut Freshness,
    ) -> Result<Option<ProjectPage>, IndexError> {
        let shown = request.url.to_string();
        match reply.status {
            304 => {
                let Some((mut meta, body)) =
                    cached.filter(|(m, _)| m.content_type.as_deref() != Some(NOT_FOUND))
                else {
                    return Err(IndexError::Status {
                        url: shown,
                        status: 304,
                        context: " to an unconditional request".to_string(),
                    });
                };
                meta.fetched_at = request.now;
                meta.max_age = reply.max_age.unwrap_or(meta.max_age);
                let page = self.parse_cached(request, &meta, &body)?;
                log::debug!(
                    "{}: {} answered 304, the cached page is current",
                    request.name,
                    request.base
                );
                *freshness = Some((meta.fetched_at, meta.max_age));
                self.cache.write(Bucket::Pages, meta, &body);
                Ok(Some(page))
            }
            200 => self.fresh_page(request, reply, freshness).map(Some),
            404 | 410 => {
                // Remembered so that `--offline` can say "not on the index" too.
                let max_age = reply.max_age.unwrap_or(self.default_max_age);
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

    /// A 200: the page must parse before it is cached.
    fn fresh_page(
        &self,
        request: &PageRequest<'_>,
        reply: Reply,
        freshness: &mut Freshness,
    ) -> Result<ProjectPage, IndexError> {
        let page_url = SecretUrl::new(reply.url.clone());
        let content_type = reply.content_type.as_deref();
        let page = parse_page(
            &reply.body,
            content_type,
            &page_url,
            request.name,
            self.filter(),
        )?;
        let max_age = reply.max_age.unwrap_or(self.default_max_age);
        let meta = EntryMeta {
            etag: reply.etag.clone(),
            last_modified: reply.last_modified.clone(),
            ..entry(
                request.key.clone(),
                reply.content_type.clone(),
                request.now,
                max_age,
            )
        };
        self.cache.write(Bucket::Pages, meta, &reply.body);
        log::debug!(
            "{}: {} answered ({} files, {}, fresh for {max_age}s)",
            request.name,
            request.base,
            page.files.len(),
            content_type.unwrap_or("no content type")
        );
        *freshness = Some((request.now, max_age));
        Ok(page)
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
