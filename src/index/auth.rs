//! Credentials and the URLs that carry them.
//!
//! In: index URLs as users write them (`https://user:token@host/simple`), `~/.netrc`
//! (`$NETRC`). Out: a [`SecretUrl`] whose `Display`/`Debug` never shows a secret (`****`),
//! credentials per [`Realm`] (scheme, host, port), and cache keys that carry no credentials.
//!
//! Rules (reliability.md items 13, 14, 33, 34): credentials are sent only to the realm they came
//! with; a redirect to another realm drops them; a redirect from https to http is refused; a
//! redacted URL is for people, never persisted as a usable URL.

use std::fmt;
use std::path::{Path, PathBuf};

use url::Url;

use super::keyring::KeyringProvider;
use super::urls::percent_decode;

/// Query parameters that carry signatures or tokens (presigned S3/GCS/Azure URLs).
const SECRET_QUERY_KEYS: &[&str] = &[
    "x-amz-signature",
    "x-amz-credential",
    "x-amz-security-token",
    "sig",
    "signature",
    "token",
    "access_token",
];

/// The origin credentials belong to: scheme, host and port.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Realm {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Realm {
    /// The realm of a URL (`None` for URLs without a host, e.g. `file:`).
    pub(crate) fn of(url: &Url) -> Option<Realm> {
        Some(Realm {
            scheme: url.scheme().to_string(),
            host: url.host_str()?.to_ascii_lowercase(),
            port: url.port_or_known_default(),
        })
    }
}

/// A username and password (either may be empty: a token is often the username alone).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    /// The user name.
    pub username: String,
    /// The password, if any.
    pub password: Option<String>,
}

impl Credentials {
    /// Mask these credentials in every later log line ([`crate::logging`]).
    pub(crate) fn register_secrets(&self) {
        crate::logging::register_secret(&self.username);
        if let Some(password) = &self.password {
            crate::logging::register_secret(password);
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Credentials(****)")
    }
}

/// A URL that may hold credentials. Showing it (Display/Debug) masks them.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SecretUrl(Url);

impl SecretUrl {
    /// Wrap a URL.
    pub(crate) fn new(url: Url) -> Self {
        SecretUrl(url)
    }

    /// The URL itself, credentials included: only for making requests.
    pub(crate) fn expose(&self) -> &Url {
        &self.0
    }

    /// The credentials in the URL's userinfo, percent-decoded.
    pub(crate) fn credentials(&self) -> Option<Credentials> {
        let username = percent_decode(self.0.username());
        let password = self.0.password().map(percent_decode);
        if username.is_empty() && password.is_none() {
            return None;
        }
        Some(Credentials { username, password })
    }

    /// The URL with userinfo removed (what requests are sent to, with an auth header beside).
    pub(crate) fn without_credentials(&self) -> Url {
        strip_userinfo(&self.0)
    }

    /// A stable string with no credentials and no secret query values, for cache keys.
    pub(crate) fn cache_key(&self) -> String {
        redact(&self.0)
    }
}

impl fmt::Display for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact(&self.0))
    }
}

impl fmt::Debug for SecretUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretUrl({})", redact(&self.0))
    }
}

/// A URL as text with userinfo replaced by `****` and secret query values masked.
pub(crate) fn redact(url: &Url) -> String {
    let mut shown = url.clone();
    if !shown.username().is_empty() || shown.password().is_some() {
        // A username alone is often a token, so it is masked too.
        let _ = shown.set_username("****");
        let _ = shown.set_password(None);
    }
    if shown.query().is_some() {
        let pairs: Vec<(String, String)> = shown
            .query_pairs()
            .map(|(k, v)| {
                let secret = SECRET_QUERY_KEYS.contains(&k.to_ascii_lowercase().as_str());
                (
                    k.into_owned(),
                    if secret {
                        "****".to_string()
                    } else {
                        v.into_owned()
                    },
                )
            })
            .collect();
        shown.query_pairs_mut().clear().extend_pairs(pairs);
    }
    shown.to_string()
}

pub(crate) use crate::logging::redact_text;

/// Whether `url`'s query holds a token or signature ([`SECRET_QUERY_KEYS`]).
pub(crate) fn has_secret_query(url: &Url) -> bool {
    url.query_pairs()
        .any(|(k, _)| SECRET_QUERY_KEYS.contains(&k.to_ascii_lowercase().as_str()))
}

/// `url` without userinfo and without its secret query pairs (`?token=`): what may be written
/// into a command, a plan file or a script (they read the secret at run time instead).
pub(crate) fn without_secrets(url: &Url) -> Url {
    let mut url = strip_userinfo(url);
    if has_secret_query(&url) {
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(k, _)| !SECRET_QUERY_KEYS.contains(&k.to_ascii_lowercase().as_str()))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    url
}

/// Text given as a URL, shown without its secrets whether it parses or not: a parsed URL as
/// [`redact`] shows it; otherwise everything before the last `@` of the authority-ish part
/// (`http://alice:pa/ss@[bad` has a `/` in its password) is `****`, and so is any query.
pub(crate) fn redact_str(text: &str) -> String {
    if let Ok(url) = Url::parse(text) {
        return redact(&url);
    }
    let (scheme, rest) = match text.find("://") {
        Some(at) => text.split_at(at + 3),
        None => ("", text),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((before, _)) => (before, "?****"),
        None => (rest, ""),
    };
    let rest = match rest.rfind('@') {
        Some(at) => format!("****{}", &rest[at..]),
        None => rest.to_string(),
    };
    format!("{scheme}{rest}{query}")
}

/// The URL with its userinfo (user name and password) removed.
pub(crate) fn strip_userinfo(url: &Url) -> Url {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url
}

/// Credentials from a netrc file, by machine.
#[derive(Debug, Clone, Default)]
pub struct Netrc {
    machines: Vec<(String, Credentials)>,
    default: Option<Credentials>,
    /// The file read (for "auth sources tried" messages).
    pub path: Option<PathBuf>,
    /// What could not be read in it (shown with the file in those messages).
    pub problem: Option<String>,
}

impl Netrc {
    /// Read `$NETRC`, else `~/.netrc`. A missing file gives an empty netrc; an unreadable one
    /// too (credentials are optional).
    pub(crate) fn load(home: Option<&Path>, netrc_env: Option<&Path>) -> Netrc {
        let path = match (netrc_env, home) {
            (Some(p), _) => p.to_path_buf(),
            (None, Some(home)) => home.join(".netrc"),
            (None, None) => return Netrc::default(),
        };
        match crate::bounded::read_to_string(&path, crate::bounded::USER_FILE_LIMIT) {
            Ok(text) => {
                let mut netrc = Netrc::parse(&text);
                netrc.path = Some(path);
                let all = netrc.machines.iter().map(|(_, c)| c);
                all.chain(&netrc.default)
                    .for_each(Credentials::register_secrets);
                netrc
            }
            Err(_) => Netrc::default(),
        }
    }

    /// Parse netrc text (`machine`, `login`, `password`, `default`; `macdef` blocks skipped).
    /// Tokens are split as a shell splits words (the `shlex` crate), as Python's netrc module
    /// does: `password "pa ss"` is `pa ss`, `\"` a quote. A line that cannot be split (an
    /// unterminated quote) is skipped and kept in [`Netrc::problem`].
    pub(crate) fn parse(text: &str) -> Netrc {
        let mut netrc = Netrc::default();
        let mut tokens = Vec::new();
        let mut lines = text.lines().zip(1..);
        while let Some((line, number)) = lines.next() {
            let line = line.trim();
            if line.starts_with("macdef") {
                // A macro runs to the next blank line.
                for (l, _) in lines.by_ref() {
                    if l.trim().is_empty() {
                        break;
                    }
                }
                continue;
            }
            let Some(words) = shlex::split(line) else {
                netrc.problem.get_or_insert(format!(
                    "line {number} has an unterminated quote; that line was not read"
                ));
                continue;
            };
            // A word starting with `#` comments out the rest of its line.
            tokens.extend(words.into_iter().take_while(|w| !w.starts_with('#')));
        }
        let mut current: Option<(Option<String>, Credentials)> = None;
        let flush = |current: &mut Option<(Option<String>, Credentials)>, netrc: &mut Netrc| {
            if let Some((machine, creds)) = current.take() {
                match machine {
                    Some(m) => netrc.machines.push((m.to_ascii_lowercase(), creds)),
                    None => netrc.default = Some(creds),
                }
            }
        };
        let empty = || Credentials {
            username: String::new(),
            password: None,
        };
        let mut iter = tokens.into_iter();
        while let Some(token) = iter.next() {
            match token.as_str() {
                "machine" => {
                    flush(&mut current, &mut netrc);
                    current = iter.next().map(|m| (Some(m), empty()));
                }
                "default" => {
                    flush(&mut current, &mut netrc);
                    current = Some((None, empty()));
                }
                "login" => {
                    if let (Some((_, c)), Some(v)) = (current.as_mut(), iter.next()) {
                        c.username = v;
                    }
                }
                "password" => {
                    if let (Some((_, c)), Some(v)) = (current.as_mut(), iter.next()) {
                        c.password = Some(v);
                    }
                }
                "account" => {
                    iter.next();
                }
                _ => {}
            }
        }
        flush(&mut current, &mut netrc);
        netrc
    }

    /// The credentials for a host (exact machine match first, then `default`).
    pub(crate) fn get(&self, host: &str) -> Option<&Credentials> {
        let host = host.to_ascii_lowercase();
        self.machines
            .iter()
            .find(|(m, _)| *m == host)
            .map(|(_, c)| c)
            .or(self.default.as_ref())
    }
}

/// Which credentials go with which realm: one entry per configured index.
#[derive(Debug, Clone, Default)]
pub(crate) struct AuthStore {
    entries: Vec<(Realm, Credentials)>,
    sources: Vec<String>,
}

impl AuthStore {
    /// Credentials for the given index URLs: from their userinfo (a password in it), else from
    /// netrc by host, else (with `--keyring-provider subprocess`) from the `keyring` command.
    pub(crate) fn new(indexes: &[SecretUrl], netrc: &Netrc, keyring: KeyringProvider) -> AuthStore {
        let mut store = AuthStore::default();
        let mut saw_url = false;
        let mut asked_keyring = false;
        for index in indexes {
            let Some(realm) = Realm::of(index.expose()) else {
                continue;
            };
            let in_url = index.credentials();
            let use_keyring = keyring == KeyringProvider::Subprocess
                && in_url.as_ref().is_none_or(|c| c.password.is_none());
            let creds = if use_keyring {
                // A user name alone in the URL is what keyring is asked about (pip, uv); when
                // keyring knows nothing, it is still sent (it may be a token).
                let user = in_url.as_ref().map(|c| c.username.as_str());
                netrc.get(&realm.host).cloned().or_else(|| {
                    asked_keyring = true;
                    super::keyring::fetch(&index.without_credentials(), user)
                        .map(|(username, password)| Credentials {
                            username,
                            password: Some(password),
                        })
                        .or_else(|| in_url.clone())
                })
            } else {
                match in_url {
                    Some(c) => {
                        saw_url = true;
                        Some(c)
                    }
                    None => netrc.get(&realm.host).cloned(),
                }
            };
            if let Some(creds) = creds
                && !store.entries.iter().any(|(r, _)| *r == realm)
            {
                creds.register_secrets();
                store.entries.push((realm, creds));
            }
        }
        if saw_url {
            store
                .sources
                .push("credentials in the index URL".to_string());
        }
        match &netrc.path {
            Some(p) => store.sources.push(match &netrc.problem {
                Some(problem) => format!("netrc file {} ({problem})", p.display()),
                None => format!("netrc file {}", p.display()),
            }),
            None => store
                .sources
                .push("~/.netrc (absent or unreadable)".to_string()),
        }
        store.sources.push(match (keyring, asked_keyring) {
            (KeyringProvider::Disabled, _) => {
                "no keyring (--keyring-provider subprocess asks the `keyring` command)".to_string()
            }
            (KeyringProvider::Subprocess, true) => "the `keyring` command".to_string(),
            (KeyringProvider::Subprocess, false) => {
                "the `keyring` command (not asked: credentials were found before it)".to_string()
            }
        });
        store
    }

    /// The credentials for a request URL: only when its realm is exactly one configured.
    pub(crate) fn for_url(&self, url: &Url) -> Option<&Credentials> {
        let realm = Realm::of(url)?;
        self.entries
            .iter()
            .find(|(r, _)| *r == realm)
            .map(|(_, c)| c)
    }

    /// Every secret held, for scrubbing library error messages.
    pub(crate) fn secrets(&self) -> Vec<&str> {
        self.entries
            .iter()
            .flat_map(|(_, c)| [Some(c.username.as_str()), c.password.as_deref()])
            .flatten()
            .filter(|s| s.len() >= 4)
            .collect()
    }

    /// Where credentials were looked for, for 401/403 messages.
    pub(crate) fn sources(&self) -> String {
        self.sources.join(", ")
    }
}

/// Why a redirect is not followed.
pub(crate) fn check_redirect(from: &Url, to: &Url) -> Result<(), &'static str> {
    if from.scheme() == "https" && to.scheme() == "http" {
        return Err("https to http is a downgrade");
    }
    if !matches!(to.scheme(), "http" | "https") {
        return Err("only http and https redirects are followed");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_masks_userinfo_and_signed_queries() {
        let url = SecretUrl::new(
            Url::parse("https://alice:s3cr3t@example.com/simple/?X-Amz-Signature=abc&page=2")
                .unwrap(),
        );
        let shown = url.to_string();
        assert_eq!(
            shown,
            "https://****@example.com/simple/?X-Amz-Signature=****&page=2"
        );
        assert!(!format!("{url:?}").contains("s3cr3t"));
        let token_only = SecretUrl::new(Url::parse("https://tok3n@example.com/").unwrap());
        assert_eq!(token_only.to_string(), "https://****@example.com/");
        assert_eq!(
            url.credentials().unwrap().password.as_deref(),
            Some("s3cr3t")
        );
        assert_eq!(
            url.without_credentials().as_str(),
            "https://example.com/simple/?X-Amz-Signature=abc&page=2"
        );
    }

    #[test]
    fn percent_encoded_passwords_decode() {
        let url = SecretUrl::new(Url::parse("https://u:p%40ss%2Bw@h.example/").unwrap());
        assert_eq!(
            url.credentials().unwrap().password.as_deref(),
            Some("p@ss+w")
        );
    }

    #[test]
    fn netrc_by_machine_then_default() {
        let netrc = Netrc::parse(
            "# comment\nmachine Pkgs.Example.com login bob password pw1\n\
             macdef init\ncd /\n\ndefault login anon password pw2\n",
        );
        assert_eq!(netrc.get("pkgs.example.com").unwrap().username, "bob");
        assert_eq!(netrc.get("other").unwrap().password.as_deref(), Some("pw2"));
    }

    /// Quoted tokens are whole, as in Python's netrc: `"pa ss"` is one password.
    #[test]
    fn netrc_quoted_tokens() {
        let netrc = Netrc::parse(
            "machine a.example login alice password \"pa ss\" # comment\n\
             machine b.example login 'b o b' password p\\\"q\n\
             machine c.example login carol password \"open\n",
        );
        let a = netrc.get("a.example").unwrap();
        assert_eq!(
            (a.username.as_str(), a.password.as_deref()),
            ("alice", Some("pa ss"))
        );
        let b = netrc.get("b.example").unwrap();
        assert_eq!(
            (b.username.as_str(), b.password.as_deref()),
            ("b o b", Some("p\"q"))
        );
        assert!(netrc.get("c.example").is_none());
        assert_eq!(
            netrc.problem.as_deref(),
            Some("line 3 has an unterminated quote; that line was not read")
        );
    }

    #[test]
    fn credentials_stay_in_their_realm() {
        let index = SecretUrl::new(Url::parse("https://u:pw@pkgs.example.com/simple/").unwrap());
        let store = AuthStore::new(&[index], &Netrc::default(), KeyringProvider::Disabled);
        let same = Url::parse("https://pkgs.example.com/files/x.whl").unwrap();
        let other_port = Url::parse("https://pkgs.example.com:8443/files/x.whl").unwrap();
        let other_scheme = Url::parse("http://pkgs.example.com/files/x.whl").unwrap();
        let other_host = Url::parse("https://cdn.example.com/files/x.whl").unwrap();
        assert!(store.for_url(&same).is_some());
        assert!(store.for_url(&other_port).is_none());
        assert!(store.for_url(&other_scheme).is_none());
        assert!(store.for_url(&other_host).is_none());
    }

    #[test]
    fn downgrades_are_refused() {
        let https = Url::parse("https://a.example/").unwrap();
        let http = Url::parse("http://a.example/").unwrap();
        assert!(check_redirect(&https, &http).is_err());
        assert!(check_redirect(&http, &https).is_ok());
    }
}
