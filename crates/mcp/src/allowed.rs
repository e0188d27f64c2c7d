//! The directories `advisor mcp` may read under (`--allow DIR`), and the check of every
//! path a call names.

use std::path::{Component, Path, PathBuf};

/// The allowed directories, resolved once at start (symbolic links followed, made
/// absolute).
#[derive(Debug, Clone)]
pub struct Allowed {
    roots: Vec<PathBuf>,
    /// The directory relative paths are resolved against (the server's working
    /// directory).
    base: PathBuf,
}

impl Allowed {
    /// `dirs` resolved against `base`; each must be a directory.
    pub fn new(dirs: &[PathBuf], base: &Path) -> Result<Self, String> {
        let base =
            resolve(base).map_err(|e| format!("the working directory {}: {e}", base.display()))?;
        let mut roots = Vec::with_capacity(dirs.len());
        for d in dirs {
            let root =
                resolve(&base.join(d)).map_err(|e| format!("--allow {}: {e}", d.display()))?;
            if !root.is_dir() {
                return Err(format!("--allow {}: not a directory", d.display()));
            }
            roots.push(root);
        }
        Ok(Allowed { roots, base })
    }

    /// The allowed directories, resolved.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The path a call named, resolved, when it is inside an allowed directory; otherwise
    /// why not, naming the path as given. A path that does not resolve (it does not exist)
    /// is judged by its spelling with `.` and `..` taken away, so that a call cannot learn
    /// which files exist outside the allowed directories.
    pub fn check(&self, given: &str) -> Result<PathBuf, String> {
        if given.is_empty() {
            return Err("an empty path".to_owned());
        }
        let joined = self.base.join(given);
        match resolve(&joined) {
            Ok(real) if self.inside(&real) => Ok(real),
            Ok(real) if real != lexical(&joined) => Err(format!(
                "{given}: outside the directories advisor mcp may read ({}): it resolves to {}",
                self.listed(),
                real.display()
            )),
            Ok(_) => Err(self.outside(given)),
            Err(e) if self.inside(&lexical(&joined)) => Err(format!("{given}: {e}")),
            Err(_) => Err(self.outside(given)),
        }
    }

    fn inside(&self, p: &Path) -> bool {
        self.roots.iter().any(|r| p.starts_with(r))
    }

    fn listed(&self) -> String {
        self.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    fn outside(&self, given: &str) -> String {
        format!(
            "{given}: outside the directories advisor mcp may read ({}); the operator allows \
             more with --allow DIR",
            self.listed()
        )
    }
}

/// `p` with every link and `..` resolved by the file system. On Windows a drive path comes
/// back as `C:\...`, not as the verbatim `\\?\C:\...` the system call gives, so that reports
/// name files as people write them (a UNC path stays verbatim).
fn resolve(p: &Path) -> std::io::Result<PathBuf> {
    let real = p.canonicalize()?;
    #[cfg(windows)]
    {
        if let Some(rest) = real.to_str().and_then(|s| s.strip_prefix(r"\\?\")) {
            let b = rest.as_bytes();
            if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\' {
                return Ok(PathBuf::from(rest));
            }
        }
    }
    Ok(real)
}

/// `p` with `.` dropped and each `..` taking away the component before it, without asking
/// the file system.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    struct Tree(PathBuf);

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// `root/allowed/in.csv`, `root/outside/secret.csv`, and in `allowed` a link to each.
    fn tree(name: &str) -> Tree {
        let root = std::env::temp_dir().join(format!("advisor-mcp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("allowed/sub")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("allowed/in.csv"), "x").unwrap();
        std::fs::write(root.join("outside/secret.csv"), "x").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                root.join("outside/secret.csv"),
                root.join("allowed/link.csv"),
            )
            .unwrap();
            std::os::unix::fs::symlink(root.join("allowed/in.csv"), root.join("allowed/inner.csv"))
                .unwrap();
            std::os::unix::fs::symlink(root.join("outside"), root.join("allowed/door")).unwrap();
        }
        Tree(root)
    }

    #[test]
    fn paths_are_judged_after_resolution() {
        let t = tree("resolve");
        let a = Allowed::new(&[PathBuf::from("allowed")], &t.0).unwrap();
        let real_in = t.0.join("allowed/in.csv").canonicalize().unwrap();
        assert_eq!(a.check("allowed/in.csv").unwrap(), real_in);
        assert_eq!(a.check("allowed/sub/../in.csv").unwrap(), real_in);
        assert_eq!(a.check(real_in.to_str().unwrap()).unwrap(), real_in);

        let e = a.check("allowed/../outside/secret.csv").unwrap_err();
        assert!(e.starts_with("allowed/../outside/secret.csv: outside the directories"), "{e}");
        let e = a.check("outside/secret.csv").unwrap_err();
        assert!(e.contains("--allow DIR"), "{e}");
        // A missing file outside says the same as an existing one: nothing is learnt.
        let missing = a.check("outside/nothing.csv").unwrap_err();
        assert!(missing.starts_with("outside/nothing.csv: outside the directories"), "{missing}");
        // A missing file inside says why it cannot be read.
        let e = a.check("allowed/nothing.csv").unwrap_err();
        assert!(e.starts_with("allowed/nothing.csv: ") && !e.contains("outside"), "{e}");
        assert!(a.check("").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_an_allowed_directory_are_refused() {
        let t = tree("links");
        let a = Allowed::new(&[PathBuf::from("allowed")], &t.0).unwrap();
        let e = a.check("allowed/link.csv").unwrap_err();
        assert!(e.contains("outside the directories") && e.contains("resolves to"), "{e}");
        let e = a.check("allowed/door/secret.csv").unwrap_err();
        assert!(e.contains("outside the directories"), "{e}");
        // A link that stays inside is fine: what is read is its target.
        let real_in = t.0.join("allowed/in.csv").canonicalize().unwrap();
        assert_eq!(a.check("allowed/inner.csv").unwrap(), real_in);
        // An allowed directory given through a link is the link's target.
        let b = Allowed::new(&[PathBuf::from("allowed/door")], &t.0).unwrap();
        assert_eq!(b.roots(), [t.0.join("outside").canonicalize().unwrap()]);
    }

    #[test]
    fn an_allowed_directory_must_exist_and_be_one() {
        let t = tree("roots");
        assert!(Allowed::new(&[PathBuf::from("nowhere")], &t.0).unwrap_err().contains("nowhere"));
        let e = Allowed::new(&[PathBuf::from("allowed/in.csv")], &t.0).unwrap_err();
        assert!(e.contains("not a directory"), "{e}");
    }
}
