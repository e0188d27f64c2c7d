//! The ruleset: the shipped rules embedded from the repository's `rules/` folder, rules
//! from `--rules DIR` folders (adding, or replacing a shipped rule with the same id), and
//! `--set RULE-ID.PARAM=VALUE` overrides.

use std::fmt;
use std::path::{Path, PathBuf};

use rust_embed::RustEmbed;

use crate::ast::ParamValue;
use crate::check::{CheckedRule, Constant, param_value};
use crate::diag::{Diagnostic, Error, suggest};
use crate::types::Dim;

#[derive(RustEmbed)]
#[folder = "../../rules/"]
#[include = "*.rule"]
struct Shipped;

/// A rule file's name (as shown to the user) and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleFile {
    pub path: String,
    pub text: String,
}

/// Where a rule came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Shipped,
    /// A `--rules` folder.
    Dir(PathBuf),
}

/// The shipped rule files, sorted by path (`rules/vm/vm-cached-iops-cap.rule`).
pub fn shipped_files() -> Vec<RuleFile> {
    let mut names: Vec<String> = Shipped::iter().map(|n| n.into_owned()).collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let f = Shipped::get(&n)?;
            let text = String::from_utf8_lossy(&f.data).into_owned();
            Some(RuleFile { path: format!("rules/{n}"), text })
        })
        .collect()
}

/// Every `*.rule` file under `dir` (recursively), sorted by path.
pub fn dir_files(dir: &Path) -> Result<Vec<RuleFile>, Box<Diagnostic>> {
    let io = |p: &Path, e: std::io::Error| {
        let shown = p.display().to_string();
        Diagnostic::new(
            &shown,
            "",
            Error::Io { path: shown.clone(), message: e.to_string() }.nowhere(),
        )
    };
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| io(&d, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(&d, e))?;
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rule") {
                found.push(p);
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).map_err(|e| io(&p, e))?;
            let text = String::from_utf8(bytes).map_err(|_| {
                let shown = p.display().to_string();
                Box::new(Diagnostic::new(
                    &shown,
                    "",
                    Error::Io { path: shown.clone(), message: "not UTF-8 text".into() }.nowhere(),
                ))
            })?;
            Ok(RuleFile { path: p.display().to_string(), text })
        })
        .collect()
}

/// Parses and checks one rule file.
pub fn compile(path: &str, text: &str) -> Result<CheckedRule, Vec<Diagnostic>> {
    let place = |errs: Vec<crate::diag::ErrorAt>| {
        errs.into_iter().map(|e| Diagnostic::new(path, text, e)).collect::<Vec<_>>()
    };
    let file = crate::parser::parse(text).map_err(place)?;
    crate::check::check(&file, text, path).map_err(place)
}

/// Diagnostics from loading rules; the rules that passed are kept.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub diagnostics: Vec<Diagnostic>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// The rules in force, by id.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    rules: Vec<(CheckedRule, Origin)>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// The shipped ruleset. On error the registry still holds the rules that checked.
    pub fn shipped() -> (Registry, Result<usize, LoadError>) {
        let mut r = Registry::new();
        let res = r.add_files(shipped_files(), &Origin::Shipped);
        (r, res)
    }

    /// Adds every rule of a `--rules` folder; one with a shipped rule's id replaces it.
    /// Two user rules with one id are an error naming both files.
    pub fn load_dir(&mut self, dir: &Path) -> Result<usize, LoadError> {
        let files = dir_files(dir).map_err(|d| LoadError { diagnostics: vec![*d] })?;
        self.add_files(files, &Origin::Dir(dir.to_path_buf()))
    }

    /// Adds rule files from one origin.
    pub fn add_files(&mut self, files: Vec<RuleFile>, origin: &Origin) -> Result<usize, LoadError> {
        let mut diagnostics = Vec::new();
        let mut added = 0;
        // Ids this call added: a second file with one of them is a duplicate.
        let mut mine: Vec<String> = Vec::new();
        // Each file parsed and checked on whichever core is free (the shipped ruleset
        // is checked before every analysis); the results are taken in file order.
        let compiled = advisor_model::par::map_indexed(files.len(), 8, |i| {
            compile(&files[i].path, &files[i].text)
        });
        for (f, compiled) in files.iter().zip(compiled) {
            let rule = match compiled {
                Ok(r) => r,
                Err(d) => {
                    diagnostics.extend(d);
                    continue;
                }
            };
            let existing = self.rules.iter().position(|(r, _)| r.id == rule.id);
            match existing {
                Some(i) if mine.contains(&rule.id) || self.rules[i].1 != Origin::Shipped => {
                    let first = self.rules[i].0.file.clone();
                    let span = rule.ast.rule.header.id.span;
                    let e = Error::DuplicateRuleId {
                        id: rule.id.clone(),
                        first,
                        second: f.path.clone(),
                    };
                    diagnostics.push(Diagnostic::new(&f.path, &f.text, e.at(span)));
                }
                Some(i) => {
                    mine.push(rule.id.clone());
                    self.rules[i] = (rule, origin.clone());
                    added += 1;
                }
                None => {
                    mine.push(rule.id.clone());
                    self.rules.push((rule, origin.clone()));
                    added += 1;
                }
            }
        }
        self.rules.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        // `explains` names rules in force: a typo would silently split a story.
        let ids: Vec<&str> = self.rules.iter().map(|(r, _)| r.id.as_str()).collect();
        for (r, _) in self.rules.iter().filter(|(r, _)| mine.contains(&r.id)) {
            for (name, ident) in r.explains.iter().zip(&r.ast.rule.explains) {
                if !ids.contains(&name.as_str()) {
                    let suggestion = suggest(name, ids.iter().copied());
                    let e = Error::UnknownRule { id: name.clone(), suggestion };
                    diagnostics.push(Diagnostic::new(&r.file, &r.source, e.at(ident.span)));
                }
            }
        }
        if diagnostics.is_empty() { Ok(added) } else { Err(LoadError { diagnostics }) }
    }

    /// The rules, sorted by id.
    pub fn rules(&self) -> impl Iterator<Item = &CheckedRule> {
        self.rules.iter().map(|(r, _)| r)
    }

    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn get(&self, id: &str) -> Option<&CheckedRule> {
        self.rules.iter().find(|(r, _)| r.id == id).map(|(r, _)| r)
    }

    pub fn origin(&self, id: &str) -> Option<&Origin> {
        self.rules.iter().find(|(r, _)| r.id == id).map(|(_, o)| o)
    }

    /// The closest id to a mistyped one.
    pub fn suggest_id(&self, id: &str) -> Option<String> {
        suggest(id, self.rules.iter().map(|(r, _)| r.id.as_str()))
    }

    /// The error for an id not in the registry.
    pub fn unknown_rule(&self, id: &str) -> Diagnostic {
        let e = Error::UnknownRule { id: id.to_owned(), suggestion: self.suggest_id(id) };
        Diagnostic::new("", "", e.nowhere())
    }

    /// Applies `--set RULE-ID.PARAM=VALUE`.
    pub fn set(&mut self, text: &str) -> Result<(), Box<Diagnostic>> {
        let s = parse_set(text)?;
        let shown = format!("--set {text}");
        let fail = |e: Error| Box::new(Diagnostic::new(&shown, "", e.nowhere()));
        let Some(i) = self.rules.iter().position(|(r, _)| r.id == s.rule) else {
            return Err(fail(Error::UnknownRule {
                suggestion: self.suggest_id(&s.rule),
                id: s.rule,
            }));
        };
        let rule = &mut self.rules[i].0;
        let Some(p) = rule.params.iter_mut().find(|p| p.name == s.param) else {
            let names: Vec<&str> = rule.params.iter().map(|p| p.name.as_str()).collect();
            let known = if names.is_empty() { "none".to_owned() } else { names.join(", ") };
            return Err(fail(Error::UnknownParam {
                suggestion: suggest(&s.param, names.iter().copied()),
                rule: s.rule,
                param: s.param,
                known,
            }));
        };
        let (dim, value) = param_value(&s.value);
        let plain_above_one = dim == Dim::Number && matches!(value, Constant::Number(v) if v > 1.0);
        let fits = dim == p.dim
            || (dim == Dim::Number
                && p.dim.is_dimensionless()
                && !(p.dim == Dim::Ratio && plain_above_one));
        if !fits {
            let found = if p.dim == Dim::Ratio && plain_above_one {
                format!(
                    "a plain number above 1 ({}%)",
                    crate::print::number_text(match value {
                        Constant::Number(v) => v * 100.0,
                        Constant::Bool(_) => 0.0,
                    })
                )
            } else {
                dim.describe()
            };
            let expected = match p.dim.literal_unit() {
                Some(u) if p.dim == Dim::Ratio => format!("{} (like `90{u}`)", p.dim.describe()),
                Some(u) => format!("{} (like `{} {u}`)", p.dim.describe(), "10"),
                None => p.dim.describe(),
            };
            return Err(fail(Error::SetDimension {
                rule: s.rule,
                param: s.param,
                value: s.value_text,
                expected,
                found,
            }));
        }
        p.value = value;
        p.value_text = crate::print::param_value(&s.value);
        Ok(())
    }
}

/// A parsed `--set RULE-ID.PARAM=VALUE`.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub rule: String,
    pub param: String,
    pub value: ParamValue,
    pub value_text: String,
}

/// Splits and parses `RULE-ID.PARAM=VALUE` (the value as a parameter default is written).
pub fn parse_set(text: &str) -> Result<Setting, Box<Diagnostic>> {
    let shown = format!("--set {text}");
    let bad =
        || Box::new(Diagnostic::new(&shown, "", Error::BadSet { text: text.to_owned() }.nowhere()));
    let (key, value) = text.split_once('=').ok_or_else(bad)?;
    let (rule, param) = key.trim().rsplit_once('.').ok_or_else(bad)?;
    if rule.is_empty() || param.is_empty() || value.trim().is_empty() {
        return Err(bad());
    }
    let v = crate::parser::parse_param_value(value)
        .map_err(|e| Box::new(Diagnostic::new(&shown, value, e)))?;
    Ok(Setting {
        rule: rule.to_owned(),
        param: param.to_owned(),
        value: v,
        value_text: value.trim().to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_rule_ids_are_unique() {
        let (reg, res) = Registry::shipped();
        if let Err(e) = &res {
            let dups: Vec<_> = e
                .diagnostics
                .iter()
                .filter(|d| matches!(d.error, Error::DuplicateRuleId { .. }))
                .collect();
            assert!(
                dups.is_empty(),
                "duplicate ids:\n{}",
                LoadError { diagnostics: dups.into_iter().cloned().collect() }
            );
        }
        let mut ids: Vec<&str> = reg.rules().map(|r| r.id.as_str()).collect();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n);
        // Every shipped file is named after its id, so unique file stems mean unique ids.
        let mut stems: Vec<String> = shipped_files()
            .iter()
            .filter_map(|f| {
                Path::new(&f.path).file_stem().map(|s| s.to_string_lossy().into_owned())
            })
            .collect();
        let m = stems.len();
        stems.sort();
        stems.dedup();
        assert_eq!(stems.len(), m, "two shipped files share a name");
    }
}
