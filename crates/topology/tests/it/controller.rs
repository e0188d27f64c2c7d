//! Which remote figures a VM's disks are judged against: the controller they attach through
//! (the topology's `controller` key, else the disk names) and the disk's kind (Premium SSD v2
//! and Ultra meet the figures a size publishes for them).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::float_cmp)]

use advisor_topology::{Catalog, Controller, Topology};

fn topology(src: &str) -> Topology {
    let catalog = Catalog::builtin().unwrap();
    match Topology::parse("t.toml", src, &catalog) {
        Ok(t) => t,
        Err(e) => panic!("{e}\n{src}"),
    }
}

fn refused(src: &str) -> String {
    let catalog = Catalog::builtin().unwrap();
    match Topology::parse("t.toml", src, &catalog) {
        Ok(_) => panic!("accepted:\n{src}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_topology_picks_the_nvme_figures_of_a_size_that_publishes_both() {
    let src = |c: &str| {
        format!(
            "[vm]\nsize = \"Standard_E16bds_v5\"\n\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\n{c}"
        )
    };
    let l = topology(&src("controller = \"nvme\"\n")).limits();
    let vm = l.vm.unwrap();
    assert_eq!((vm.uncached_iops, vm.uncached_mbps), (Some(66000.0), Some(1800.0)));
    assert_eq!((vm.uncached_v2_iops, vm.uncached_v2_mbps), (Some(88400.0), Some(2300.0)));
    assert_eq!(vm.controller, Some(Controller::Nvme));
    assert!(
        vm.uncached_basis
            .contains("NVMe-controller figures: the topology gives controller = \"nvme\" for E:"),
        "{}",
        vm.uncached_basis
    );
    assert_eq!(l.uncached.iops, Some(66000.0));

    let vm = topology(&src("controller = \"SCSI\"\n")).limits().vm.unwrap();
    assert_eq!((vm.uncached_iops, vm.controller), (Some(48400.0), Some(Controller::Scsi)));

    // Not said: the SCSI figures, and the report says how to pick the others.
    let vm = topology(&src("")).limits().vm.unwrap();
    assert_eq!((vm.uncached_iops, vm.controller), (Some(48400.0), None));
    assert!(vm.uncached_basis.contains("controller = \"nvme\" on a [[disk]] picks the NVMe ones"));
}

#[test]
fn the_disk_names_show_the_controller() {
    let src = |a: &str, b: &str| {
        format!(
            "[vm]\nsize = \"Standard_E16bds_v5\"\n\n[[disk]]\nname = \"{a}\"\nsku = \"P30\"\n\n[[disk]]\nname = \"{b}\"\nsku = \"P30\"\n"
        )
    };
    let vm = topology(&src("nvme0n2", "/dev/nvme0n3")).limits().vm.unwrap();
    assert_eq!((vm.controller, vm.uncached_iops), (Some(Controller::Nvme), Some(66000.0)));
    assert!(
        vm.uncached_basis.contains("named as NVMe namespaces (nvme0n2, /dev/nvme0n3)"),
        "{}",
        vm.uncached_basis
    );
    let vm = topology(&src("sdc", "sdd")).limits().vm.unwrap();
    assert_eq!(vm.controller, Some(Controller::Scsi));
    // Windows names say nothing; a mix says nothing either.
    assert_eq!(topology(&src("E:", "F:")).limits().vm.unwrap().controller, None);
    assert_eq!(topology(&src("sdc", "nvme0n3")).limits().vm.unwrap().controller, None);
}

#[test]
fn one_controller_per_vm_and_only_known_words() {
    let e = refused(
        "[vm]\nsize = \"Standard_E16bds_v5\"\n\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\ncontroller = \"nvme\"\n\n[[disk]]\nname = \"F:\"\nsku = \"P30\"\ncontroller = \"scsi\"\n",
    );
    assert!(e.contains("disk \"F:\" names controller \"scsi\", disk \"E:\" \"nvme\""), "{e}");
    assert!(e.contains("one controller"), "{e}");
    let e = refused("[[disk]]\nname = \"E:\"\ncontroller = \"nvm\"\n");
    assert!(
        e.contains("invalid controller \"nvm\"") && e.contains("did you mean \"nvme\"?"),
        "{e}"
    );
}

#[test]
fn a_size_with_one_set_keeps_it_whatever_the_controller() {
    let vm = topology("[vm]\nsize = \"Standard_D8s_v6\"\n\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\ncontroller = \"nvme\"\n")
        .limits()
        .vm
        .unwrap();
    assert_eq!((vm.uncached_iops, vm.controller), (Some(12800.0), Some(Controller::Nvme)));
    assert!(
        vm.uncached_basis
            .starts_with("the only remote figures its page publishes, not per controller"),
        "{}",
        vm.uncached_basis
    );
    // A page that publishes NVMe figures only: SCSI is refused with a warning.
    let t = topology(
        "[vm]\nsize = \"Standard_M64bs_v3\"\n\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\ncontroller = \"scsi\"\n",
    );
    assert!(t.warnings.iter().any(|w| w.code == "controller-not-published"), "{:?}", t.warnings);
    assert_eq!(t.limits().vm.unwrap().controller, Some(Controller::Nvme));
}

#[test]
fn premium_ssd_v2_and_ultra_meet_the_figures_the_size_publishes_for_them() {
    // Standard_D8s_v6: 12,800 IOPS / 424 MB/s for Premium SSD, 16,667 / 496 for v2 and Ultra.
    let t = topology(
        "[vm]\nsize = \"Standard_D8s_v6\"\n\n[[disk]]\nname = \"F:\"\nsku = \"PremiumV2\"\niops = 15000\nmbps = 450\n",
    );
    let l = t.limits();
    let f = l.disk("F:").unwrap().vm_uncached.clone().unwrap();
    assert_eq!((f.iops, f.mbps, f.burst_iops), (Some(16667.0), Some(496.0), Some(52083.0)));
    assert!(
        f.basis.starts_with("Standard_D8s_v6's Premium SSD v2 and Ultra Disk limits"),
        "{}",
        f.basis
    );
    // Every remote disk is v2: the uncached budget is judged on the v2 figures.
    assert_eq!((l.uncached.iops, l.uncached.mbps), (Some(16667.0), Some(496.0)));
    assert!(l.provisioned_excess().is_empty(), "{:?}", l.provisioned_excess());

    // With a Premium SSD OS disk beside it, the budget keeps the Premium SSD figures; the v2
    // disk still has its own.
    let t = topology(
        "[vm]\nsize = \"Standard_D8s_v6\"\n\n[[disk]]\nname = \"C:\"\nsku = \"P10\"\nrole = \"os\"\n\n[[disk]]\nname = \"F:\"\nsku = \"PremiumV2\"\niops = 15000\nmbps = 450\n",
    );
    let l = t.limits();
    assert_eq!(l.uncached.iops, Some(12800.0));
    assert_eq!(l.disk("C:").unwrap().vm_uncached.as_ref().unwrap().iops, Some(12800.0));
    assert_eq!(l.disk("F:").unwrap().vm_uncached.as_ref().unwrap().iops, Some(16667.0));

    // A size that publishes no v2 figures: the uncached ones, and the basis says so.
    let t = topology(
        "[vm]\nsize = \"Standard_E16as_v5\"\n\n[[disk]]\nname = \"F:\"\nsku = \"PremiumV2\"\niops = 15000\nmbps = 450\n",
    );
    let f = t.limits().disk("F:").unwrap().vm_uncached.clone().unwrap();
    assert_eq!(f.iops, Some(25600.0));
    assert!(f.basis.contains("publishes no separate Premium SSD v2 figures"), "{}", f.basis);
}

#[test]
fn v4_and_later_sizes_carry_the_temp_disks_own_figures() {
    let vm =
        topology("[vm]\nsize = \"Standard_D8lds_v6\"\ntemp_disk = \"D:\"\n").limits().vm.unwrap();
    assert_eq!((vm.temp_iops, vm.temp_mbps), (Some(150000.0), Some(720.0)));
    assert_eq!((vm.temp_write_iops, vm.temp_write_mbps), (Some(60000.0), Some(360.0)));
    assert_eq!(vm.status, "current");
    let l8 = topology("[vm]\nsize = \"Standard_L8s_v3\"\n").limits().vm.unwrap();
    assert_eq!((l8.local_nvme_disks, l8.local_nvme_iops), (Some(1), Some(400000.0)));
}
