//! A loopback HTTP server that serves a recorded simple index (`testdata/index` layout) and
//! injects faults. It runs on plain threads inside the test process; requests are logged so
//! tests can assert on what the client sent (Accept, Range, Authorization, validators).
//!
//! Routes: `/simple/<name>/` (JSON or HTML by `Accept`, per [`PageMode`]),
//! `/files/<file>.metadata`, `/files/<file>` (a whole wheel from `wheels/`, or the recorded byte
//! ranges of a big wheel from `sparse/`, with `Range` support). A page or metadata file may be
//! stored gzip-compressed beside its name (`index.json.gz`, `<file>.metadata.gz`, as the
//! recorded review corpus is): it is served decompressed, as if stored plain.

#![allow(dead_code)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// How project pages are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageMode {
    /// JSON when asked for, else HTML (like the public index).
    Negotiate,
    /// HTML whatever is asked (like `python -m http.server`).
    HtmlOnly,
}

/// A fault injected on paths starting with a prefix.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer this status the next `times` requests.
    Status { status: u16, times: usize },
    /// 429 with `Retry-After: secs`, the next `times` requests.
    TooMany { retry_after: u64, times: usize },
    /// Wait this long before answering (once per request, always).
    Stall(Duration),
    /// Wait this long before answering, the next `times` requests only.
    StallFirst { stall: Duration, times: usize },
    /// Wait this long before answering a request with a `Range` header (always).
    StallRanges(Duration),
    /// Announce a longer `Content-Length` than the body sent, the next `times` requests.
    Truncate { times: usize },
    /// Serve this body with a JSON content type.
    InvalidJson,
    /// Serve these bytes as the body (e.g. metadata of another project).
    Body(Vec<u8>),
    /// 302 to this URL (path appended).
    RedirectTo(String),
    /// 401 unless the request carries this `Authorization` header value.
    RequireAuth(String),
    /// 200 with no `Content-Length` and a body that never ends (zeros, as fast as the client
    /// takes them), until the client hangs up.
    EndlessBody,
    /// 200 announcing this `Content-Length`, then zeros as fast as the client takes them.
    HugeBody(u64),
    /// The real reply, its body sent one byte per this interval.
    Drip(Duration),
}

/// How a reply's body is sent, beyond the plain write.
#[derive(Debug, Clone, Copy)]
enum Stream {
    /// Zeros until the client hangs up; `Some(n)`: `Content-Length: n` is announced.
    Zeros(Option<u64>),
    /// The body, one byte per interval.
    Drip(Duration),
}

/// One logged request.
#[derive(Debug, Clone)]
pub struct Logged {
    /// The path.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: HashMap<String, String>,
    /// When it arrived.
    pub at: Instant,
}

#[derive(Debug)]
struct State {
    root: PathBuf,
    mode: PageMode,
    metadata_files: bool,
    ranges: bool,
    max_age: Option<u64>,
    /// Headers sent as they are with every page reply (200 and 304), after `max_age`'s.
    page_headers: Vec<(String, String)>,
    faults: Vec<(String, Fault)>,
    log: Vec<Logged>,
}

/// The server; it stops when dropped (its threads are detached and idle).
pub struct IndexServer {
    addr: std::net::SocketAddr,
    state: Arc<Mutex<State>>,
}

impl IndexServer {
    /// Serve `root` (a folder with `simple/`, `files/`, `sparse/`, `wheels/`).
    pub fn start(root: &Path) -> IndexServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State {
            root: root.to_path_buf(),
            mode: PageMode::Negotiate,
            metadata_files: true,
            ranges: true,
            max_age: None,
            page_headers: Vec::new(),
            faults: Vec::new(),
            log: Vec::new(),
        }));
        let shared = state.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = shared.clone();
                thread::spawn(move || {
                    let _ = handle(stream, &state);
                });
            }
        });
        IndexServer { addr, state }
    }

    /// Serve the recorded real index data.
    pub fn recorded() -> IndexServer {
        IndexServer::start(&testdata_index())
    }

    /// `http://127.0.0.1:PORT/simple/`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/simple/", self.addr.port())
    }

    /// The same server under the name `localhost` (another host for the client).
    pub fn url_as_localhost(&self) -> String {
        format!("http://localhost:{}/simple/", self.addr.port())
    }

    /// `http://127.0.0.1:PORT` (no path).
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.addr.port())
    }

    /// The index URL with credentials.
    pub fn url_with_credentials(&self, user: &str, password: &str) -> String {
        format!(
            "http://{user}:{password}@127.0.0.1:{}/simple/",
            self.addr.port()
        )
    }

    /// How pages are answered.
    pub fn set_mode(&self, mode: PageMode) {
        self.state.lock().unwrap().mode = mode;
    }

    /// Whether `.metadata` files are served (else 404, as for newer wheels on the public index).
    pub fn set_metadata_files(&self, on: bool) {
        self.state.lock().unwrap().metadata_files = on;
    }

    /// Whether `Range` is honoured (else whole files with 200).
    pub fn set_ranges(&self, on: bool) {
        self.state.lock().unwrap().ranges = on;
    }

    /// `Cache-Control: max-age` on pages.
    pub fn set_max_age(&self, secs: Option<u64>) {
        self.state.lock().unwrap().max_age = secs;
    }

    /// Send these headers (e.g. `Cache-Control`, `Age`) with every page reply, 200 or 304.
    pub fn set_page_headers(&self, headers: &[(&str, &str)]) {
        self.state.lock().unwrap().page_headers = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
    }

    /// Inject a fault on paths starting with `prefix`.
    pub fn fault(&self, prefix: &str, fault: Fault) {
        self.state
            .lock()
            .unwrap()
            .faults
            .push((prefix.to_string(), fault));
    }

    /// Remove every fault.
    pub fn clear_faults(&self) {
        self.state.lock().unwrap().faults.clear();
    }

    /// Requests so far.
    pub fn log(&self) -> Vec<Logged> {
        self.state.lock().unwrap().log.clone()
    }

    /// Requests whose path starts with `prefix`.
    pub fn requests(&self, prefix: &str) -> Vec<Logged> {
        self.log()
            .into_iter()
            .filter(|l| l.path.starts_with(prefix))
            .collect()
    }

    /// Forget the log.
    pub fn clear_log(&self) {
        self.state.lock().unwrap().log.clear();
    }
}

/// `testdata/index` in the crate.
pub fn testdata_index() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/index")
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Announced length, when it differs from the body (truncation).
    content_length: Option<usize>,
    /// Sent another way than one write.
    stream: Option<Stream>,
}

impl Response {
    fn status(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            content_length: None,
            stream: None,
        }
    }

    fn with(status: u16, content_type: &str, body: Vec<u8>) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".to_string(), content_type.to_string())],
            body,
            content_length: None,
            stream: None,
        }
    }
}

fn handle(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h)?;
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let (response, stall) = respond(&path, &headers, state);
        if let Some(stall) = stall {
            thread::sleep(stall);
        }
        let reason = match response.status {
            200 => "OK",
            206 => "Partial Content",
            302 => "Found",
            304 => "Not Modified",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "Not Found",
            416 => "Range Not Satisfiable",
            429 => "Too Many Requests",
            _ => "Status",
        };
        let mut head = format!("HTTP/1.1 {} {reason}\r\n", response.status);
        for (k, v) in &response.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        if let Some(how) = response.stream {
            return send_streamed(&mut stream, head, &response, how);
        }
        let length = response.content_length.unwrap_or(response.body.len());
        head.push_str(&format!("Content-Length: {length}\r\n"));
        let close = response.content_length.is_some();
        if close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes())?;
        stream.write_all(&response.body)?;
        stream.flush()?;
        if close {
            return Ok(());
        }
    }
}

/// A reply whose body is streamed ([`Stream`]); the connection is closed after it.
fn send_streamed(
    stream: &mut TcpStream,
    mut head: String,
    response: &Response,
    how: Stream,
) -> std::io::Result<()> {
    match how {
        Stream::Zeros(length) => {
            if let Some(n) = length {
                head.push_str(&format!("Content-Length: {n}\r\n"));
            }
            head.push_str("Connection: close\r\n\r\n");
            stream.write_all(head.as_bytes())?;
            let zeros = vec![0u8; 64 * 1024];
            loop {
                // Ends when the client hangs up (a write error).
                stream.write_all(&zeros)?;
            }
        }
        Stream::Drip(interval) => {
            head.push_str(&format!(
                "Content-Length: {}\r\nConnection: close\r\n\r\n",
                response.body.len()
            ));
            stream.write_all(head.as_bytes())?;
            for byte in &response.body {
                stream.write_all(std::slice::from_ref(byte))?;
                stream.flush()?;
                thread::sleep(interval);
            }
            Ok(())
        }
    }
}

fn respond(
    path: &str,
    headers: &HashMap<String, String>,
    state: &Mutex<State>,
) -> (Response, Option<Duration>) {
    let mut st = state.lock().unwrap();
    st.log.push(Logged {
        path: path.to_string(),
        headers: headers.clone(),
        at: Instant::now(),
    });
    let mut stall = None;
    let mut truncate = false;
    let mut body_override = None;
    let mut invalid_json = false;
    let mut streamed = None;
    for (prefix, fault) in st.faults.iter_mut() {
        if !path.starts_with(prefix.as_str()) {
            continue;
        }
        match fault {
            Fault::Status { status, times } if *times > 0 => {
                *times -= 1;
                return (Response::status(*status), None);
            }
            Fault::TooMany { retry_after, times } if *times > 0 => {
                *times -= 1;
                let mut r = Response::status(429);
                r.headers
                    .push(("Retry-After".to_string(), retry_after.to_string()));
                return (r, None);
            }
            Fault::Stall(d) => stall = Some(*d),
            Fault::StallFirst { stall: d, times } if *times > 0 => {
                *times -= 1;
                stall = Some(*d);
            }
            Fault::StallRanges(d) if headers.contains_key("range") => stall = Some(*d),
            Fault::Truncate { times } if *times > 0 => {
                *times -= 1;
                truncate = true;
            }
            Fault::InvalidJson => invalid_json = true,
            Fault::Body(b) => body_override = Some(b.clone()),
            Fault::RedirectTo(target) => {
                let mut r = Response::status(302);
                r.headers
                    .push(("Location".to_string(), format!("{target}{path}")));
                return (r, None);
            }
            Fault::RequireAuth(expected) if headers.get("authorization") != Some(expected) => {
                return (Response::status(401), None);
            }
            Fault::EndlessBody => streamed = Some(Stream::Zeros(None)),
            Fault::HugeBody(n) => streamed = Some(Stream::Zeros(Some(*n))),
            Fault::Drip(d) => streamed = Some(Stream::Drip(*d)),
            _ => {}
        }
    }
    if invalid_json {
        return (
            Response::with(
                200,
                "application/vnd.pypi.simple.v1+json",
                b"{\"meta\": {\"api-version\": \"1.1\"}, \"name\": ".to_vec(),
            ),
            stall,
        );
    }
    let mut response = serve(path, headers, &st);
    if let Some(body) = body_override {
        response.body = body;
    }
    if let Some(how) = streamed {
        if matches!(how, Stream::Zeros(_)) {
            response = Response::with(200, "application/octet-stream", Vec::new());
            if path.starts_with("/simple/") {
                response.headers = vec![(
                    "Content-Type".to_string(),
                    "application/vnd.pypi.simple.v1+json".to_string(),
                )];
            }
        }
        response.stream = Some(how);
    }
    if truncate && response.body.len() > 10 {
        response.content_length = Some(response.body.len());
        let half = response.body.len() / 2;
        response.body.truncate(half);
    }
    (response, stall)
}

fn serve(path: &str, headers: &HashMap<String, String>, st: &State) -> Response {
    let path = path.split('?').next().unwrap_or(path);
    if let Some(rest) = path.strip_prefix("/simple/") {
        let name = rest.trim_end_matches('/');
        if name.is_empty() || name.contains('/') || name.contains("..") {
            return Response::status(404);
        }
        if !rest.ends_with('/') {
            let mut r = Response::status(302);
            r.headers
                .push(("Location".to_string(), format!("/simple/{name}/")));
            return r;
        }
        let dir = st.root.join("simple").join(name);
        let wants_json = headers
            .get("accept")
            .is_some_and(|a| a.contains("application/vnd.pypi.simple.v1+json"));
        let json_exists = dir.join("index.json").is_file() || dir.join("index.json.gz").is_file();
        let (file, content_type) = if wants_json && json_exists && st.mode == PageMode::Negotiate {
            ("index.json", "application/vnd.pypi.simple.v1+json")
        } else {
            ("index.html", "text/html; charset=utf-8")
        };
        let Ok(body) = stored(&dir.join(file)) else {
            return Response::status(404);
        };
        let etag = format!("\"{}\"", &hex(&Sha256::digest(&body))[..16]);
        if headers.get("if-none-match") == Some(&etag) {
            let mut r = Response::status(304);
            r.headers.push(("ETag".to_string(), etag));
            r.headers.extend(st.page_headers.iter().cloned());
            return r;
        }
        let mut r = Response::with(200, content_type, body);
        r.headers.push(("ETag".to_string(), etag));
        if let Some(age) = st.max_age {
            r.headers.push((
                "Cache-Control".to_string(),
                format!("max-age={age}, public"),
            ));
        }
        r.headers.extend(st.page_headers.iter().cloned());
        return r;
    }
    let Some(file) = path.strip_prefix("/files/") else {
        return Response::status(404);
    };
    // A file name as its link spells it (`torch-2.11.0%2Bcpu-...`), decoded as a server does.
    let file = &*percent_encoding::percent_decode_str(file).decode_utf8_lossy();
    if file.contains('/') || file.contains("..") {
        return Response::status(404);
    }
    if file.ends_with(".metadata") {
        if !st.metadata_files {
            return Response::status(404);
        }
        return match stored(&st.root.join("files").join(file)) {
            Ok(body) => Response::with(200, "application/octet-stream", body),
            Err(_) => Response::status(404),
        };
    }
    let range = headers.get("range").filter(|_| st.ranges).cloned();
    if let Ok(whole) = std::fs::read(st.root.join("wheels").join(file)) {
        return ranged(whole.len() as u64, range.as_deref(), |start, end| {
            Some(whole[start as usize..end as usize].to_vec())
        });
    }
    if let Ok(index) = std::fs::read(st.root.join("sparse").join(format!("{file}.json"))) {
        let index: serde_json::Value = serde_json::from_slice(&index).unwrap();
        let size = index["size"].as_u64().unwrap();
        let mut segments = Vec::new();
        for seg in index["segments"].as_array().unwrap() {
            let offset = seg["offset"].as_u64().unwrap();
            let gz =
                std::fs::read(st.root.join("sparse").join(seg["file"].as_str().unwrap())).unwrap();
            let mut data = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut data)
                .unwrap();
            segments.push((offset, data));
        }
        // Only the recorded bytes exist: a request outside them is a test bug, answered 416.
        return ranged(size, range.as_deref(), |start, end| {
            segments.iter().find_map(|(offset, data)| {
                let from = start.checked_sub(*offset)? as usize;
                let to = (end - offset) as usize;
                data.get(from..to).map(<[u8]>::to_vec)
            })
        });
    }
    Response::status(404)
}

/// The file at `path`, or the decompressed bytes of `path`.gz where only that is stored.
fn stored(path: &Path) -> std::io::Result<Vec<u8>> {
    match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut gz = path.as_os_str().to_owned();
            gz.push(".gz");
            let mut data = Vec::new();
            flate2::read::GzDecoder::new(std::fs::File::open(gz)?).read_to_end(&mut data)?;
            Ok(data)
        }
        other => other,
    }
}

fn ranged(size: u64, range: Option<&str>, read: impl Fn(u64, u64) -> Option<Vec<u8>>) -> Response {
    let Some(spec) = range.and_then(|r| r.strip_prefix("bytes=")) else {
        return match read(0, size) {
            Some(body) => Response::with(200, "application/octet-stream", body),
            None => Response::status(416),
        };
    };
    let (start, end) = match spec.split_once('-') {
        Some(("", n)) => (size.saturating_sub(n.parse().unwrap_or(0)), size),
        Some((s, "")) => (s.parse().unwrap_or(0), size),
        Some((s, e)) => (
            s.parse().unwrap_or(0),
            (e.parse::<u64>().unwrap_or(0) + 1).min(size),
        ),
        None => return Response::status(416),
    };
    match read(start, end) {
        Some(body) => {
            let mut r = Response::with(206, "application/octet-stream", body);
            r.headers.push((
                "Content-Range".to_string(),
                format!("bytes {start}-{}/{size}", end.saturating_sub(1)),
            ));
            r.headers
                .push(("Accept-Ranges".to_string(), "bytes".to_string()));
            r
        }
        None => Response::status(416),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A loopback index of tiny wheels: `tests/it/verify_world.py` builds one wheel per entry of
/// `wheels` (`name`, `version`, `requires`, `files`, `uploaded`) under `root` (`simple/` and
/// `wheels/`), and the index is served from there.
pub fn tiny_wheels(root: &std::path::Path, wheels: &serde_json::Value) -> IndexServer {
    let spec = root.with_extension("json");
    std::fs::write(&spec, wheels.to_string()).unwrap();
    let out = std::process::Command::new(crate::common::venv::python3())
        .arg(crate::common::repo_root().join("tests/it/verify_world.py"))
        .arg(root)
        .arg(&spec)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "verify_world.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    IndexServer::start(root)
}
