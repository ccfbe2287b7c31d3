//! Name patterns of policies: in: a pattern such as `nvidia-*` and a normalized name; out:
//! whether it matches. Used by coupled groups and smoke-test triggers.
//!
//! Shell-glob semantics from `globset` (`*` any run of characters, any number of them; `?` one
//! character; `[...]` a class), so `nvidia-*-cu*` matches `nvidia-cudnn-cu13`.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use globset::GlobMatcher;

/// Why `pattern` is not a valid glob (an unclosed `[`, say); policies are refused with it when
/// they load, so no pattern silently never matches.
pub(crate) fn invalid(pattern: &str) -> Option<String> {
    if !pattern.contains(['*', '?', '[', ']', '{', '}']) {
        return None;
    }
    globset::Glob::new(pattern)
        .err()
        .map(|err| err.kind().to_string())
}

/// Whether a normalized name matches a glob `pattern`. A pattern that is not a valid glob
/// (refused when its policy loads) matches only itself, character for character.
pub(crate) fn glob_matches(pattern: &str, name: &str) -> bool {
    if !pattern.contains(['*', '?', '[']) {
        return pattern == name;
    }
    // Compiled once per pattern: policies ask for each installed dist.
    static COMPILED: LazyLock<Mutex<HashMap<String, Option<GlobMatcher>>>> =
        LazyLock::new(Mutex::default);
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    let matcher = compiled.entry(pattern.to_string()).or_insert_with(|| {
        globset::Glob::new(pattern)
            .ok()
            .map(|glob| glob.compile_matcher())
    });
    match matcher {
        Some(matcher) => matcher.is_match(name),
        None => pattern == name,
    }
}

#[cfg(test)]
mod tests {
    use super::glob_matches;

    #[test]
    fn one_or_more_stars() {
        assert!(glob_matches("nvidia-*", "nvidia-cublas"));
        assert!(glob_matches("torch", "torch"));
        assert!(!glob_matches("torch", "torchvision"));
        assert!(glob_matches("nvidia-*-cu*", "nvidia-cudnn-cu13"));
        assert!(glob_matches("*-cu*", "nvidia-nccl-cu13"));
        assert!(!glob_matches("nvidia-*-cu*", "nvidia-cublas"));
        assert!(glob_matches("jax*", "jaxlib"));
        assert!(glob_matches("*", "anything"));
    }

    #[test]
    fn invalid_patterns_say_why() {
        assert_eq!(super::invalid("nvidia-*-cu*"), None);
        assert_eq!(super::invalid("torch"), None);
        let why = super::invalid("nvidia-[cu").unwrap();
        assert!(why.contains("unclosed character class"), "{why}");
    }
}
