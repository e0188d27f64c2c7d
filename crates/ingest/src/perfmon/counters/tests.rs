//! The counter map and the plan, on hand-made headers.

use super::*;

fn headers(cols: &[&str]) -> Vec<String> {
    std::iter::once("(PDH-CSV 4.0)").chain(cols.iter().copied()).map(str::to_owned).collect()
}

#[test]
fn conversions_are_exact() {
    let (m, c, _) = disk_counter("Avg. Disk sec/Read").unwrap_or_else(|| panic!());
    assert_eq!((m, c.apply(0.002)), (Metric::ReadLatencyMs, 2.0));
    let (m, c, _) = disk_counter("Disk Write Bytes/sec").unwrap_or_else(|| panic!());
    assert_eq!((m, c.apply(209_715_200.0)), (Metric::WriteMbps, 200.0));
    let (m, c, _) = disk_counter("Avg. Disk Bytes/Read").unwrap_or_else(|| panic!());
    assert_eq!((m, c.apply(65536.0)), (Metric::ReadIoKib, 64.0));
    let (m, c, _) = disk_counter("% Idle Time").unwrap_or_else(|| panic!());
    assert_eq!(
        (m, c.apply(97.5), c.apply(104.0), c.apply(-3.0)),
        (Metric::BusyPct, 2.5, 0.0, 100.0)
    );
    let (_, c, rank) = disk_counter("% Disk Time").unwrap_or_else(|| panic!());
    assert_eq!((c.apply(250.0), c.apply(40.0), rank), (100.0, 40.0, 1));
    let (m, c, _) = memory_counter("Available Bytes").unwrap_or_else(|| panic!());
    assert_eq!((m, c.apply(1_073_741_824.0)), (Metric::AvailableMemoryMib, 1024.0));
    assert_eq!(memory_counter("Available KBytes").map(|(_, c, _)| c.apply(2048.0)), Some(2.0));
    assert_eq!(memory_counter("Available MBytes").map(|(_, c, _)| c.apply(696.0)), Some(696.0));
    for ignored in ["Split IO/Sec", "% Disk Read Time", "% Disk Write Time", "Free Megabytes"] {
        assert_eq!(disk_counter(ignored), None, "{ignored}");
    }
    assert_eq!(disk_counter("Disk Reads/sec").map(|x| x.0), Some(Metric::ReadIops));
    assert_eq!(disk_counter("Disk Transfers/sec").map(|x| x.0), Some(Metric::Iops));
    assert_eq!(disk_counter("Disk Bytes/sec").map(|x| x.0), Some(Metric::Mbps));
    assert_eq!(disk_counter("Avg. Disk sec/Transfer").map(|x| x.0), Some(Metric::LatencyMs));
    assert_eq!(disk_counter("Avg. Disk Bytes/Transfer").map(|x| x.0), Some(Metric::IoKib));
    assert_eq!(
        disk_counter("Avg. Disk Write Queue Length").map(|x| x.0),
        Some(Metric::WriteQueueDepth)
    );
}

#[test]
fn targets_per_object_instance_and_host() {
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\VM1\PhysicalDisk(1 E:)\Disk Reads/sec",
        r"\\VM1\PhysicalDisk(3)\Disk Reads/sec",
        r"\\VM1\PhysicalDisk(_Total)\Disk Reads/sec",
        r"\\VM1\LogicalDisk(E:)\Disk Reads/sec",
        r"\\VM1\LogicalDisk(HarddiskVolume2)\Disk Reads/sec",
        r"\\VM1\LogicalDisk(_Total)\Disk Reads/sec",
        r"\\VM1\Processor(_Total)\% Processor Time",
        r"\\VM1\Processor(0)\% Processor Time",
        r"\\VM1\Memory\Available MBytes",
        r"\\VM2\PhysicalDisk(1 E:)\Disk Reads/sec",
        r"\\VM2\Process(sqlservr#1)\% Processor Time",
        r"\\VM2\Process(sqlservr)\% Processor Time",
        r"\\VM2\PhysicalDisk(1 E:)\Split IO/Sec",
    ]);
    let cols = plan(&h, 1, &mut meta);
    let t: Vec<(&str, TargetKind, Option<&str>)> =
        meta.targets.iter().map(|t| (t.name.as_str(), t.kind, t.host.as_deref())).collect();
    use TargetKind::*;
    assert_eq!(
        t,
        vec![
            ("1 E:", Disk, Some("VM1")),
            ("3", Disk, Some("VM1")),
            ("PhysicalDisk(_Total)", Aggregate, Some("VM1")),
            ("E:", Volume, Some("VM1")),
            ("HarddiskVolume2", Volume, Some("VM1")),
            ("LogicalDisk(_Total)", Aggregate, Some("VM1")),
            ("VM1", Host, Some("VM1")),
            ("1 E:", Disk, Some("VM2")),
        ]
    );
    assert_eq!(meta.hosts, vec!["VM1", "VM2"]);
    assert_eq!(cols.len(), 9);
    assert_eq!(cols[6].metric, Metric::CpuPct);
    assert_eq!(cols[7].metric, Metric::AvailableMemoryMib);
    assert_eq!(cols[8].index, 10);
    assert_eq!(
        meta.ignored,
        vec![
            r"Processor(*)\% Processor Time",
            r"Process(*)\% Processor Time",
            r"PhysicalDisk(*)\Split IO/Sec"
        ]
    );
    assert!(meta.warnings.is_empty(), "{:?}", meta.warnings);
}

#[test]
fn fallbacks_and_priorities() {
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\H\PhysicalDisk(0 C:)\Current Disk Queue Length",
        r"\\H\PhysicalDisk(0 C:)\Avg. Disk Queue Length",
        r"\\H\PhysicalDisk(0 C:)\% Disk Time",
        r"\\H\PhysicalDisk(0 C:)\% Idle Time",
        r"\\H\PhysicalDisk(1 D:)\Current Disk Queue Length",
        r"\\H\PhysicalDisk(1 D:)\% Disk Time",
        r"\\H\Memory\Available MBytes",
        r"\\H\Memory\Available Bytes",
    ]);
    let cols = plan(&h, 1, &mut meta);
    let got: Vec<(usize, Metric)> = cols.iter().map(|c| (c.index, c.metric)).collect();
    assert_eq!(
        got,
        vec![
            (2, Metric::QueueDepth),
            (4, Metric::BusyPct),
            (5, Metric::QueueDepth),
            (6, Metric::BusyPct),
            (8, Metric::AvailableMemoryMib),
        ]
    );
    assert_eq!(cols[1].convert, Convert::BusyFromIdle);
    assert_eq!(cols[3].convert, Convert::BusyFromDiskTime);
    assert_eq!(meta.notes.len(), 2, "{:?}", meta.notes);
    assert!(meta.notes[0].contains("instant value"));
    assert!(meta.ignored.contains(&r"PhysicalDisk(*)\Current Disk Queue Length".to_owned()));
    assert!(meta.ignored.contains(&r"Memory\Available MBytes".to_owned()));
}

#[test]
fn current_queue_not_used_when_read_and_write_averages_exist() {
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\H\LogicalDisk(C:)\Avg. Disk Read Queue Length",
        r"\\H\LogicalDisk(C:)\Avg. Disk Write Queue Length",
        r"\\H\LogicalDisk(C:)\Current Disk Queue Length",
    ]);
    let cols = plan(&h, 1, &mut meta);
    assert_eq!(cols.len(), 2);
    assert!(meta.notes.is_empty());
}

#[test]
fn processor_totals() {
    // `_Total` wins over the node total; per-core instances are ignored.
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\Z\Processor Information(0,_Total)\% Processor Time",
        r"\\Z\Processor Information(_Total)\% Processor Time",
        r"\\Z\Processor Information(0,3)\% Processor Time",
    ]);
    let cols = plan(&h, 1, &mut meta);
    assert_eq!(cols.iter().map(|c| c.index).collect::<Vec<_>>(), vec![2]);
    // A single node total stands for the machine.
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let cols =
        plan(&headers(&[r"\\Z\Processor Information(0,_Total)\% Processor Time"]), 1, &mut meta);
    assert_eq!(cols.len(), 1);
    // Two node totals do not.
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\Z\Processor Information(0,_Total)\% Processor Time",
        r"\\Z\Processor Information(1,_Total)\% Processor Time",
    ]);
    assert!(plan(&h, 1, &mut meta).is_empty());
}

#[test]
fn duplicates_keep_the_first() {
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\D\PhysicalDisk(1 C: E:)\% Disk Time",
        r"\\D\PhysicalDisk(1 C: E:)\Disk Reads/sec",
        r"\\D\PhysicalDisk(1 C: E:)\% Disk Time",
    ]);
    let cols = plan(&h, 1, &mut meta);
    assert_eq!(cols.iter().map(|c| c.index).collect::<Vec<_>>(), vec![1, 2]);
    assert_eq!(meta.warnings.len(), 1);
    let w = &meta.warnings[0];
    assert!(w.message.contains(r"`PhysicalDisk(1 C: E:)\% Disk Time`"), "{}", w.message);
    assert!(w.message.contains("column 4"), "{}", w.message);
    assert_eq!(w.location, Some(Location::column(r"\\D\PhysicalDisk(1 C: E:)\% Disk Time")));
}

#[test]
fn localized_names_are_not_guessed() {
    for (object, counter, lang) in [
        ("Физический диск", "Скорость чтения с диска (байт/с)", "Russian"),
        ("物理磁盘", "磁盘读取字节/秒", "Chinese"),
        ("Physikalischer Datenträger", "Lesevorgänge/s", "German"),
        ("Prozessor", "Prozessorzeit (%)", "German"),
        ("Disque physique", "Lectures disque/s", "French"),
        ("Procesador", "% de tiempo de procesador", "Spanish"),
        ("プロセッサ", "% Processor Time", "Japanese"),
    ] {
        assert_eq!(localized_language(object, counter), Some(lang), "{object}");
    }
    assert_eq!(localized_language("Process", "% Processor Time"), None);
    assert_eq!(localized_language("Network Interface", "Bytes Total/sec"), None);

    // Russian has a table: its memory counter is read, its Process counters are not
    // counters advisor reads, and the warning says so.
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\PC\Процесс(Idle)\% загруженности процессора",
        r"\\PC\Процесс(System)\% загруженности процессора",
        r"\\PC\Память\Доступно МБ",
    ]);
    let cols = plan(&h, 1, &mut meta);
    assert_eq!(cols.iter().map(|c| c.metric).collect::<Vec<_>>(), vec![Metric::AvailableMemoryMib]);
    assert_eq!(cols[0].header, r"\\PC\Память\Доступно МБ", "the header as written");
    assert_eq!(meta.ignored, vec![r"Процесс(*)\% загруженности процессора"]);
    assert_eq!(meta.warnings.len(), 1);
    let m = &meta.warnings[0].message;
    assert!(m.contains("look localized (Russian; 1 counter(s)"), "{m}");
    assert!(m.contains("none of them is a counter advisor reads"), "{m}");
    assert!(
        meta.notes.iter().any(|n| n.starts_with("counter names are Russian (ru-RU)")),
        "{:?}",
        meta.notes
    );

    // A language without a table: nothing is guessed.
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[r"\\PC\Fizikai lemez(0 C:)\Írási sebesség (bájt/s)"]);
    assert!(plan(&h, 1, &mut meta).is_empty());
    let m = &meta.warnings[0].message;
    assert!(m.contains("look localized (non-English; 1 counter(s)"), "{m}");
    assert!(m.contains("do not hold these names"), "{m}");
    assert!(m.contains("--counters FILE"), "{m}");
    assert!(m.contains("display language is English"), "{m}");
}

#[test]
fn paging_file_volumes() {
    assert_eq!(pagefile_volume(r"\??\C:\pagefile.sys").as_deref(), Some("C:"));
    assert_eq!(pagefile_volume(r"\??\d:\pagefile.sys").as_deref(), Some("D:"));
    assert_eq!(pagefile_volume(r"\\?\E:\swap\pagefile.sys").as_deref(), Some("E:"));
    assert_eq!(pagefile_volume(r"C:\pagefile.sys").as_deref(), Some("C:"));
    for none in ["_Total", "", r"\??\", r"\??\Volume{1234}\pagefile.sys", "1:"] {
        assert_eq!(pagefile_volume(none), None, "{none}");
    }
    assert_eq!(
        memory_counter("Pages/sec").map(|(m, c, r)| (m, c.apply(1234.0), r)),
        Some((Metric::PagesPerSec, 1234.0, 0))
    );
}

#[test]
fn paging_file_usage_joins_the_volume_of_its_drive() {
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&[
        r"\\VM1\LogicalDisk(C:)\Disk Transfers/sec",
        r"\\VM1\Paging File(\??\C:\pagefile.sys)\% Usage",
        r"\\VM1\Paging File(\??\C:\pagefile.sys)\% Usage Peak",
        r"\\VM1\Paging File(\??\D:\pagefile.sys)\% Usage",
        r"\\VM1\Paging File(_Total)\% Usage",
        r"\\VM1\Memory\Pages/sec",
        r"\\VM1\Memory\Page Faults/sec",
    ]);
    let cols = plan(&h, 1, &mut meta);
    let t: Vec<(&str, TargetKind)> =
        meta.targets.iter().map(|t| (t.name.as_str(), t.kind)).collect();
    assert_eq!(
        t,
        vec![("C:", TargetKind::Volume), ("D:", TargetKind::Volume), ("VM1", TargetKind::Host)]
    );
    let got: Vec<(usize, u32, Metric)> =
        cols.iter().map(|c| (c.index, c.target, c.metric)).collect();
    assert_eq!(
        got,
        vec![
            (1, 0, Metric::Iops),
            (2, 0, Metric::PagefileUsagePct),
            (4, 1, Metric::PagefileUsagePct),
            (6, 2, Metric::PagesPerSec),
        ]
    );
    assert_eq!(
        meta.ignored,
        vec![
            r"Paging File(*)\% Usage Peak",
            r"Paging File(_Total)\% Usage",
            r"Memory\Page Faults/sec"
        ]
    );
    assert!(meta.warnings.is_empty(), "{:?}", meta.warnings);
}

#[test]
fn cells_that_are_not_paths() {
    let mut meta = CaptureMeta::new(crate::perfmon::FORMAT);
    let h = headers(&["Time", "", r"\\H\Memory\Available MBytes"]);
    assert_eq!(plan(&h, 1, &mut meta).len(), 1);
    assert_eq!(meta.ignored, vec!["Time"]);
    assert_eq!(meta.warnings.len(), 1);
}
