//! Fetching bytes: HTTP(S) with retries, and `file:` URLs from disk.
//!
//! In: a URL and what to ask for (Accept, a byte range, validators). Out: a [`Reply`]: status,
//! selected headers and the complete body. Nothing here parses pages or caches.
//!
//! HTTP rules (issue 3 §5, reliability items 10-14, 31, 33): a bounded number of requests in
//! flight; connection errors, timeouts, cut-short bodies, 429 and 5xx are retried with
//! exponential backoff and jitter, honouring `Retry-After`; redirects are followed by hand so
//! credentials go only to their own realm and https never downgrades to http; a body shorter than
//! its `Content-Length` is a network error. A caller may hedge a request ([`Client::get_hedged`]):
//! not answered after a short delay, it is sent once more and the first good answer is used.

use std::future::Future;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderValue};
use tokio::sync::Semaphore;
use url::Url;

use super::IndexError;
use super::auth::{AuthStore, SecretUrl, check_redirect, redact, redact_text};

/// PEP 691 content negotiation: JSON preferred, HTML accepted.
pub const ACCEPT_SIMPLE: &str = "application/vnd.pypi.simple.v1+json, \
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
}

impl Default for ClientSettings {
    fn default() -> Self {
        ClientSettings {
            read_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            retries: 3,
            concurrency: 32,
            backoff: Duration::from_millis(250),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl ClientSettings {
    /// Defaults overridden by `PLANNER_HTTP_TIMEOUT` (seconds, read and connect),
    /// `PLANNER_HTTP_RETRIES` and `PLANNER_HTTP_CONCURRENCY`.
    pub fn from_env(get: &dyn Fn(&str) -> Option<String>) -> ClientSettings {
        let mut settings = ClientSettings::default();
        if let Some(secs) = get("PLANNER_HTTP_TIMEOUT").and_then(|v| v.trim().parse::<f64>().ok())
            && secs > 0.0
        {
            settings.read_timeout = Duration::from_secs_f64(secs);
            settings.connect_timeout = Duration::from_secs_f64(secs.min(10.0));
        }
        if let Some(n) = get("PLANNER_HTTP_RETRIES").and_then(|v| v.trim().parse().ok()) {
            settings.retries = n;
        }
        if let Some(n) = get("PLANNER_HTTP_CONCURRENCY").and_then(|v| v.trim().parse().ok())
            && n > 0
        {
            settings.concurrency = n;
        }
        settings
    }
}

/// A byte range to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteRange {
    /// The last `n` bytes.
    Suffix(u64),
    /// `start..end` (end exclusive).
    Span(u64, u64),
}

/// What to send besides the URL.
#[derive(Debug, Clone, Default)]
pub struct RequestOptions {
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
}

/// A complete reply.
#[derive(Debug, Clone)]
pub struct Reply {
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
    /// The body, complete.
    pub body: Vec<u8>,
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
pub struct Client {
    /// Built on the first request: building it loads the system's root certificates, a tenth
    /// of a warm `--offline` run that never makes a request.
    http: Arc<OnceLock<Result<reqwest::Client, String>>>,
    auth: Arc<AuthStore>,
    settings: ClientSettings,
    permits: Arc<Semaphore>,
    /// The fastest HTTP reply so far, in microseconds (`u64::MAX` before the first).
    fastest: Arc<AtomicU64>,
}

impl Client {
    /// A client with these credentials and settings.
    pub fn new(auth: AuthStore, settings: ClientSettings) -> Result<Client, IndexError> {
        Ok(Client {
            http: Arc::new(OnceLock::new()),
            auth: Arc::new(auth),
            permits: Arc::new(Semaphore::new(settings.concurrency)),
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
                .map_err(|e| e.to_string())
        });
        built.as_ref().map_err(|message| IndexError::Network {
            url: "(client setup)".to_string(),
            message: message.clone(),
        })
    }

    /// Where credentials were looked for.
    pub fn auth_sources(&self) -> String {
        self.auth.sources()
    }

    /// Fetch a URL (http, https or file), retrying transient failures.
    pub async fn get(&self, url: &Url, options: &RequestOptions) -> Result<Reply, IndexError> {
        if url.scheme() == "file" {
            log::trace!("read {url} (range {:?})", options.range);
            return read_file(url, options.range);
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
    /// hint is done (docs/performance.md, "Hedged range reads").
    pub async fn get_hedged(
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
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| IndexError::Network {
                url: redact(url),
                message: "client shut down".to_string(),
            })?;
        let http = self.http()?;
        let mut current = SecretUrl::new(url.clone()).without_credentials();
        for _ in 0..10 {
            let response = self
                .request(http, url, &current, options)
                .send()
                .await
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
            return self.attempt(current, status, response).await;
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

    /// A final (non-redirect) response read whole: a body shorter than its `Content-Length` is
    /// a network error.
    async fn attempt(
        &self,
        current: Url,
        status: u16,
        response: reqwest::Response,
    ) -> Result<Attempt, IndexError> {
        let headers = response.headers().clone();
        let expected_len = if response.headers().contains_key(header::CONTENT_ENCODING) {
            None
        } else {
            response.content_length()
        };
        let body = response
            .bytes()
            .await
            .map_err(|e| self.network(&current, &e))?;
        if let Some(expected) = expected_len
            && (body.len() as u64) < expected
        {
            return Err(IndexError::Network {
                url: redact(&current),
                message: format!(
                    "body cut short: {} of {expected} bytes received",
                    body.len()
                ),
            });
        }
        let mut reply = Reply::unread(current, status, &headers);
        reply.body = Vec::from(body);
        Ok(Attempt {
            retry_after: retry_after(&headers),
            reply,
        })
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

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v: &HeaderValue| v.to_str().ok())
        .map(str::to_string)
}

/// `Retry-After`: delta-seconds or an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = header_str(headers, header::RETRY_AFTER)?;
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    let now = jiff::Timestamp::now();
    let secs = when.as_second() - now.as_second();
    Some(Duration::from_secs(secs.max(0) as u64))
}

/// How long a reply stays fresh (RFC 9111 §4.2): `Cache-Control: max-age` less the `Age` a
/// shared cache already kept it; `no-store` / `no-cache` give 0 (revalidate every time).
/// `s-maxage` is for shared caches and is ignored, as a private client must.
fn max_age(headers: &HeaderMap) -> Option<u64> {
    let value = header_str(headers, header::CACHE_CONTROL)?.to_ascii_lowercase();
    let mut max_age = None;
    for directive in value.split(',').map(str::trim) {
        if directive == "no-store" || directive == "no-cache" {
            return Some(0);
        }
        if let Some(n) = directive.strip_prefix("max-age=") {
            max_age = n.trim_matches('"').parse::<u64>().ok();
        }
    }
    let age = header_str(headers, header::AGE)
        .and_then(|a| a.trim().parse::<u64>().ok())
        .unwrap_or(0);
    max_age.map(|m| m.saturating_sub(age))
}

fn content_range(headers: &HeaderMap) -> Option<(u64, Option<u64>)> {
    let value = header_str(headers, header::CONTENT_RANGE)?;
    let rest = value.trim().strip_prefix("bytes ")?;
    let (span, total) = rest.split_once('/')?;
    let start = span.split_once('-')?.0.trim().parse().ok()?;
    Some((start, total.trim().parse().ok()))
}

/// A `file:` URL read from disk, as if served (404 when absent).
fn read_file(url: &Url, range: Option<ByteRange>) -> Result<Reply, IndexError> {
    let path = url.to_file_path().map_err(|()| IndexError::InvalidUrl {
        url: redact(url),
        message: "not a local path".to_string(),
    })?;
    let io_err = |e: std::io::Error| IndexError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let reply = |status, body, range| Reply {
        status,
        url: url.clone(),
        content_type: None,
        etag: None,
        last_modified: None,
        max_age: None,
        range,
        body,
    };
    let mut file = match std::fs::File::open(&path) {
        Ok(f) if path.is_file() => f,
        Ok(_) => return Ok(reply(404, Vec::new(), None)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(reply(404, Vec::new(), None));
        }
        Err(e) => return Err(io_err(e)),
    };
    let total = file.metadata().map_err(io_err)?.len();
    let (start, end) = match range {
        None => {
            let mut body = Vec::new();
            file.read_to_end(&mut body).map_err(io_err)?;
            return Ok(reply(200, body, None));
        }
        Some(ByteRange::Suffix(n)) => (total.saturating_sub(n), total),
        Some(ByteRange::Span(s, e)) => (s.min(total), e.min(total)),
    };
    file.seek(SeekFrom::Start(start)).map_err(io_err)?;
    let mut body = vec![0; (end - start) as usize];
    file.read_exact(&mut body).map_err(io_err)?;
    Ok(reply(206, body, Some((start, Some(total)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`first_ok`]: the first success wins, an error waits for the other, two errors give the
    /// later one.
    #[test]
    fn the_first_good_answer_of_two_is_used() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let after = |ms: u64, r: Result<u8, u8>| async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            r
        };
        let never = || std::future::pending::<Result<u8, u8>>();
        rt.block_on(async {
            assert_eq!(first_ok(after(1, Err(1)), after(5, Ok(2))).await, Ok(2));
            assert_eq!(first_ok(after(5, Ok(1)), after(1, Err(2))).await, Ok(1));
            assert_eq!(first_ok(never(), after(1, Ok(2))).await, Ok(2));
            assert_eq!(first_ok(after(1, Ok(1)), never()).await, Ok(1));
            assert_eq!(first_ok(after(1, Err(1)), after(5, Err(2))).await, Err(2));
        });
    }

    /// No hedge before the first reply; then 20 ms, or three round trips on a distant index.
    #[test]
    fn the_hedge_waits_for_the_round_trip() {
        let client = Client::new(AuthStore::default(), ClientSettings::default()).unwrap();
        assert_eq!(client.hedge_delay(), None);
        client.fastest.fetch_min(2_000, Ordering::Relaxed);
        assert_eq!(client.hedge_delay(), Some(Duration::from_millis(20)));
        client.fastest.store(50_000, Ordering::Relaxed);
        assert_eq!(client.hedge_delay(), Some(Duration::from_millis(150)));
    }

    #[test]
    fn header_helpers() {
        let mut h = HeaderMap::new();
        h.insert(header::RETRY_AFTER, HeaderValue::from_static("7"));
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=600"),
        );
        h.insert(
            header::CONTENT_RANGE,
            HeaderValue::from_static("bytes 100-199/5000"),
        );
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        assert_eq!(max_age(&h), Some(600));
        // A shared cache kept it 550 s already: 50 s are left; past its age, none.
        h.insert(header::AGE, HeaderValue::from_static("550"));
        assert_eq!(max_age(&h), Some(50));
        h.insert(header::AGE, HeaderValue::from_static("900"));
        assert_eq!(max_age(&h), Some(0));
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("max-age=60, no-cache"),
        );
        assert_eq!(max_age(&h), Some(0));
        h.remove(header::AGE);
        assert_eq!(content_range(&h), Some((100, Some(5000))));
        h.insert(
            header::RETRY_AFTER,
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
    }

    #[test]
    fn file_urls_read_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        std::fs::write(&path, b"0123456789").unwrap();
        let url = Url::from_file_path(&path).unwrap();
        let r = read_file(&url, Some(ByteRange::Suffix(3))).unwrap();
        assert_eq!(
            (r.status, r.body.as_slice(), r.range),
            (206, &b"789"[..], Some((7, Some(10))))
        );
        let r = read_file(&url, Some(ByteRange::Span(2, 4))).unwrap();
        assert_eq!(r.body, b"23");
        let missing = Url::from_file_path(dir.path().join("nope")).unwrap();
        assert_eq!(read_file(&missing, None).unwrap().status, 404);
    }
}
