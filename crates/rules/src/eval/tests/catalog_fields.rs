//! The figures newer size pages publish: per controller, Premium SSD v2 / Ultra, the temp
//! disk's own and the local NVMe disks'; each known, and missing with its reason.

use advisor_model::limits::{Controller, DiskKind, VmUncached};

use super::*;

/// A D8s_v6-like VM: Premium SSD 12,800 IOPS / 424 MB/s, Premium SSD v2 and Ultra
/// 16,667 / 496, a temp disk of its own figures.
fn v6() -> Inputs {
    let mut c = Inputs::with_vm();
    if let Some(vm) = c.facts.vm.as_mut() {
        let l = &mut vm.limits;
        l.size = "Standard_D8ds_v6".to_owned();
        (l.uncached_iops, l.uncached_mbps) = (Some(12800.0), Some(424.0));
        (l.uncached_v2_iops, l.uncached_v2_mbps) = (Some(16667.0), Some(496.0));
        (l.uncached_v2_burst_iops, l.uncached_v2_burst_mbps) = (Some(52083.0), Some(1463.0));
        (l.temp_iops, l.temp_mbps) = (Some(150000.0), Some(720.0));
        (l.temp_write_iops, l.temp_write_mbps) = (Some(60000.0), Some(360.0));
        l.controller = Some(Controller::Nvme);
        l.uncached_basis = "its NVMe-controller figures".to_owned();
        l.status = "current".to_owned();
    }
    c
}

#[test]
fn vm_fields_of_the_newer_pages() {
    let c = v6();
    let r = rule(
        "vm",
        "when vm.uncached_v2_iops > vm.uncached_iops and vm.temp_mbps > vm.temp_write_mbps and vm.controller == \"nvme\" and vm.status == \"current\"",
        "{vm.uncached_v2_iops:.0} {vm.uncached_v2_mbps:.0} {vm.uncached_v2_burst_iops:.0} {vm.uncached_v2_burst_mbps:.0} {vm.temp_iops:.0} {vm.temp_mbps:.0} {vm.temp_write_iops:.0} {vm.temp_write_mbps:.0}; {vm.uncached_basis}",
    );
    assert_eq!(
        only(&evaluate_rule(&r, &c.facts, &c.series)).evidence,
        "16667 496 52083 1463 150000 720 60000 360; its NVMe-controller figures"
    );
}

#[test]
fn vm_fields_missing_say_why() {
    // DS13_v2 publishes none of them.
    let c = Inputs::with_vm();
    let reason = |body: &str| {
        let o = evaluate_rule(&rule("vm", body, "x"), &c.facts, &c.series);
        assert!(o.findings.is_empty(), "{o:?}");
        o.not_evaluated[0].reason.clone()
    };
    assert!(
        reason("when vm.uncached_v2_iops > 0 iops")
            .contains("no Premium SSD v2 / Ultra IOPS limit of its own"),
        "{}",
        reason("when vm.uncached_v2_iops > 0 iops")
    );
    assert!(reason("when vm.temp_mbps > 0 MB/s").contains("share the cached limit"));
    assert!(reason("when vm.local_nvme_iops > 0 iops").contains("no local NVMe data disks"));
    assert!(reason("when vm.controller == \"nvme\"").contains("controller = \"scsi\" or \"nvme\""));
}

#[test]
fn disk_fields_give_the_vm_figure_for_the_disks_kind() {
    let (mut c, _) = one_disk();
    let d = &mut c.facts.disks[0].limits;
    d.kind = Some(DiskKind::PremiumSsdV2);
    d.vm_uncached = Some(VmUncached {
        iops: Some(16667.0),
        mbps: Some(496.0),
        burst_iops: Some(52083.0),
        burst_mbps: Some(1463.0),
        basis: "Standard_D8s_v6's Premium SSD v2 and Ultra Disk limits".to_owned(),
    });
    let r = rule(
        "disk",
        "when disk.vm_uncached_iops > 16000 iops",
        "{disk.vm_uncached_iops:.0} {disk.vm_uncached_mbps:.0} {disk.vm_uncached_burst_iops:.0} {disk.vm_uncached_burst_mbps:.0}: {disk.vm_uncached_basis}",
    );
    assert_eq!(
        only(&evaluate_rule(&r, &c.facts, &c.series)).evidence,
        "16667 496 52083 1463: Standard_D8s_v6's Premium SSD v2 and Ultra Disk limits"
    );
    c.facts.disks[0].limits.vm_uncached = None;
    let o = evaluate_rule(&r, &c.facts, &c.series);
    assert!(o.not_evaluated[0].reason.contains("--vm"), "{o:?}");
}
