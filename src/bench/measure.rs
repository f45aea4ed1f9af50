//! What every phase measures with: the CPU-time clocks of this process and of its children, the
//! CPU placement (allowed CPUs, pinning), and the quantile every figure is reported as.

/// CPU time of this process (every thread, user + system), µs.
pub(super) fn process_cpu_us() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as f64 * 1e6 + t.tv_nsec as f64 / 1e3
}

/// CPU time (user + system) of this process's reaped children, µs, from /proc/self/stat (clock
/// ticks, 100 a second on Linux). 0 when it cannot be read.
pub(super) fn children_cpu_us() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) start at field 3, the state.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    ticks as f64 * 1e4
}

pub(super) fn pin(pid: Option<rustix::process::Pid>, cpu: usize) -> std::io::Result<()> {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(pid, &set).map_err(std::io::Error::from)
}

/// The `p` quantile (0..=1, nearest rank) of `values`; 0 when there are none.
pub(super) fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
