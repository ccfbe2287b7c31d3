//! Name patterns of policies: in: a pattern such as `nvidia-*` and a normalized name; out:
//! whether it matches. Used by coupled groups and smoke-test triggers.

/// Whether a normalized name matches a pattern in which one `*` matches any run of characters.
pub(crate) fn glob_matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        Some((prefix, suffix)) => {
            name.len() >= prefix.len() + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(suffix)
        }
        None => pattern == name,
    }
}
