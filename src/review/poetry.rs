//! Poetry's dependency tables in PEP 508 terms.
//!
//! In: one entry of `[tool.poetry.dependencies]` (or a group's), a name and its TOML value (a
//! constraint string, a table with `version` / `extras` / `markers` / `python` / `optional`, or
//! a list of such tables). Out: the requirement strings `pip` would read, or why the entry
//! cannot be written so. Caret and tilde ranges follow Poetry's documented rules
//! (`^1.2.3` is `>=1.2.3,<2.0.0`, `^0.2.3` is `>=0.2.3,<0.3.0`, `~1.2.3` is `>=1.2.3,<1.3.0`).

/// What one entry declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Requirements from the index, one per constraint of a multiple-constraints list.
    Index(Vec<String>),
    /// Not from the index (`path`, `git`, `url`, `file`) or installed only through an extra
    /// (`optional = true`): it names no version the review could judge.
    Elsewhere,
}

/// The entry `name = value` of a Poetry dependency table.
pub(crate) fn entry(name: &str, value: &toml::Value) -> Result<Entry, String> {
    match value {
        toml::Value::String(constraint) => Ok(Entry::Index(vec![format!(
            "{name}{}",
            specifier(constraint)?
        )])),
        toml::Value::Table(table) => Ok(match table_requirement(name, table)? {
            Some(requirement) => Entry::Index(vec![requirement]),
            None => Entry::Elsewhere,
        }),
        toml::Value::Array(list) => {
            let mut out = Vec::new();
            for item in list {
                let toml::Value::Table(table) = item else {
                    return Err("a multiple-constraints entry must be a list of tables".into());
                };
                out.extend(table_requirement(name, table)?);
            }
            Ok(if out.is_empty() {
                Entry::Elsewhere
            } else {
                Entry::Index(out)
            })
        }
        _ => Err("a dependency is a constraint string, a table or a list of tables".into()),
    }
}

/// `{ version = "^1.9", extras = ["email"], python = "^3.8", markers = "..." }`.
fn table_requirement(name: &str, table: &toml::Table) -> Result<Option<String>, String> {
    let elsewhere = ["path", "git", "url", "file"]
        .iter()
        .any(|k| table.contains_key(*k));
    let optional = table.get("optional").and_then(toml::Value::as_bool) == Some(true);
    if elsewhere || optional {
        return Ok(None);
    }
    let text = |key: &str| table.get(key).and_then(toml::Value::as_str);
    let version = specifier(text("version").unwrap_or("*"))?;
    let extras: Vec<&str> = table
        .get("extras")
        .and_then(toml::Value::as_array)
        .map(|list| list.iter().filter_map(toml::Value::as_str).collect())
        .unwrap_or_default();
    let extras = if extras.is_empty() {
        String::new()
    } else {
        format!("[{}]", extras.join(","))
    };
    let mut markers = Vec::new();
    if let Some(python) = text("python") {
        markers.push(python_marker(python)?);
    }
    if let Some(written) = text("markers") {
        markers.push(format!("({written})"));
    }
    let markers = if markers.is_empty() {
        String::new()
    } else {
        format!(" ; {}", markers.join(" and "))
    };
    Ok(Some(format!("{name}{extras}{version}{markers}")))
}

/// `python = "^3.8"` as a marker: `(python_full_version >= '3.8' and python_full_version < '4.0')`.
fn python_marker(constraint: &str) -> Result<String, String> {
    let specifiers = specifier(constraint)?;
    if specifiers.is_empty() {
        return Ok("(python_full_version >= '0')".to_string());
    }
    let clauses: Vec<String> = specifiers
        .split(',')
        .map(|clause| {
            let at = clause
                .find(|c: char| c.is_ascii_digit())
                .unwrap_or(clause.len());
            let (op, version) = clause.split_at(at);
            format!("python_full_version {op} '{version}'")
        })
        .collect();
    Ok(format!("({})", clauses.join(" and ")))
}

/// A Poetry version constraint as PEP 440 specifiers (`""` for `*`): `^`, `~`, wildcards, bare
/// versions (`1.2.3` is `==1.2.3`) and comparisons, comma- or space-separated. `||`
/// alternatives have no PEP 440 form.
pub(crate) fn specifier(constraint: &str) -> Result<String, String> {
    let constraint = constraint.trim();
    if constraint.contains("||") || constraint.contains('|') {
        return Err(format!(
            "`{constraint}`: alternatives (`||`) have no PEP 440 form"
        ));
    }
    let mut out = Vec::new();
    for clause in clauses(constraint) {
        out.extend(one(&clause)?);
    }
    Ok(out.join(","))
}

/// `>= 1.2, < 1.5` and `>=1.2 <1.5` into `[">=1.2", "<1.5"]`.
fn clauses(constraint: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in constraint.split([',', ' ']).filter(|w| !w.is_empty()) {
        match out.last_mut() {
            // An operator written apart from its version (`>= 1.2`).
            Some(last) if last.chars().all(|c| "<>=!~^".contains(c)) => last.push_str(word),
            _ => out.push(word.to_string()),
        }
    }
    out
}

fn one(clause: &str) -> Result<Option<String>, String> {
    if clause == "*" {
        return Ok(None);
    }
    if let Some(version) = clause.strip_prefix('^') {
        let release = release(version, clause)?;
        let first_nonzero = release.iter().position(|n| *n != 0);
        let bump = first_nonzero.unwrap_or(release.len() - 1);
        return Ok(Some(format!(">={version},<{}", upper(&release, bump))));
    }
    if let Some(version) = clause.strip_prefix('~').filter(|v| !v.starts_with('=')) {
        let release = release(version, clause)?;
        let bump = if release.len() == 1 { 0 } else { 1 };
        return Ok(Some(format!(">={version},<{}", upper(&release, bump))));
    }
    if clause.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(Some(format!("=={clause}")));
    }
    Ok(Some(clause.to_string()))
}

/// The release numbers of `version` (`1.2.3b1` -> `[1, 2, 3]`).
fn release(version: &str, clause: &str) -> Result<Vec<u64>, String> {
    let numbers: Vec<u64> = version
        .split('.')
        .map_while(|part| {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect();
    if numbers.is_empty() {
        return Err(format!("`{clause}` is not a valid version constraint"));
    }
    Ok(numbers)
}

/// The release with component `at` raised by one and the rest dropped (`[1, 2, 3]`, 1 ->
/// `1.3.0`): as long as the release, at least two parts.
fn upper(release: &[u64], at: usize) -> String {
    let len = release.len().max(2);
    (0..len)
        .map(|i| match i.cmp(&at) {
            std::cmp::Ordering::Less => release[i].to_string(),
            std::cmp::Ordering::Equal => (release[i] + 1).to_string(),
            std::cmp::Ordering::Greater => "0".to_string(),
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_tilde_wildcards_and_comparisons() {
        for (poetry, pep440) in [
            ("^1.2.3", ">=1.2.3,<2.0.0"),
            ("^1.2", ">=1.2,<2.0"),
            ("^1", ">=1,<2.0"),
            ("^0.2.3", ">=0.2.3,<0.3.0"),
            ("^0.0.3", ">=0.0.3,<0.0.4"),
            ("^0.0", ">=0.0,<0.1"),
            ("^0", ">=0,<1.0"),
            ("^0.79.1", ">=0.79.1,<0.80.0"),
            ("~1.2.3", ">=1.2.3,<1.3.0"),
            ("~1.2", ">=1.2,<1.3"),
            ("~1", ">=1,<2.0"),
            ("~=1.2", "~=1.2"),
            ("1.2.3", "==1.2.3"),
            ("==1.2.3", "==1.2.3"),
            ("1.2.*", "==1.2.*"),
            ("*", ""),
            (">= 1.2, < 1.5", ">=1.2,<1.5"),
            (">=1.2 <1.5", ">=1.2,<1.5"),
            ("^2.0.0b1", ">=2.0.0b1,<3.0.0"),
        ] {
            assert_eq!(specifier(poetry).as_deref(), Ok(pep440), "{poetry}");
        }
        assert!(specifier("^1.0 || ^2.0").is_err());
        assert!(specifier("^x").is_err());
    }

    #[test]
    fn entries() {
        let value = |text: &str| -> toml::Value {
            toml::from_str::<toml::Table>(&format!("x = {text}")).unwrap()["x"].clone()
        };
        assert_eq!(
            entry(
                "pydantic",
                &value(r#"{ version = "^1.9", extras = ["email", "dotenv"] }"#)
            ),
            Ok(Entry::Index(vec![
                "pydantic[email,dotenv]>=1.9,<2.0".into()
            ]))
        );
        assert_eq!(
            entry(
                "numpy",
                &value(
                    r#"[{ version = "^1.24", python = "<3.12" }, { version = "^2", python = ">=3.12" }]"#
                )
            ),
            Ok(Entry::Index(vec![
                "numpy>=1.24,<2.0 ; (python_full_version < '3.12')".into(),
                "numpy>=2,<3.0 ; (python_full_version >= '3.12')".into(),
            ]))
        );
        assert_eq!(
            entry("lib", &value(r#"{ path = "../lib", develop = true }"#)),
            Ok(Entry::Elsewhere)
        );
        assert_eq!(
            entry(
                "gunicorn",
                &value(r#"{ version = "^20", optional = true }"#)
            ),
            Ok(Entry::Elsewhere)
        );
        assert!(entry("x", &value("3")).is_err());
    }
}
