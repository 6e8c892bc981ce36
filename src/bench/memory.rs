//! Peak memory of a process: the most resident memory (RSS) it has held, as `/usr/bin/time`'s
//! "Maximum resident set size" reports it. On a CPU adapter (lavapipe) this includes the GPU's
//! buffers and textures, which live in the process's own memory.

/// Peak resident set size of this process in bytes so far: `VmHWM` of /proc/self/status on
/// Linux, `getrusage` elsewhere on unix; None where neither is known.
pub fn peak_rss_bytes() -> Option<u64> {
    #[cfg(target_os = "linux")]
    if let Some(bytes) = std::fs::read_to_string("/proc/self/status").ok().as_deref().and_then(vm_hwm_bytes) {
        return Some(bytes);
    }
    rusage_max_rss_bytes(Who::SelfProcess)
}

/// The largest peak resident set size in bytes among the child processes this process has
/// waited for (`getrusage(RUSAGE_CHILDREN)`); None where unknown or before any child was waited for.
pub fn children_peak_rss_bytes() -> Option<u64> {
    rusage_max_rss_bytes(Who::Children).filter(|&bytes| bytes > 0)
}

/// Bytes in a mebibyte, for printing peak memory.
pub const BYTES_PER_MIB: u64 = 1 << 20;

/// The line a command prints about its peak memory: "peak memory: N MiB resident" (what
/// `bench`'s summary shows; `shot` can print `describe_peak_rss(peak_rss_bytes())` on stderr).
pub fn describe_peak_rss(peak_rss_bytes: Option<u64>) -> String {
    match peak_rss_bytes {
        Some(bytes) => format!("peak memory: {:.0} MiB resident", bytes as f64 / BYTES_PER_MIB as f64),
        None => "peak memory: unknown on this platform".to_string(),
    }
}

/// The `VmHWM` line of a /proc/<pid>/status text, in bytes.
pub fn vm_hwm_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|line| line.strip_prefix("VmHWM:"))?;
    let mut words = line.split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    (words.next()? == "kB").then_some(value * 1024)
}

/// Whose resources `getrusage` reports.
#[cfg_attr(not(unix), allow(dead_code))]
enum Who {
    SelfProcess,
    Children,
}

#[cfg(unix)]
fn rusage_max_rss_bytes(who: Who) -> Option<u64> {
    let who = match who {
        Who::SelfProcess => libc::RUSAGE_SELF,
        Who::Children => libc::RUSAGE_CHILDREN,
    };
    // SAFETY: getrusage only writes the rusage struct it is given, which is plain data.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::getrusage(who, &mut usage) == 0).then_some(usage)
    }?;
    let max_rss = u64::try_from(usage.ru_maxrss).ok()?;
    // macOS and iOS report bytes; Linux and the BSDs kilobytes.
    Some(if cfg!(target_vendor = "apple") { max_rss } else { max_rss * 1024 })
}

#[cfg(not(unix))]
fn rusage_max_rss_bytes(_who: Who) -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vm_hwm_is_read_in_bytes() {
        let status = "Name:\tbisector\nVmPeak:\t  500 kB\nVmHWM:\t   12345 kB\nVmRSS:\t 100 kB\n";
        assert_eq!(vm_hwm_bytes(status), Some(12345 * 1024));
        assert_eq!(vm_hwm_bytes("Name:\tzombie\n"), None);
        assert_eq!(vm_hwm_bytes("VmHWM:\t12 MB\n"), None);
    }

    #[test]
    fn peak_memory_is_described_in_mib() {
        assert_eq!(describe_peak_rss(Some(1536 << 10)), "peak memory: 2 MiB resident");
        assert_eq!(describe_peak_rss(Some(734 << 20)), "peak memory: 734 MiB resident");
        assert_eq!(describe_peak_rss(None), "peak memory: unknown on this platform");
    }

    #[test]
    fn this_process_has_a_peak_at_least_as_large_as_what_it_holds() {
        let held = std::hint::black_box(vec![1u8; 64 << 20]);
        let peak = peak_rss_bytes().expect("peak memory is known on this platform");
        assert!(peak >= 64 << 20, "peak {peak} bytes while holding {} bytes", held.len());
        // getrusage agrees with VmHWM within rounding (both count the same pages).
        let rusage = rusage_max_rss_bytes(Who::SelfProcess).unwrap();
        assert!(rusage >= 64 << 20, "{rusage}");
        drop(held);
    }
}
