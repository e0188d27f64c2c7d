<#
.SYNOPSIS
advisor collector for Windows: one folder and one .zip that `advisor analyze` reads whole.

.DESCRIPTION
Captures the disk, processor, memory and paging counters advisor's rules use (typeperf,
every second) and the VM's disk layout, and writes
  OUT\advisor-HOST-YYYYMMDDTHHMMSSZ\      the files, with manifest.json
  OUT\advisor-HOST-YYYYMMDDTHHMMSSZ.zip   the same, to attach to the ticket

What it runs (read-only; nothing else is collected):
  typeperf -cf counters.txt -si 1 -sc N -f CSV -o perfmon.csv -y
      https://learn.microsoft.com/windows-server/administration/windows-commands/typeperf
  one GET of the Azure Instance Metadata Service instance document (Metadata: true, no
  proxy, 3 s timeout); off Azure nothing answers and manifest.json says so; -ImdsUrl (or
  the ADVISOR_IMDS_URL environment variable) asks elsewhere, -NoImds not at all
      https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service
  Get-Disk, Get-PhysicalDisk, Get-Partition, Get-Volume as JSON (which disk number is
  which LUN, which drive letter is on which disk)
      https://learn.microsoft.com/powershell/module/storage/get-disk

Exit codes: 0 collected; 1 a command failed (manifest.json says which); 2 bad usage.

.PARAMETER Seconds
How long to capture, 1..3600 (default 120). Run it while the workload is slow.

.PARAMETER Out
Where to write (default: the current folder).

.PARAMETER NoArchive
Write the folder only.

.PARAMETER ImdsUrl
Where to ask for the instance metadata document (http:// or https://). Default: the
ADVISOR_IMDS_URL environment variable if set, else Azure's own
http://169.254.169.254/metadata/instance?api-version=2021-02-01

.PARAMETER NoImds
Send no metadata request; manifest.json says it was skipped.

.EXAMPLE
powershell -ExecutionPolicy Bypass -File .\collect-windows.ps1 -Seconds 300
#>
[CmdletBinding()]
param(
    # Text, checked below: a binding error would exit 1, not the usage code 2.
    [string]$Seconds = '120',
    [string]$Out = '.',
    [switch]$NoArchive,
    [string]$ImdsUrl = '',
    [switch]$NoImds,
    [switch]$Help
)

Set-StrictMode -Version 3
$ErrorActionPreference = 'Stop'

$Collector = 'advisor-collect-windows'
$CollectorVersion = '1'
# Azure's own endpoint. -ImdsUrl or ADVISOR_IMDS_URL points the request elsewhere (a
# stand-in on loopback in tests); -NoImds sends no request at all.
$DefaultImdsUrl = 'http://169.254.169.254/metadata/instance?api-version=2021-02-01'
$MinSeconds = 1
$MaxSeconds = 3600
$MaxImdsBytes = 1MB

# Exactly the counters advisor reads (crates/ingest/src/perfmon/counters.rs: the preferred
# counter of every metric; a test in advisor-ingest checks this list against the reader).
# English names: typeperf takes English paths on every Windows language.
$Counters = @(
    '\PhysicalDisk(*)\Disk Reads/sec'
    '\PhysicalDisk(*)\Disk Writes/sec'
    '\PhysicalDisk(*)\Disk Transfers/sec'
    '\PhysicalDisk(*)\Disk Read Bytes/sec'
    '\PhysicalDisk(*)\Disk Write Bytes/sec'
    '\PhysicalDisk(*)\Disk Bytes/sec'
    '\PhysicalDisk(*)\Avg. Disk sec/Read'
    '\PhysicalDisk(*)\Avg. Disk sec/Write'
    '\PhysicalDisk(*)\Avg. Disk sec/Transfer'
    '\PhysicalDisk(*)\Avg. Disk Bytes/Read'
    '\PhysicalDisk(*)\Avg. Disk Bytes/Write'
    '\PhysicalDisk(*)\Avg. Disk Bytes/Transfer'
    '\PhysicalDisk(*)\Avg. Disk Queue Length'
    '\PhysicalDisk(*)\Avg. Disk Read Queue Length'
    '\PhysicalDisk(*)\Avg. Disk Write Queue Length'
    '\PhysicalDisk(*)\% Idle Time'
    '\LogicalDisk(*)\Disk Reads/sec'
    '\LogicalDisk(*)\Disk Writes/sec'
    '\LogicalDisk(*)\Disk Transfers/sec'
    '\LogicalDisk(*)\Disk Read Bytes/sec'
    '\LogicalDisk(*)\Disk Write Bytes/sec'
    '\LogicalDisk(*)\Disk Bytes/sec'
    '\LogicalDisk(*)\Avg. Disk sec/Read'
    '\LogicalDisk(*)\Avg. Disk sec/Write'
    '\LogicalDisk(*)\Avg. Disk sec/Transfer'
    '\LogicalDisk(*)\Avg. Disk Bytes/Read'
    '\LogicalDisk(*)\Avg. Disk Bytes/Write'
    '\LogicalDisk(*)\Avg. Disk Bytes/Transfer'
    '\LogicalDisk(*)\Avg. Disk Queue Length'
    '\LogicalDisk(*)\Avg. Disk Read Queue Length'
    '\LogicalDisk(*)\Avg. Disk Write Queue Length'
    '\LogicalDisk(*)\% Idle Time'
    '\Processor(_Total)\% Processor Time'
    '\Memory\Available Bytes'
    '\Memory\Pages/sec'
    '\Paging File(*)\% Usage'
)

function Exit-Usage([string]$Message) {
    [Console]::Error.WriteLine("collect-windows.ps1: $Message")
    [Console]::Error.WriteLine("Try 'Get-Help .\collect-windows.ps1 -Detailed'.")
    exit 2
}

if ($Help) {
    Get-Help $PSCommandPath -Detailed
    exit 0
}
if ($Seconds -notmatch '^[0-9]{1,5}$') {
    Exit-Usage "-Seconds must be a whole number, not '$Seconds'"
}
# A variable of its own: $Seconds is typed [string] by its declaration, and comparing a
# string with a number compares text.
$Duration = [int]$Seconds
if ($Duration -lt $MinSeconds -or $Duration -gt $MaxSeconds) {
    Exit-Usage "-Seconds must be between $MinSeconds and $MaxSeconds, not $Duration"
}
if (-not (Test-Path -LiteralPath $Out -PathType Container)) {
    Exit-Usage "-Out: no such folder: $Out"
}
$ImdsUrlFrom = '-ImdsUrl'
if (-not $ImdsUrl) {
    if ($env:ADVISOR_IMDS_URL) {
        $ImdsUrl = $env:ADVISOR_IMDS_URL
        $ImdsUrlFrom = 'ADVISOR_IMDS_URL'
    } else {
        $ImdsUrl = $DefaultImdsUrl
    }
}
if ($ImdsUrl -notmatch '^https?://[^\s/?#]+[^\s]*$') {
    Exit-Usage "$ImdsUrlFrom must be an http:// or https:// URL, not '$ImdsUrl'"
}
# The host (and port) the request goes to, for the manifest's reasons.
$ImdsHost = ([System.Uri]$ImdsUrl).Authority

function Get-UtcStamp { (Get-Date).ToUniversalTime().ToString("yyyy-MM-ddTHH:mm:ssZ") }

$HostName = $env:COMPUTERNAME
$SafeHost = ($HostName -replace '[^A-Za-z0-9._-]', '_')
$Name = 'advisor-{0}-{1}' -f $SafeHost, (Get-Date).ToUniversalTime().ToString('yyyyMMddTHHmmssZ')
$OutFull = (Resolve-Path -LiteralPath $Out).ProviderPath
$Bundle = Join-Path $OutFull $Name
if (Test-Path -LiteralPath $Bundle) {
    Exit-Usage "$Bundle already exists; not overwriting it"
}
New-Item -ItemType Directory -Path $Bundle | Out-Null

$Start = Get-UtcStamp
$Commands = New-Object System.Collections.ArrayList
$Failed = $false

# Runs one PowerShell query and writes its objects as JSON (always an array).
function Save-Json([string]$File, [string]$CommandLine, [scriptblock]$Query) {
    $exit = 0
    try {
        $objects = @(& $Query)
        ConvertTo-Json -InputObject $objects -Depth 4 |
            Set-Content -LiteralPath (Join-Path $Bundle $File) -Encoding UTF8
    } catch {
        $exit = 1
        Set-Content -LiteralPath (Join-Path $Bundle "$File.stderr") -Value $_.ToString() -Encoding UTF8
        $script:Failed = $true
    }
    [void]$Commands.Add([ordered]@{ file = $File; command = $CommandLine; exit = $exit })
}

# The disk layout. Properties named as the cmdlets name them; a drive letter as text.
Save-Json 'get-disk.json' 'Get-Disk' {
    Get-Disk | Select-Object Number, FriendlyName, SerialNumber, UniqueId, Location, Size,
        AllocatedSize, LogicalSectorSize, PhysicalSectorSize, BusType, PartitionStyle,
        IsBoot, IsSystem, IsOffline, NumberOfPartitions
}
Save-Json 'get-physicaldisk.json' 'Get-PhysicalDisk' {
    Get-PhysicalDisk | Select-Object DeviceId, FriendlyName, SerialNumber, UniqueId,
        PhysicalLocation, MediaType, BusType, Size, LogicalSectorSize, PhysicalSectorSize
}
Save-Json 'get-partition.json' 'Get-Partition' {
    Get-Partition | Select-Object DiskNumber, PartitionNumber, Offset, Size, Type,
        @{ Name = 'DriveLetter'; Expression = { if ($_.DriveLetter -and $_.DriveLetter -ne [char]0) { [string]$_.DriveLetter } else { $null } } },
        @{ Name = 'AccessPaths'; Expression = { @($_.AccessPaths) } }
}
Save-Json 'get-volume.json' 'Get-Volume' {
    Get-Volume | Select-Object FileSystemLabel, FileSystem, Size, SizeRemaining, Path,
        @{ Name = 'DriveLetter'; Expression = { if ($_.DriveLetter -and $_.DriveLetter -ne [char]0) { [string]$_.DriveLetter } else { $null } } },
        @{ Name = 'AllocationUnitSize'; Expression = { $_.AllocationUnitSize } }
}

# IMDS: one GET, no proxy (Windows PowerShell 5.1 has no -NoProxy), 3 s. -NoImds sends
# nothing.
$ImdsAnswered = $false
$ImdsReason = $null
if ($NoImds) {
    $ImdsReason = 'not asked: -NoImds was given'
} else {
    try {
        $request = [System.Net.HttpWebRequest]::Create($ImdsUrl)
        $request.Headers.Add('Metadata', 'true')
        $request.Proxy = $null
        $request.Timeout = 3000
        $request.ReadWriteTimeout = 3000
        $response = $request.GetResponse()
        try {
            $reader = New-Object System.IO.StreamReader($response.GetResponseStream())
            $buffer = New-Object char[] ($MaxImdsBytes)
            $read = $reader.ReadBlock($buffer, 0, $buffer.Length)
            $body = [string]::new($buffer, 0, $read)
        } finally {
            $response.Close()
        }
        if ($body.TrimStart().StartsWith('{')) {
            [System.IO.File]::WriteAllText((Join-Path $Bundle 'imds.json'), $body)
            $ImdsAnswered = $true
        } else {
            $ImdsReason = "$ImdsHost answered with something other than a JSON document"
        }
    } catch {
        $ImdsReason = "no instance document from $ImdsHost within 3 s ($($_.Exception.Message)); not an Azure VM, or the metadata service is blocked"
    }
}

# The capture: typeperf writes the CSV advisor reads (PDH-CSV 4.0).
$CounterFile = Join-Path $Bundle 'counters.txt'
Set-Content -LiteralPath $CounterFile -Value $Counters -Encoding ASCII
$Csv = Join-Path $Bundle 'perfmon.csv'
# Start-Process joins its arguments with spaces: paths are quoted (a user folder may have one).
$TypeperfArgs = @('-cf', "`"$CounterFile`"", '-si', '1', '-sc', "$Duration", '-f', 'CSV', '-o', "`"$Csv`"", '-y')
[Console]::Error.WriteLine("collect-windows.ps1: capturing counters for $Duration s into $Bundle ...")
$proc = Start-Process -FilePath 'typeperf.exe' -ArgumentList $TypeperfArgs -NoNewWindow -PassThru `
    -RedirectStandardOutput (Join-Path $Bundle 'typeperf.log')
# Without the handle cached now, ExitCode reads as nothing once the process has exited.
$null = $proc.Handle
# Bounded: the capture's length and a minute more, then it is stopped.
if (-not $proc.WaitForExit(($Duration + 60) * 1000)) {
    $proc.Kill()
    $typeperfExit = 124
} else {
    $typeperfExit = $proc.ExitCode
}
if ($typeperfExit -ne 0) { $Failed = $true }
[void]$Commands.Add([ordered]@{ file = 'perfmon.csv'; command = "typeperf $($TypeperfArgs -join ' ')"; exit = $typeperfExit })
$End = Get-UtcStamp

if ($NoImds) {
    $Imds = [ordered]@{ answered = $false; skipped = $true; command = '(not run: -NoImds)' }
} else {
    $Imds = [ordered]@{ answered = $ImdsAnswered; skipped = $false; url = $ImdsUrl; command = "GET $ImdsUrl (Metadata: true, no proxy, 3 s)" }
}
if (-not $ImdsAnswered) { $Imds.reason = $ImdsReason }
$Files = @(Get-ChildItem -LiteralPath $Bundle -File | ForEach-Object { $_.Name }) + @('manifest.json')
$Manifest = [ordered]@{
    collector         = $Collector
    collector_version = $CollectorVersion
    host              = $HostName
    os                = 'windows'
    windows           = [System.Environment]::OSVersion.Version.ToString()
    powershell        = $PSVersionTable.PSVersion.ToString()
    seconds           = $Duration
    interval_s        = 1
    start             = $Start
    end               = $End
    imds              = $Imds
    commands          = @($Commands)
    files             = $Files
}
ConvertTo-Json -InputObject $Manifest -Depth 4 |
    Set-Content -LiteralPath (Join-Path $Bundle 'manifest.json') -Encoding UTF8

if (-not $NoArchive) {
    $Zip = "$Bundle.zip"
    try {
        Compress-Archive -Path (Join-Path $Bundle '*') -DestinationPath $Zip
        [Console]::Error.WriteLine("collect-windows.ps1: wrote $Zip; attach it to the ticket")
    } catch {
        [Console]::Error.WriteLine("collect-windows.ps1: could not write $Zip ($($_.Exception.Message)); the folder $Bundle is complete")
        exit 1
    }
} else {
    [Console]::Error.WriteLine("collect-windows.ps1: wrote $Bundle")
}
if (-not $ImdsAnswered -and -not $NoImds) {
    [Console]::Error.WriteLine("collect-windows.ps1: note: $ImdsReason")
}
if ($Failed) {
    [Console]::Error.WriteLine("collect-windows.ps1: a command failed; see manifest.json and the .stderr files in $Bundle")
    exit 1
}
exit 0
