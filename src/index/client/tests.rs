//! Unit tests of `crate::index::client`.

use reqwest::header::HeaderValue;

use super::*;

/// [`first_ok`]: the first success wins, an error waits for the other, two errors give the
/// later one.
#[test]
fn the_first_good_answer_of_two_is_used() {
    // Paused time: the clock jumps to the next timer, so "after 1 ms" is always before "after
    // 5 ms", however loaded the machine is.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
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
    let limit = ("a whole download", 100, "PLANNER_MAX_DOWNLOAD_BYTES");
    let r = read_file(&url, Some(ByteRange::Suffix(3)), limit).unwrap();
    assert_eq!(
        (r.status, r.body.as_slice(), r.range),
        (206, &b"789"[..], Some((7, Some(10))))
    );
    let r = read_file(&url, Some(ByteRange::Span(2, 4)), limit).unwrap();
    assert_eq!(r.body, b"23");
    let missing = Url::from_file_path(dir.path().join("nope")).unwrap();
    assert_eq!(read_file(&missing, None, limit).unwrap().status, 404);
    // Over the cap: refused, naming the file and the setting.
    let small = ("a whole download", 4, "PLANNER_MAX_DOWNLOAD_BYTES");
    let err = read_file(&url, None, small).unwrap_err();
    assert!(
        matches!(err, IndexError::TooLarge { limit: 4, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("f.bin"), "{err}");
}
