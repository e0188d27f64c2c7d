#!/usr/bin/env bash
# advisor collector for Linux: one folder and one .tar.gz that `advisor analyze` reads whole.
#
# What it runs (read-only; nothing else is collected):
#   iostat -xt -o JSON 1 N+1   extended device statistics every second for N seconds
#                              (sysstat older than 11.5: `iostat -xt 1 N+1` as text)
#   IMDS instance document     GET http://169.254.169.254/metadata/instance with
#                              `Metadata: true`, no proxy, a 3 s timeout (off Azure it
#                              does not answer: the bundle says so and is still complete);
#                              another endpoint with --imds-url or ADVISOR_IMDS_URL (a
#                              stand-in on loopback, in tests), none with --no-imds
#   lsblk -J -o NAME,HCTL,SIZE,TYPE,MODEL,MOUNTPOINT
#   ls -l /dev/disk/azure/scsi1/ and ls -lR /dev/disk/azure (which device is which LUN)
#   uname -r, iostat -V, hostname (in manifest.json)
# The IMDS document: https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service
# The /dev/disk/azure links: https://learn.microsoft.com/azure/virtual-machines/linux/azure-to-guest-disk-mapping
set -euo pipefail
# Numbers with a decimal point and ISO time stamps, whatever the user's locale.
export LC_ALL=C S_TIME_FORMAT=ISO

readonly COLLECTOR="advisor-collect-linux"
readonly COLLECTOR_VERSION="1"
# Azure's own endpoint. --imds-url or ADVISOR_IMDS_URL points the request elsewhere (a
# stand-in on loopback in advisor's tests and CI); --no-imds sends no request at all.
readonly DEFAULT_IMDS_URL="http://169.254.169.254/metadata/instance?api-version=2021-02-01"
readonly MIN_SECONDS=1
readonly MAX_SECONDS=3600
readonly DEFAULT_SECONDS=120
# No file of the bundle may grow past this (iostat JSON is about 0.5 KiB per device and
# second: an hour of 64 devices stays under it).
readonly MAX_FILE_BYTES=$((256 * 1024 * 1024))
# The IMDS instance document is a few KiB.
readonly MAX_IMDS_BYTES=$((1024 * 1024))

usage() {
  cat <<EOF
Usage: collect-linux.sh [-s SECONDS] [-o DIR] [--no-archive] [--imds-url URL | --no-imds]

Captures disk performance (iostat, every second) and the VM's disk layout, and writes
  DIR/advisor-HOST-YYYYMMDDTHHMMSSZ/        the files, with manifest.json
  DIR/advisor-HOST-YYYYMMDDTHHMMSSZ.tar.gz  the same, to attach to the ticket
Then: advisor analyze advisor-HOST-....tar.gz

Options:
  -s, --seconds N   how long to capture, ${MIN_SECONDS}..${MAX_SECONDS} (default ${DEFAULT_SECONDS}); run it while the
                    workload is slow
  -o, --out DIR     where to write (default: the current directory)
      --no-archive  write the folder only
      --imds-url URL
                    where to ask for the instance metadata document (default:
                    \$ADVISOR_IMDS_URL if set, else Azure's
                    ${DEFAULT_IMDS_URL})
      --no-imds     send no metadata request; the manifest says it was skipped
  -h, --help        this text

Read-only: it runs iostat, lsblk, ls, uname and one HTTP GET to the Azure Instance
Metadata Service (169.254.169.254, 3 s timeout, unless --imds-url or --no-imds says
otherwise); it changes nothing and collects nothing else. Needs iostat (Debian/Ubuntu:
apt-get install sysstat; RHEL: dnf install sysstat).
Exit codes: 0 collected; 1 a command failed (the folder says which); 2 bad usage;
3 iostat is missing.
EOF
}

die_usage() {
  printf 'collect-linux.sh: %s\n' "$1" >&2
  printf "Try 'collect-linux.sh --help'.\n" >&2
  exit 2
}

seconds=$DEFAULT_SECONDS
out_dir=.
archive=1
imds_url=${ADVISOR_IMDS_URL:-$DEFAULT_IMDS_URL}
imds_url_from="ADVISOR_IMDS_URL"
[ -n "${ADVISOR_IMDS_URL:-}" ] || imds_url_from=""
imds=1
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    -s | --seconds)
      [ $# -ge 2 ] || die_usage "$1 needs a number of seconds"
      seconds=$2
      shift 2
      ;;
    -o | --out)
      [ $# -ge 2 ] || die_usage "$1 needs a folder"
      out_dir=$2
      shift 2
      ;;
    --no-archive)
      archive=0
      shift
      ;;
    --imds-url)
      [ $# -ge 2 ] || die_usage "$1 needs a URL"
      imds_url=$2
      imds_url_from="--imds-url"
      shift 2
      ;;
    --no-imds)
      imds=0
      shift
      ;;
    *) die_usage "unknown argument: $1" ;;
  esac
done

case "$seconds" in
  '' | *[!0-9]*) die_usage "--seconds must be a whole number, not '$seconds'" ;;
esac
# Strip leading zeros so that arithmetic does not read the number as octal.
seconds=$((10#$seconds))
if [ "$seconds" -lt "$MIN_SECONDS" ] || [ "$seconds" -gt "$MAX_SECONDS" ]; then
  die_usage "--seconds must be between $MIN_SECONDS and $MAX_SECONDS, not $seconds"
fi
# The metadata endpoint: plain http(s) with a host, nothing curl or wget would read as an
# option or a local file.
case "$imds_url" in
  http://?* | https://?*) ;;
  *) die_usage "${imds_url_from:---imds-url} must be an http:// or https:// URL, not '$imds_url'" ;;
esac
case "$imds_url" in
  *[[:space:]]*) die_usage "${imds_url_from:---imds-url} must not contain spaces: '$imds_url'" ;;
esac
# The host (and port) the request goes to, for the manifest's reasons.
imds_host=${imds_url#*://}
imds_host=${imds_host%%/*}
imds_host=${imds_host%%\?*}
[ -d "$out_dir" ] || die_usage "--out: no such folder: $out_dir"
[ -w "$out_dir" ] || die_usage "--out: cannot write in $out_dir"

if ! command -v iostat >/dev/null 2>&1; then
  echo "collect-linux.sh: iostat not found: install sysstat (apt-get install sysstat, dnf install sysstat, zypper install sysstat)" >&2
  exit 3
fi

# A JSON string of arbitrary text: backslash, quote and control characters escaped.
json_str() {
  local s=$1 out='' c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case "$c" in
      '"') out+='\"' ;;
      \\) out+="\\\\" ;;
      $'\n') out+='\n' ;;
      $'\r') out+='\r' ;;
      $'\t') out+='\t' ;;
      *)
        if [[ "$c" < ' ' ]]; then
          out+=$(printf '\\u%04x' "'$c")
        else
          out+=$c
        fi
        ;;
    esac
  done
  printf '"%s"' "$out"
}

utc_now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

host=$(hostname 2>/dev/null || uname -n)
# The folder name keeps only safe characters of the host name.
safe_host=$(printf '%s' "$host" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-63)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
name="advisor-${safe_host}-${stamp}"
bundle="$out_dir/$name"
if [ -e "$bundle" ]; then
  echo "collect-linux.sh: $bundle already exists; not overwriting it" >&2
  exit 2
fi
mkdir -m 0755 "$bundle"

start=$(utc_now)
failed=0
commands=()

# Records one command of the manifest: its file, command line and exit status.
record() {
  commands+=("{\"file\": $(json_str "$1"), \"command\": $(json_str "$2"), \"exit\": $3}")
  if [ "$3" -ne 0 ]; then
    failed=1
  fi
}

# Runs a command with its output into a file of the bundle, bounded in time and size.
# Usage: capture FILE TIMEOUT_S COMMAND...
capture() {
  local file=$1 limit=$2 status
  shift 2
  set +e
  timeout --kill-after=5 "$limit" "$@" 2>"$bundle/$file.stderr" | head -c "$MAX_FILE_BYTES" >"$bundle/$file"
  # The command's own status counts, not head's (141: cut at MAX_FILE_BYTES; 124: timed out).
  status=("${PIPESTATUS[@]}")
  set -e
  local rc=${status[0]}
  [ -s "$bundle/$file.stderr" ] || rm -f "$bundle/$file.stderr"
  record "$file" "$*" "$rc"
  return 0
}

sysstat_version=$(iostat -V 2>&1 | sed -n 's/^sysstat version \([0-9][0-9.]*\).*/\1/p' | head -n1)
kernel=$(uname -r)

# Block layout first: it does not change during the capture, and a failure here is
# reported without waiting for the capture.
if command -v lsblk >/dev/null 2>&1; then
  capture lsblk.json 10 lsblk -J -o NAME,HCTL,SIZE,TYPE,MODEL,MOUNTPOINT
fi
azure_links=absent
if [ -d /dev/disk/azure ]; then
  azure_links=present
  if [ -d /dev/disk/azure/scsi1 ]; then
    capture disk-azure-scsi1.txt 10 ls -l /dev/disk/azure/scsi1/
  fi
  capture disk-azure.txt 10 ls -lR /dev/disk/azure
fi

# IMDS: one GET, no proxy, short timeouts. Off Azure nothing answers; that is not a
# failure of the collection. --no-imds sends nothing.
imds_answered=false
imds_skipped=false
imds_reason=""
if [ "$imds" -eq 0 ]; then
  imds_skipped=true
  imds_how="(not run: --no-imds)"
  imds_reason="not asked: --no-imds was given"
else
  imds_tmp="$bundle/imds.json.part"
  imds_rc=0
  if command -v curl >/dev/null 2>&1; then
    curl --silent --show-error --fail --noproxy '*' --connect-timeout 2 --max-time 3 \
      --max-filesize "$MAX_IMDS_BYTES" -H 'Metadata: true' -- "$imds_url" >"$imds_tmp" 2>"$imds_tmp.err" || imds_rc=$?
    imds_how="curl -H 'Metadata: true' --noproxy '*' --max-time 3 $imds_url"
  elif command -v wget >/dev/null 2>&1; then
    wget -q --no-proxy --timeout=3 --tries=1 --header='Metadata: true' -O "$imds_tmp" -- "$imds_url" 2>"$imds_tmp.err" || imds_rc=$?
    imds_how="wget --header='Metadata: true' --no-proxy --timeout=3 $imds_url"
  else
    imds_rc=127
    imds_how="(neither curl nor wget is installed)"
  fi
  if [ "$imds_rc" -eq 0 ] && [ -s "$imds_tmp" ] && head -c 1 "$imds_tmp" | grep -q '{'; then
    mv "$imds_tmp" "$bundle/imds.json"
    imds_answered=true
  else
    if [ "$imds_rc" -eq 127 ]; then
      imds_reason="neither curl nor wget is installed"
    else
      detail=$(head -c 200 "$imds_tmp.err" 2>/dev/null | tr '\n' ' ' | sed 's/ *$//')
      case "$imds_how:$imds_rc" in
        curl*:28) imds_reason="no answer from $imds_host within 3 s" ;;
        curl*:7) imds_reason="$imds_host cannot be reached ($detail)" ;;
        curl*:22) imds_reason="$imds_host answered with an HTTP error ($detail)" ;;
        *) imds_reason="the request to $imds_host failed (exit $imds_rc${detail:+: $detail})" ;;
      esac
      if [ "$imds_rc" -eq 0 ]; then
        imds_reason="$imds_host answered with something other than a JSON document"
      fi
      imds_reason="$imds_reason; not an Azure VM, or the metadata service is blocked"
    fi
    rm -f "$imds_tmp"
  fi
  rm -f "$imds_tmp.err"
fi

# The capture: N one-second intervals after iostat's first (since boot) report.
reports=$((seconds + 1))
echo "collect-linux.sh: capturing disk statistics for $seconds s into $bundle ..." >&2
if iostat -o JSON 1 1 >/dev/null 2>&1; then
  capture iostat.json $((seconds + 30)) iostat -xt -o JSON 1 "$reports"
else
  # sysstat before 11.5 has no JSON output; advisor reads the text as well.
  capture iostat.txt $((seconds + 30)) iostat -xt 1 "$reports"
fi
end=$(utc_now)

files=()
for f in "$bundle"/*; do
  files+=("$(json_str "$(basename "$f")")")
done
files+=('"manifest.json"')

{
  printf '{\n'
  printf '  "collector": %s,\n' "$(json_str "$COLLECTOR")"
  printf '  "collector_version": %s,\n' "$(json_str "$COLLECTOR_VERSION")"
  printf '  "host": %s,\n' "$(json_str "$host")"
  printf '  "os": "linux",\n'
  printf '  "kernel": %s,\n' "$(json_str "$kernel")"
  printf '  "sysstat": %s,\n' "$(json_str "$sysstat_version")"
  printf '  "seconds": %s,\n' "$seconds"
  printf '  "interval_s": 1,\n'
  printf '  "start": %s,\n' "$(json_str "$start")"
  printf '  "end": %s,\n' "$(json_str "$end")"
  printf '  "imds": {"answered": %s, "skipped": %s' "$imds_answered" "$imds_skipped"
  if [ "$imds_skipped" = false ]; then
    printf ', "url": %s' "$(json_str "$imds_url")"
  fi
  printf ', "command": %s' "$(json_str "$imds_how")"
  if [ "$imds_answered" = false ]; then
    printf ', "reason": %s' "$(json_str "$imds_reason")"
  fi
  printf '},\n'
  printf '  "dev_disk_azure": %s,\n' "$(json_str "$azure_links")"
  printf '  "commands": [\n    %s\n  ],\n' "$(
    IFS=$'\n'
    printf '%s' "${commands[*]}" | sed '2,$s/^/    /' | sed '$!s/$/,/'
  )"
  printf '  "files": [%s]\n' "$(
    IFS=,
    printf '%s' "${files[*]}"
  )"
  printf '}\n'
} >"$bundle/manifest.json"

if [ "$archive" -eq 1 ]; then
  if ! tar -czf "$bundle.tar.gz" -C "$out_dir" "$name"; then
    echo "collect-linux.sh: could not write $bundle.tar.gz; the folder $bundle is complete" >&2
    exit 1
  fi
  echo "collect-linux.sh: wrote $bundle.tar.gz ($(du -k "$bundle.tar.gz" | cut -f1) KiB); attach it to the ticket" >&2
else
  echo "collect-linux.sh: wrote $bundle" >&2
fi
if [ "$imds_answered" = false ] && [ "$imds_skipped" = false ]; then
  echo "collect-linux.sh: note: $imds_reason" >&2
fi
if [ "$failed" -ne 0 ]; then
  echo "collect-linux.sh: a command failed; see manifest.json and the .stderr files in $bundle" >&2
  exit 1
fi
exit 0
