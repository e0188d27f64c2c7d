//! The merged topology written as the contract's TOML, each fact with its source comment,
//! and the list of facts with their sources.

use std::fmt::Write as _;

use super::merge::{Out, Val, quote};

fn line(s: &mut String, key: &str, v: &Option<Val>) {
    if let Some(v) = v {
        let from = v.from.replace('\n', " ");
        if from.starts_with("ASSUMED") || from.starts_with("NOT MAPPED") {
            let _ = writeln!(s, "# {from}");
        } else {
            let _ = writeln!(s, "# from {from}");
        }
        let _ = writeln!(s, "{key} = {}", v.lit);
    }
}

/// Each written fact and its source: (`vm.size`, `disk E:.sku`, ...) -> `file: $.path`.
pub(super) fn sources(out: &Out) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for (k, val) in [("vm.size", &out.size), ("vm.temp_disk", &out.temp_disk)] {
        if let Some(x) = val {
            v.push((k.to_owned(), x.from.clone()));
        }
    }
    for (k, x) in &out.vm_extra {
        v.push((format!("vm.{k}"), x.from.clone()));
    }
    for d in &out.disks {
        let Some(name) = &d.name else { continue };
        let name = toml::from_str::<toml::Table>(&format!("x = {}", name.lit))
            .ok()
            .and_then(|t| t.get("x").and_then(|x| x.as_str()).map(str::to_owned))
            .unwrap_or_default();
        for (k, val) in [
            ("name", &d.name),
            ("lun", &d.lun),
            ("sku", &d.sku),
            ("cache", &d.cache),
            ("role", &d.role),
            ("iops", &d.iops),
            ("mbps", &d.mbps),
            ("bursting", &d.bursting),
            ("write_accelerator", &d.write_accelerator),
        ] {
            if let Some(x) = val {
                v.push((format!("disk {name}.{k}"), x.from.clone()));
            }
        }
    }
    v
}

/// The contract's TOML, a comment above each fact.
pub(super) fn emit(out: &Out) -> String {
    let mut s = String::from(
        "# Topology merged by `advisor topology`: correct what is wrong and pass it again\n\
         # with --topology. Each fact says where it came from.\n",
    );
    for n in &out.notes {
        let _ = writeln!(s, "# NOTE {}: {}", n.subject, n.message);
    }
    if out.size.is_some() || out.temp_disk.is_some() {
        s.push_str("\n[vm]\n");
        line(&mut s, "size", &out.size);
        line(&mut s, "temp_disk", &out.temp_disk);
        for (k, v) in &out.vm_extra {
            line(&mut s, k, &Some(v.clone()));
        }
    }
    for d in &out.disks {
        if d.name.is_none() {
            continue;
        }
        s.push_str("\n[[disk]]\n");
        line(&mut s, "name", &d.name);
        line(&mut s, "lun", &d.lun);
        line(&mut s, "sku", &d.sku);
        line(&mut s, "cache", &d.cache);
        line(&mut s, "role", &d.role);
        line(&mut s, "iops", &d.iops);
        line(&mut s, "mbps", &d.mbps);
        line(&mut s, "bursting", &d.bursting);
        line(&mut s, "write_accelerator", &d.write_accelerator);
    }
    for (file, p) in &out.pools {
        s.push_str("\n[[pool]]\n");
        let _ = writeln!(s, "# from {file}");
        let _ = writeln!(s, "name = {}", quote(&p.name));
        let members: Vec<String> = p.disks.iter().map(|d| quote(d)).collect();
        let _ = writeln!(s, "disks = [{}]", members.join(", "));
        if let Some(c) = p.columns {
            let _ = writeln!(s, "columns = {c}");
        }
        if let Some(i) = p.interleave_kib {
            let _ = writeln!(s, "interleave_kib = {i}");
        }
    }
    s
}
