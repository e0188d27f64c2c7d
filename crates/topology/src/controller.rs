//! The disk controller a VM's remote disks attach through (SCSI or NVMe): the topology's
//! `controller` key, else the disk names. It picks a size's per-controller remote figures
//! (`Topology::limits`).

use advisor_model::limits::{Controller, Role};

use crate::error::{ErrorKind, TopologyError};
use crate::spec::{Parsed, Seg};
use crate::topology::{Disk, Topology};

impl Topology {
    /// The controller the remote disks attach through, and how that is known: the
    /// topology's `controller` key, else the disk names when every remote disk's shows it
    /// (`nvme0n2` on an NVMe controller, `sdc` on SCSI). `None` when neither says.
    pub fn controller(&self) -> Option<(Controller, String)> {
        let remote: Vec<&Disk> = self.disks.iter().filter(|d| d.role != Role::Temp).collect();
        if let Some(d) = remote.iter().find(|d| d.controller.is_some()) {
            let c = d.controller?;
            return Some((c, format!("the topology gives controller = \"{c}\" for {}", d.name)));
        }
        let mut seen: Option<Controller> = None;
        for d in &remote {
            let c = controller_of_name(&d.name)?;
            if seen.is_some_and(|s| s != c) {
                return None;
            }
            seen = Some(c);
        }
        let c = seen?;
        let names: Vec<&str> = remote.iter().take(3).map(|d| d.name.as_str()).collect();
        let kind = match c {
            Controller::Nvme => "NVMe namespaces",
            Controller::Scsi => "SCSI disks",
        };
        Some((c, format!("the disks are named as {kind} ({})", names.join(", "))))
    }
}

/// A VM's remote disks attach through one controller type: two disks naming different ones
/// is an error at the second.
pub(crate) fn check_one_controller(p: &Parsed<'_>, t: &Topology) -> Result<(), TopologyError> {
    let named = t.disks.iter().enumerate().filter_map(|(i, d)| d.controller.map(|c| (i, d, c)));
    let mut first: Option<(&Disk, Controller)> = None;
    for (i, d, c) in named {
        match first {
            None => first = Some((d, c)),
            Some((f, fc)) if fc != c => {
                return Err(p.error(
                    &[Seg::Key("disk"), Seg::Index(i), Seg::Key("controller")],
                    ErrorKind::Invalid {
                        message: format!(
                            "disk \"{}\" names controller \"{c}\", disk \"{}\" \"{fc}\"",
                            d.name, f.name
                        ),
                        help: Some(
                            "a VM attaches its remote disks through one controller: give the same controller on every disk (or on none)"
                                .to_owned(),
                        ),
                    },
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// `nvme0n2`, `/dev/nvme0n2`: an NVMe namespace; `sdc`, `/dev/sdc`: a SCSI disk.
fn controller_of_name(name: &str) -> Option<Controller> {
    let n = name.strip_prefix("/dev/").unwrap_or(name);
    if let Some(rest) = n.strip_prefix("nvme")
        && let Some((ctrl, ns)) = rest.split_once('n')
        && !ctrl.is_empty()
        && ctrl.bytes().all(|b| b.is_ascii_digit())
        && !ns.is_empty()
        && ns.bytes().all(|b| b.is_ascii_digit())
    {
        return Some(Controller::Nvme);
    }
    let letters = n.strip_prefix("sd")?;
    (!letters.is_empty() && letters.bytes().all(|b| b.is_ascii_lowercase()))
        .then_some(Controller::Scsi)
}
