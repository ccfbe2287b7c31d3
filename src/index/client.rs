//! Fetching bytes: HTTP(S) with retries, and `file:` URLs from disk.
//!
//! In: a URL and what to ask for (Accept, a byte range, validators). Out: a [`Reply`]: status,
//! selected headers and the complete body. Nothing here parses pages or caches.
//!
//! HTTP rules (reliability items 10-14, 31, 33): a bounded number of requests in
//! flight; connection errors, timeouts, cut-short bodies, 429 and 5xx are retried with
//! exponential backoff and jitter, honouring `Retry-After`; redirects are followed by hand so
//! credentials go only to their own realm and https never downgrades to http; a body shorter than
//! its `Content-Length` is a network error. A caller may hedge a request ([`Client::get_hedged`]):
//! not answered after a short delay, it is sent once more and the first good answer is used.
//!
//! Bounds (docs/index.md, "Limits"): every body is capped by what it is
//! ([`BodyKind`]: a page, a `.metadata` file, a range, a whole download), refused on its
//! `Content-Length` before a byte is read and cut off while streaming when it has none; a reply
//! must be complete within twice `PLANNER_HTTP_TIMEOUT` plus one second per 64 KiB received (a
//! trickle fails, a large body arriving steadily does not; a plain stall is the read timeout's,
//! and retried); and the whole run's requests end at its
//! network budget (`PLANNER_RUN_TIMEOUT`). Neither a cap nor a deadline is retried.
//!
//! Beside it: [`headers`] reads what a reply's headers say, [`local`] serves `file:` URLs.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{self, HeaderMap};
use tokio::sync::Semaphore;
use url::Url;

use super::IndexError;
use super::auth::{AuthStore, SecretUrl, check_redirect, redact, redact_text};
use headers::{content_range, header_str, max_age, retry_after};
use local::read_file;

mod headers;
mod local;

/// PEP 691 content negotiation: JSON preferred, HTML accepted.
pub(crate) const ACCEPT_SIMPLE: &str = "application/vnd.pypi.simple.v1+json, \
     application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01";

/// Tunables, with defaults like uv's (connect 10 s, read 30 s, 3 retries).
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// Per-read timeout.
    pub read_timeout: Duration,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// First backoff delay (doubled each retry, with jitter).
    pub backoff: Duration,
    /// The longest `Retry-After` honoured.
    pub max_retry_after: Duration,
    /// The largest project page read (`PLANNER_MAX_PAGE_BYTES`).
    pub max_page_bytes: u64,
    /// The largest whole wheel or sdist downloaded (`PLANNER_MAX_DOWNLOAD_BYTES`).
    pub max_download_bytes: u64,
    /// The network budget of the whole run (`PLANNER_RUN_TIMEOUT`): no request is sent, and
    /// none waited on, past it.
    pub run_timeout: Duration,
}

/// What a reply's body is, which sets its size cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// A whole wheel or sdist (or a range a server answers with the whole file).
    #[default]
    Download,
    /// A project page.
    Page,
    /// A PEP 658 `.metadata` file.
    Metadata,
    /// A whole sdist, read for its `PKG-INFO` (at most 256 MiB, or the download cap if lower).
    Sdist,
}

/// The hint of a range answered with more bytes than asked for.
const RANGE_HINT: &str = "the server sent more than the range asked for: the index is broken";

/// Bodies arriving slower than this on average fail at their deadline ([`Client`]'s docs).
const MIN_RATE: u64 = 64 * 1024;

impl Default for ClientSettings {
    fn default() -> Self {
        ClientSettings {
            read_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            retries: 3,
            concurrency: 32,
            backoff: Duration::from_millis(250),
            max_retry_after: Duration::from_secs(60),
            max_page_bytes: 64 * 1024 * 1024,
            max_download_bytes: 2 * 1024 * 1024 * 1024,
            run_timeout: Duration::from_secs(600),
        }
    }
}

impl ClientSettings {
    /// Defaults overridden by `PLANNER_HTTP_TIMEOUT` (seconds, read and connect, and the base
    /// of each reply's deadline), `PLANNER_HTTP_RETRIES`, `PLANNER_HTTP_CONCURRENCY`,
    /// `PLANNER_RUN_TIMEOUT` (seconds), `PLANNER_MAX_PAGE_BYTES` and
    /// `PLANNER_MAX_DOWNLOAD_BYTES`. A value that is not what its variable takes is an error
    /// naming the variable (it was ignored once, and the default used without a word).
    pub(crate) fn from_env(
        get: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ClientSettings, IndexError> {
        let mut settings = ClientSettings::default();
        let seconds = |s: &f64| *s > 0.0 && Duration::try_from_secs_f64(*s).is_ok();
        if let Some(secs) = env_value(get, "PLANNER_HTTP_TIMEOUT", SECONDS, seconds)? {
            settings.read_timeout = Duration::from_secs_f64(secs);
            settings.connect_timeout = Duration::from_secs_f64(secs.min(10.0));
        }
        if let Some(n) = env_value(get, "PLANNER_HTTP_RETRIES", WHOLE, |_| true)? {
            settings.retries = n;
        }
        let above_0 = "a whole number above 0";
        if let Some(n) = env_value(get, "PLANNER_HTTP_CONCURRENCY", above_0, |n| *n > 0)? {
            settings.concurrency = n;
        }
        if let Some(secs) = env_value(get, "PLANNER_RUN_TIMEOUT", SECONDS, seconds)? {
            settings.run_timeout = Duration::from_secs_f64(secs);
        }
        if let Some(n) = env_value(get, "PLANNER_MAX_PAGE_BYTES", WHOLE, |_| true)? {
            settings.max_page_bytes = n;
        }
        if let Some(n) = env_value(get, "PLANNER_MAX_DOWNLOAD_BYTES", WHOLE, |_| true)? {
            settings.max_download_bytes = n;
        }
        Ok(settings)
    }

    /// The cap on a body of `kind` answering `range` with `status`: what it is, its limit and
    /// the setting that raises it. A 206 is never more than the range asked for.
    fn limit(
        &self,
        kind: BodyKind,
        range: Option<ByteRange>,
        status: u16,
    ) -> (&'static str, u64, &'static str) {
        match (status, range) {
            (206, Some(ByteRange::Suffix(n))) => ("a range read", n, RANGE_HINT),
            (206, Some(ByteRange::Span(a, b))) => ("a range read", b.saturating_sub(a), RANGE_HINT),
            _ => match kind {
                BodyKind::Page => (
                    "the project page",
                    self.max_page_bytes,
                    "if the index really serves pages this large, raise PLANNER_MAX_PAGE_BYTES \
                     (bytes)",
                ),
                BodyKind::Metadata => (
                    "a .metadata file",
                    crate::metadata::max_bytes() as u64,
                    "real METADATA is far smaller (an embedded README included), and the same \
                     limit holds wherever planner reads METADATA: the index serves a broken file \
                     (PLANNER_MAX_METADATA_BYTES raises the limit)",
                ),
                BodyKind::Sdist => (
                    "a whole sdist",
                    self.max_download_bytes.min(256 * 1024 * 1024),
                    "sdists are read for PKG-INFO only up to 256 MiB (less when \
                     PLANNER_MAX_DOWNLOAD_BYTES is lower); this release cannot be planned for",
                ),
                BodyKind::Download => (
                    "a whole download",
                    self.max_download_bytes,
                    "if the index really serves files this large, raise \
                     PLANNER_MAX_DOWNLOAD_BYTES (bytes)",
                ),
            },
        }
    }
}

/// A byte range to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ByteRange {
    /// The last `n` bytes.
    Suffix(u64),
    /// `start..end` (end exclusive).
    Span(u64, u64),
}

/// What to send besides the URL.
#[derive(Debug, Clone, Default)]
pub(crate) struct RequestOptions {
    /// The `Accept` header.
    pub accept: Option<&'static str>,
    /// A `Range` header.
    pub range: Option<ByteRange>,
    /// `If-None-Match`.
    pub etag: Option<String>,
    /// `If-Modified-Since`.
    pub last_modified: Option<String>,
    /// With `range`: when the server ignores it and answers 200 (the whole file), leave the
    /// body unread (the reply's body is empty): the caller has a cheaper way to the same bytes
    /// than downloading a whole wheel.
    pub partial_only: bool,
    /// What the body is (its size cap).
    pub body: BodyKind,
    /// A whole file in answer (a 200): written to an unnamed temp file and mapped
    /// ([`Reply::spooled`]), never held in memory: a wheel can be gigabytes.
    pub spool: bool,
}

/// A body written to an unnamed temp file (removed when the last handle goes) and mapped: a
/// reader touches only the pages it reads.
#[derive(Debug, Clone)]
pub(crate) struct Spooled {
    /// The file, for reads that should not map every page (hashing it).
    pub file: Arc<std::fs::File>,
    /// Its bytes, mapped.
    pub map: Arc<memmap2::Mmap>,
}

/// A complete reply.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    /// The HTTP status (file URLs: 200, 206 or 404).
    pub status: u16,
    /// The URL that answered, after redirects (no credentials).
    pub url: Url,
    /// `Content-Type`, lower-cased, parameters dropped.
    pub content_type: Option<String>,
    /// `ETag`.
    pub etag: Option<String>,
    /// `Last-Modified`.
    pub last_modified: Option<String>,
    /// `Cache-Control: max-age`, seconds (`no-store`/`no-cache` give 0).
    pub max_age: Option<u64>,
    /// For 206: the first byte's offset and the total size (`Content-Range`).
    pub range: Option<(u64, Option<u64>)>,
    /// The body, complete (empty when spooled).
    pub body: Vec<u8>,
    /// The body in a temp file, when the request asked for it ([`RequestOptions::spool`]).
    pub spooled: Option<Spooled>,
}

impl Reply {
    /// The reply's status and headers, with an empty body.
    fn unread(url: Url, status: u16, headers: &HeaderMap) -> Reply {
        Reply {
            status,
            url,
            content_type: header_str(headers, header::CONTENT_TYPE).map(|ct| {
                ct.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            }),
            etag: header_str(headers, header::ETAG),
            last_modified: header_str(headers, header::LAST_MODIFIED),
            max_age: max_age(headers),
            range: content_range(headers),
            body: Vec::new(),
            spooled: None,
        }
    }
}

/// A hedged request ([`Client::get_hedged`]) is sent again after this long without an answer at
/// the least...
const HEDGE_FLOOR: Duration = Duration::from_millis(20);
/// ... and at the least this many times the fastest reply of the run (its round trip), so that
/// on a distant index only the stragglers are sent twice.
const HEDGE_ROUND_TRIPS: u32 = 3;

/// The fetcher: one reqwest client, credentials by realm, a bound on requests in flight.
#[derive(Clone)]
pub(crate) struct Client {
    /// Built on the first request: building it loads the system's root certificates, a tenth
    /// of a warm `--offline` run that never makes a request.
    /// A failure to build it is kept, and answers every request.
    http: Arc<OnceLock<Result<reqwest::Client, IndexError>>>,
    auth: Arc<AuthStore>,
    settings: ClientSettings,
    permits: Arc<Semaphore>,
    /// The fastest HTTP reply so far, in microseconds (`u64::MAX` before the first).
    fastest: Arc<AtomicU64>,
    /// When the run's network budget ends ([`ClientSettings::run_timeout`]).
    run_deadline: tokio::time::Instant,
}

impl Client {
    /// A client with these credentials and settings.
    pub(crate) fn new(auth: AuthStore, settings: ClientSettings) -> Result<Client, IndexError> {
        Ok(Client {
            http: Arc::new(OnceLock::new()),
            auth: Arc::new(auth),
            permits: Arc::new(Semaphore::new(settings.concurrency)),
            run_deadline: tokio::time::Instant::now() + settings.run_timeout,
            settings,
            fastest: Arc::new(AtomicU64::new(u64::MAX)),
        })
    }

    /// The reqwest client, built on first use.
    fn http(&self) -> Result<&reqwest::Client, IndexError> {
        let settings = &self.settings;
        let built = self.http.get_or_init(|| {
            // The process-wide TLS provider (ring); installed already by an earlier client.
            let _ = rustls::crypto::ring::default_provider().install_default();
            reqwest::Client::builder()
                .user_agent(concat!("planner/", env!("CARGO_PKG_VERSION")))
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(settings.connect_timeout)
                .read_timeout(settings.read_timeout)
                .pool_max_idle_per_host(settings.concurrency)
                .build()
                .map_err(|e| IndexError::Network {
                    url: "(client setup)".to_string(),
                    message: e.to_string(),
                })
        });
        built.as_ref().map_err(Clone::clone)
    }

    /// The largest project page read ([`ClientSettings::max_page_bytes`]).
    pub(crate) fn max_page_bytes(&self) -> u64 {
        self.settings.max_page_bytes
    }

    /// When the run's network budget ends ([`ClientSettings::run_timeout`]): work on what was
    /// fetched (inflating an sdist) stops there too.
    pub(crate) fn run_deadline(&self) -> std::time::Instant {
        self.run_deadline.into_std()
    }

    /// Where credentials were looked for.
    pub(crate) fn auth_sources(&self) -> String {
        self.auth.sources()
    }

    /// Fetch a URL (http, https or file), retrying transient failures.
    pub(crate) async fn get(
        &self,
        url: &Url,
        options: &RequestOptions,
    ) -> Result<Reply, IndexError> {
        if url.scheme() == "file" {
            log::trace!("read {url} (range {:?})", options.range);
            let limit = self.settings.limit(options.body, None, 200);
            return read_file(url, options.range, limit);
        }
        let mut attempt = 0;
        loop {
            let started = std::time::Instant::now();
            let result = self.get_once(url, options).await;
            let took = started.elapsed();
            log_reply(url, options, &result, took);
            if result.is_ok() {
                let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
                self.fastest.fetch_min(micros, Ordering::Relaxed);
            }
            let retry_after = match &result {
                Ok(a) if a.reply.status == 429 || a.reply.status >= 500 => Some(a.retry_after),
                Ok(_) => None,
                Err(e) if e.is_transient() => Some(None),
                Err(_) => None,
            };
            match retry_after {
                Some(wait) if attempt < self.settings.retries => {
                    let delay = wait
                        .map(|w| w.min(self.settings.max_retry_after))
                        .unwrap_or_else(|| self.backoff(attempt));
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                }
                _ => return result.map(|r| r.reply),
            }
        }
    }

    /// [`Client::get`], sent a second time when no answer has come after the hedge delay (20 ms,
    /// or three times the run's fastest reply if that is longer; never before the run's first
    /// reply, when the round trip is not known); the first good reply is used and the other
    /// request dropped. For small range reads of wheels, whose time is the
    /// server's latency: the public index answers a range of an older file in 60-190 ms (a
    /// recent one in 5-25 ms), the same range asked twice at once comes back at the earlier of
    /// two such draws, and the slowest of a dozen reads decides when an unsatisfiable request's
    /// hint is done (docs/measurements/2026-12-01-propose-all-and-cold-resolves.md, "Hedged range
    /// reads").
    pub(crate) async fn get_hedged(
        &self,
        url: &Url,
        options: &RequestOptions,
    ) -> Result<Reply, IndexError> {
        let Some(delay) = self.hedge_delay() else {
            return self.get(url, options).await;
        };
        let first = self.get(url, options);
        tokio::pin!(first);
        tokio::select! {
            reply = &mut first => return reply,
            () = tokio::time::sleep(delay) => {}
        }
        log::debug!(
            "GET {}{}: no answer yet, sent again",
            redact(url),
            range_text(options.range)
        );
        first_ok(first, self.get(url, options)).await
    }

    /// How long a hedged request waits before it is sent again (`None`: no reply yet).
    fn hedge_delay(&self) -> Option<Duration> {
        let fastest = self.fastest.load(Ordering::Relaxed);
        (fastest != u64::MAX).then(|| {
            HEDGE_FLOOR.max(Duration::from_micros(fastest).saturating_mul(HEDGE_ROUND_TRIPS))
        })
    }

    /// The delay before retry number `attempt` (exponential, jittered, at most 10 s).
    fn backoff(&self, attempt: u32) -> Duration {
        let base = self.settings.backoff.as_secs_f64() * f64::from(1u32 << attempt.min(6));
        let jitter = 0.5 + fastrand::f64();
        Duration::from_secs_f64((base * jitter).min(10.0))
    }

    async fn get_once(&self, url: &Url, options: &RequestOptions) -> Result<Attempt, IndexError> {
        let _permit = tokio::time::timeout_at(self.run_deadline, self.permits.acquire())
            .await
            .map_err(|_| self.run_spent(url, 0))?
            .map_err(|_| IndexError::Network {
                url: redact(url),
                message: "client shut down".to_string(),
            })?;
        if tokio::time::Instant::now() >= self.run_deadline {
            return Err(self.run_spent(url, 0));
        }
        let http = self.http()?;
        let started = tokio::time::Instant::now();
        let mut current = SecretUrl::new(url.clone()).without_credentials();
        for _ in 0..10 {
            let send = self.request(http, url, &current, options).send();
            let response = tokio::time::timeout_at(self.deadline(started, 0), send)
                .await
                .map_err(|_| self.deadline_passed(&current, started, 0))?
                .map_err(|e| self.network(&current, &e))?;
            let status = response.status().as_u16();
            if (300..400).contains(&status) && status != 304 {
                current = redirect_target(&current, status, &response)?;
                continue;
            }
            if status == 200 && options.partial_only && options.range.is_some() {
                return Ok(Attempt {
                    retry_after: None,
                    reply: Reply::unread(current, status, response.headers()),
                });
            }
            return self
                .attempt(current, status, response, options, started)
                .await;
        }
        Err(IndexError::Network {
            url: redact(url),
            message: "too many redirects".to_string(),
        })
    }

    /// The request for one hop (`current`) of a fetch that began at `first`.
    fn request(
        &self,
        http: &reqwest::Client,
        first: &Url,
        current: &Url,
        options: &RequestOptions,
    ) -> reqwest::RequestBuilder {
        let mut request = http.get(current.clone());
        if let Some(accept) = options.accept {
            request = request.header(header::ACCEPT, accept);
        }
        match options.range {
            Some(ByteRange::Suffix(n)) => {
                request = request.header(header::RANGE, format!("bytes=-{n}"));
            }
            Some(ByteRange::Span(start, end)) => {
                request = request.header(
                    header::RANGE,
                    format!("bytes={start}-{}", end.saturating_sub(1)),
                );
            }
            None => {}
        }
        if let Some(etag) = &options.etag {
            request = request.header(header::IF_NONE_MATCH, etag);
        }
        if let Some(lm) = &options.last_modified {
            request = request.header(header::IF_MODIFIED_SINCE, lm);
        }
        // Credentials only for their own realm: the configured index's (its URL, netrc or
        // keyring), else the first hop's userinfo.
        let creds = self.auth.for_url(current).cloned().or_else(|| {
            SecretUrl::new(first.clone())
                .credentials()
                .filter(|_| same_origin(first, current))
        });
        if let Some(creds) = creds {
            request = request.basic_auth(creds.username, creds.password);
        }
        request
    }

    /// A final (non-redirect) response read whole, within its cap and deadline: a body shorter
    /// than its `Content-Length` is a network error.
    async fn attempt(
        &self,
        current: Url,
        status: u16,
        response: reqwest::Response,
        options: &RequestOptions,
        started: tokio::time::Instant,
    ) -> Result<Attempt, IndexError> {
        let headers = response.headers().clone();
        let expected_len = if response.headers().contains_key(header::CONTENT_ENCODING) {
            None
        } else {
            response.content_length()
        };
        let limit = self.settings.limit(options.body, options.range, status);
        let mut reply = Reply::unread(current.clone(), status, &headers);
        let received = if options.spool && status == 200 {
            let spooled = self
                .spool_body(&current, response, expected_len, limit, started)
                .await?;
            let len = spooled.map.len() as u64;
            reply.spooled = Some(spooled);
            len
        } else {
            let mut body = Vec::with_capacity(
                expected_len.unwrap_or(0).min(limit.1).min(16 * 1024 * 1024) as usize,
            );
            let put = |chunk: &[u8]| {
                body.extend_from_slice(chunk);
                Ok(())
            };
            self.read_body(&current, response, expected_len, limit, started, put)
                .await?;
            let len = body.len() as u64;
            reply.body = body;
            len
        };
        if let Some(expected) = expected_len
            && received < expected
        {
            return Err(IndexError::Network {
                url: redact(&current),
                message: format!("body cut short: {received} of {expected} bytes received"),
            });
        }
        Ok(Attempt {
            retry_after: retry_after(&headers),
            reply,
        })
    }

    /// A body read as [`Client::read_body`] reads it, into an unnamed temp file, then mapped.
    #[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
    async fn spool_body(
        &self,
        url: &Url,
        response: reqwest::Response,
        expected_len: Option<u64>,
        limit: (&'static str, u64, &'static str),
        started: tokio::time::Instant,
    ) -> Result<Spooled, IndexError> {
        let io = |e: std::io::Error| IndexError::Network {
            url: redact(url),
            message: format!("cannot write the download to a temp file: {e}"),
        };
        let file = tempfile::tempfile().map_err(io)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, &file);
        let put = |chunk: &[u8]| std::io::Write::write_all(&mut out, chunk);
        self.read_body(url, response, expected_len, limit, started, put)
            .await?;
        std::io::Write::flush(&mut out).map_err(io)?;
        drop(out);
        // SAFETY: the file is unnamed (no other process can open it) and this process never
        // writes it again: the mapping's bytes cannot change under it.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Ok(Spooled {
            file: Arc::new(file),
            map: Arc::new(map),
        })
    }

    /// A body read chunk by chunk into `put`: refused on a `Content-Length` over `limit`, cut
    /// off when the bytes received pass it (a body with no length, or decompressing to more),
    /// and failed when it is not complete by its deadline ([`Client::deadline`]). Returns the
    /// bytes received.
    async fn read_body(
        &self,
        url: &Url,
        mut response: reqwest::Response,
        expected_len: Option<u64>,
        (what, limit, hint): (&'static str, u64, &'static str),
        started: tokio::time::Instant,
        mut put: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> Result<u64, IndexError> {
        let too_large = |seen: String| IndexError::TooLarge {
            url: redact(url),
            what: what.to_string(),
            limit,
            seen,
            hint: hint.to_string(),
        };
        if let Some(len) = expected_len
            && len > limit
        {
            return Err(too_large(format!("Content-Length: {len}")));
        }
        let mut received = 0u64;
        loop {
            let chunk = tokio::time::timeout_at(self.deadline(started, received), response.chunk())
                .await
                .map_err(|_| self.deadline_passed(url, started, received))?
                .map_err(|e| {
                    let mut err = self.network(url, &e);
                    if let IndexError::Network { message, .. } = &mut err {
                        message.push_str(&format!(" ({received} bytes of the body received)"));
                    }
                    err
                })?;
            let Some(chunk) = chunk else {
                return Ok(received);
            };
            if received + chunk.len() as u64 > limit {
                return Err(too_large(format!(
                    "{} bytes received before stopping",
                    received + chunk.len() as u64
                )));
            }
            put(&chunk).map_err(|e| IndexError::Network {
                url: redact(url),
                message: format!("cannot keep the body: {e}"),
            })?;
            received += chunk.len() as u64;
        }
    }

    /// When a reply begun at `started` with `received` body bytes so far must be complete: twice
    /// the read timeout (so that a plain stall is the read timeout's, a retried network error),
    /// plus a second per [`MIN_RATE`] bytes received, and never past the run's budget.
    fn deadline(&self, started: tokio::time::Instant, received: u64) -> tokio::time::Instant {
        let allowed = self.settings.read_timeout * 2 + Duration::from_secs(received / MIN_RATE);
        (started + allowed).min(self.run_deadline)
    }

    /// The error for a reply not complete by [`Client::deadline`].
    fn deadline_passed(
        &self,
        url: &Url,
        started: tokio::time::Instant,
        received: u64,
    ) -> IndexError {
        if tokio::time::Instant::now() >= self.run_deadline {
            return self.run_spent(url, received);
        }
        IndexError::TimedOut {
            url: redact(url),
            message: format!(
                "no complete reply after {:.1}s ({received} bytes of the body received; a reply \
                 must come within {}s plus 1s per 64 KiB)",
                started.elapsed().as_secs_f64(),
                (self.settings.read_timeout * 2).as_secs_f64()
            ),
            knob: "PLANNER_HTTP_TIMEOUT".to_string(),
        }
    }

    /// The error for a request the run's network budget ended.
    fn run_spent(&self, url: &Url, received: u64) -> IndexError {
        IndexError::TimedOut {
            url: redact(url),
            message: format!(
                "the run's network budget of {}s is spent ({received} bytes of this reply \
                 received)",
                self.settings.run_timeout.as_secs_f64()
            ),
            knob: "PLANNER_RUN_TIMEOUT".to_string(),
        }
    }

    fn network(&self, url: &Url, err: &reqwest::Error) -> IndexError {
        let mut message = err.to_string();
        let mut source = std::error::Error::source(err);
        while let Some(s) = source {
            message.push_str(": ");
            message.push_str(&s.to_string());
            source = s.source();
        }
        if err.is_timeout() {
            message = format!("timed out ({message})");
        }
        IndexError::Network {
            url: redact(url),
            message: redact_text(&message, &self.auth.secrets()),
        }
    }
}

/// The first of two futures to succeed; an error counts only when the other failed too (the
/// later error is returned).
async fn first_ok<T, E>(
    a: impl Future<Output = Result<T, E>>,
    b: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    tokio::pin!(a, b);
    tokio::select! {
        r = &mut a => match r {
            Ok(v) => Ok(v),
            Err(_) => b.await,
        },
        r = &mut b => match r {
            Ok(v) => Ok(v),
            Err(_) => a.await,
        },
    }
}

/// How the log shows a request's range (` (last 65536 bytes)`; empty without one).
fn range_text(range: Option<ByteRange>) -> String {
    match range {
        Some(ByteRange::Suffix(n)) => format!(" (last {n} bytes)"),
        Some(ByteRange::Span(a, b)) => format!(" (bytes {a}-{b})"),
        None => String::new(),
    }
}

/// One request's line in the `-v` log: method, URL (redacted), range, status, size, time.
fn log_reply(
    url: &Url,
    options: &RequestOptions,
    result: &Result<Attempt, IndexError>,
    took: Duration,
) {
    let range = range_text(options.range);
    let conditional = if options.etag.is_some() || options.last_modified.is_some() {
        " (revalidating)"
    } else {
        ""
    };
    match result {
        Ok(a) => log::debug!(
            "GET {}{range}{conditional}: {} ({} bytes, {:.3}s)",
            redact(url),
            a.reply.status,
            a.reply.body.len(),
            took.as_secs_f64()
        ),
        Err(e) => log::debug!("GET {}{range}: {e}", redact(url)),
    }
}

struct Attempt {
    reply: Reply,
    retry_after: Option<Duration>,
}

/// Where a redirect from `current` leads, once it is checked (no https -> http, a Location
/// that parses).
fn redirect_target(
    current: &Url,
    status: u16,
    response: &reqwest::Response,
) -> Result<Url, IndexError> {
    let location = response
        .headers()
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| IndexError::Network {
            url: redact(current),
            message: format!("redirect {status} without a Location"),
        })?;
    let next = current.join(location).map_err(|e| IndexError::Network {
        url: redact(current),
        message: format!("bad redirect Location: {e}"),
    })?;
    check_redirect(current, &next).map_err(|reason| IndexError::Redirect {
        from: redact(current),
        to: redact(&next),
        reason: reason.to_string(),
    })?;
    Ok(SecretUrl::new(next).without_credentials())
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// What the seconds variables take.
const SECONDS: &str = "a number of seconds above 0 (`30`, `2.5`)";
/// What the count and size variables take.
const WHOLE: &str = "a whole number, 0 or more";

/// The value of the environment variable `var` (`wants` says what it takes, `fits` which
/// values of its type are allowed): none when it is unset or empty, an error naming the
/// variable and what it takes when it is something else.
pub(crate) fn env_value<T: std::str::FromStr>(
    get: &dyn Fn(&str) -> Option<String>,
    var: &str,
    wants: &str,
    fits: impl Fn(&T) -> bool,
) -> Result<Option<T>, IndexError> {
    let Some(text) = get(var).filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    match text.trim().parse::<T>() {
        Ok(value) if fits(&value) => Ok(Some(value)),
        _ => Err(IndexError::Config {
            source_name: var.to_string(),
            message: format!("`{}` is not {wants}", crate::terminal::field(&text)),
            hint: format!("set {var} to {wants}, or unset it for the default"),
        }),
    }
}

#[cfg(test)]
mod tests;
