//! Whether a release of a dependent still makes the uses a call-time claim cites: what
//! move-dependents asks of each newer release of scrapy (`scrapy/utils/ossignal.py` line 19 calls
//! `reactor._handleSignals()` in scrapy 2.8.0 to 2.11.0; 2.11.1's files name it nowhere) before it
//! offers one as the release that fixes the break ([`super::super::must_move`]).
//!
//! Read the other way round from the claim, and as conservatively: a release counts as fixed
//! only when its files can be read and none of them may still make the use. A use is looked for
//! as a word in every `.py` line that is not a comment line, in the cited file first (one small
//! read) and then in every `.py` file under the cited file's top-level package:
//! - a name (`_handleSignals`, `ReplicateParallel`): the name as a word, whatever is around it
//!   (a use through `getattr`, a string, another binding all count);
//! - a module that is gone (`openai.error`): the dotted name as a word (`openai.error.Timeout`,
//!   `import openai.error`), or an import statement or dotted use of the module's top-level
//!   package, as the installed files' scan reads them (aliases followed, in functions, under
//!   `if` and in `try:` alike), that imports it or takes it from its parent (`from openai import
//!   error`, `oa.error.Timeout` after `import openai as oa`).
//!
//! Uses moved to another dist (langchain's to `langchain_community`) are that dist's, not
//! followed here: a plan installing it is read as any plan is.

use std::collections::BTreeSet;

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::attribute::names_it;
use crate::inventory::imports::import_statements_run_by;
use crate::plan::oracle::Oracle;
use crate::risk::Citation;

/// Whether `dependent` `version`'s own files may still make one of the `cited` uses (all of
/// `dependent`'s); `None` when that cannot be told (a file list or a package folder that
/// cannot be read, a cited file outside a package folder).
pub(in crate::plan) fn still_uses(
    oracle: &dyn Oracle,
    dependent: &PackageName,
    version: &Version,
    cited: &[&Citation],
) -> Option<bool> {
    // the cited files first: one small read each, which settles most releases that still use it
    for c in cited {
        if let Some(text) = oracle.wheel_text(dependent, version, &c.file)
            && uses(&text, c)
        {
            return Some(true);
        }
    }
    let mut tops: Vec<&str> = Vec::new();
    for c in cited {
        let (top, _) = c.file.split_once('/')?;
        if !tops.contains(&top) {
            tops.push(top);
        }
    }
    for top in tops {
        let sources = oracle.folder_sources(dependent, version, &format!("{top}/"))?;
        // a release that ships no code there: its code moved, not knowingly gone
        if sources.is_empty() {
            return None;
        }
        if (sources.iter()).any(|(_, text)| cited.iter().any(|c| uses(text, c))) {
            return Some(true);
        }
    }
    Some(false)
}

/// Whether `text` may make the use `cited` names (see the module's doc).
fn uses(text: &str, cited: &Citation) -> bool {
    if let Some(name) = &cited.name {
        return names_it(text, name);
    }
    let module = cited.module.as_str();
    if names_dotted(text, module) {
        return true;
    }
    let Some((parent, last)) = module.rsplit_once('.') else {
        return false;
    };
    let top = parent.split('.').next().unwrap_or(parent);
    if !names_it(text, top) {
        return false;
    }
    // what the import statements of its top-level package bind, aliases followed
    let tops: BTreeSet<String> = [top.to_string()].into();
    import_statements_run_by(text, &tops, &[]).iter().any(|s| {
        let used = format!("{}.{}", s.module, s.names.join("."));
        s.module == module
            || s.module.starts_with(&format!("{module}."))
            || (s.module == parent && s.names.iter().any(|n| n == last))
            || names_dotted(&used, module)
    })
}

/// Whether a line of `text` that is not a comment line holds the dotted name `dotted` not
/// preceded by a name character nor followed by one (a `.` after it counts as an end:
/// `openai.error.Timeout` holds `openai.error`).
fn names_dotted(text: &str, dotted: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .any(|line| {
            line.match_indices(dotted).any(|(at, _)| {
                !line[..at].chars().next_back().is_some_and(ident)
                    && !line[at + dotted.len()..].chars().next().is_some_and(ident)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::uses;
    use crate::risk::Citation;

    fn cited(module: &str, name: Option<&str>) -> Citation {
        Citation {
            dist: "x".into(),
            version: "1".into(),
            file: "x/a.py".into(),
            line: 1,
            module: module.into(),
            name: name.map(Into::into),
            attribute: true,
            function: None,
        }
    }

    /// scrapy 2.11.0's `ossignal.py` still calls `reactor._handleSignals()`; 2.11.1's names it
    /// nowhere. A gone module is found dotted, imported from its parent or through an alias;
    /// a comment line is no use.
    #[test]
    fn a_use_is_found_as_a_word_and_a_gone_module_also_by_its_last_part() {
        let attr = cited("twisted.internet.reactor", Some("_handleSignals"));
        assert!(uses("    reactor._handleSignals()\n", &attr));
        assert!(uses("getattr(reactor, '_handleSignals')\n", &attr));
        assert!(!uses("# reactor._handleSignals()\nreactor.run()\n", &attr));
        assert!(!uses("reactor._handleSignalsX()\n", &attr));
        let module = cited("openai.error", None);
        assert!(uses("        openai.error.Timeout,\n", &module));
        assert!(uses("from openai import (\n    error,\n)\n", &module));
        assert!(uses(
            "import openai as oa\n\ndef f():\n    raise oa.error.APIError\n",
            &module
        ));
        assert!(!uses("import openai\nopenai.APIError\n", &module));
        assert!(!uses(
            "import openai\nlogger.error('openai failed')\n",
            &module
        ));
        assert!(uses(
            "def f():\n    import openai\n    if x:\n        openai.error.Timeout\n",
            &module
        ));
        assert!(!uses("error = 1\n", &module));
        assert!(!uses("# openai.error.Timeout\n", &module));
    }
}
