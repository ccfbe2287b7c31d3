//! What a reply's headers say: one header map in, a header's text, `Retry-After` as a wait,
//! how long the reply stays fresh (`Cache-Control`, `Age`), and the span a `Content-Range`
//! covers out.

use std::time::Duration;

use reqwest::header::{self, HeaderMap, HeaderValue};

/// A header's value as text (`None` when absent or not visible ASCII).
pub(super) fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v: &HeaderValue| v.to_str().ok())
        .map(str::to_string)
}

/// `Retry-After`: delta-seconds or an HTTP date.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
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
pub(super) fn max_age(headers: &HeaderMap) -> Option<u64> {
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

/// `Content-Range: bytes START-END/TOTAL`: where the body starts, and the whole size when
/// known.
pub(super) fn content_range(headers: &HeaderMap) -> Option<(u64, Option<u64>)> {
    let value = header_str(headers, header::CONTENT_RANGE)?;
    let rest = value.trim().strip_prefix("bytes ")?;
    let (span, total) = rest.split_once('/')?;
    let start = span.split_once('-')?.0.trim().parse().ok()?;
    Some((start, total.trim().parse().ok()))
}
