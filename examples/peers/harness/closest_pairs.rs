//! Closest pairs beside kiddo's k-d tree (all cores) and, where Python has it, scipy's cKDTree
//! (`workers=-1`, run in a child process on the same points written to raw f32 files).

use std::process::Command;

use kiddo::{ImmutableKdTree, SquaredEuclidean};
use rayon::prelude::*;

use bisector::gpu::Gpu;
use bisector_kernels::closest_pairs::{self as cp, ClosestPairs, ClosestPairsInput, ClosestPairsOptions, Nearest, Pair, Point};
use bisector_kernels::Kernel;

use super::{cpu_threads, timed, Options, PeersError, Row};

/// The scipy peer's script, carried inside the binary and written to a temporary directory.
pub const SCIPY_SCRIPT: &str = include_str!("../../../scripts/peers_ckdtree.py");

/// Candidates the scipy script returns beyond the 100 (re-ranked here with the kernel's f32
/// distance, so that f64 rounding cannot swap the last pairs).
const SCIPY_EXTRA: usize = 28;

/// The rows of one distribution: the GPU grid version, kiddo, scipy.
pub fn rows(options: &Options) -> Result<Vec<Row>, PeersError> {
    let mut rows = Vec::new();
    for name in &options.sizes.cp_distributions {
        let distribution = match name.as_str() {
            "uniform" => cp::Distribution::Uniform,
            "clustered" => cp::Distribution::Clustered,
            other => return Err(PeersError::Input(format!("--cp-distributions: '{other}' is not uniform or clustered"))),
        };
        rows.extend(distribution_rows(options, distribution)?);
    }
    Ok(rows)
}

fn distribution_rows(options: &Options, distribution: cp::Distribution) -> Result<Vec<Row>, PeersError> {
    let (m, n) = (options.sizes.cp_a_points, options.sizes.cp_b_points);
    let armies = cp::make_armies(m, n, distribution, options.seed);
    let input = ClosestPairsInput { armies, options: ClosestPairsOptions { variant: cp::Variant::Grid, iterations: options.iterations } };
    let gpu = Gpu::headless(&ClosestPairs::requirements(&input))?;
    let report = ClosestPairs::run(&gpu, &input)?;
    let armies = &input.armies;
    let label = format!("{m} x {n} {}", armies.source);
    let gpu_times = (report.gpu_ms, report.end_to_end_ms);
    let gpu_pairs = &report.pairs;
    let last = gpu_pairs.last().map_or(0.0, |p| p.distance);

    let (kiddo, kiddo_ms) = timed(options.peer_repeats, || kiddo_top_pairs(&armies.a, &armies.b));
    let row = Row::new("closest-pairs", label.clone(), gpu_times, &format!("kiddo k-d tree, {} threads", cpu_threads()), Some(kiddo_ms));
    let gpu_ok = if report.verified { "" } else { "; GPU differs from its CPU reference" };
    let mut rows = vec![match kiddo {
        Err(why) => row.checked(false, why),
        Ok((pairs, build_ms)) => {
            let (agree, note) = compare_pairs(gpu_pairs, &pairs);
            row.checked(agree && report.verified, format!("100 pairs {note}; 100th at {last:.3}; tree built in {build_ms:.1} ms{gpu_ok}"))
        }
    }];

    let scipy_peer = "scipy cKDTree, workers=-1";
    rows.push(match &options.python {
        None => Row::new("closest-pairs", label, gpu_times, scipy_peer, None).skipped("scipy not run (--no-scipy)"),
        Some(python) => match scipy_top_pairs(python, &armies.a, &armies.b, options.peer_repeats) {
            Err(why) => Row::new("closest-pairs", label, gpu_times, scipy_peer, None).skipped(&why),
            Ok((pairs, ms, build_ms, version)) => {
                let (agree, note) = compare_pairs(gpu_pairs, &pairs);
                let peer = format!("scipy {version} cKDTree, workers=-1");
                let note =
                    format!("100 pairs {note} (child process; build + query, measured in Python; tree built in {build_ms:.1} ms){gpu_ok}");
                Row::new("closest-pairs", label, gpu_times, &peer, Some(ms)).checked(agree && report.verified, note)
            }
        },
    });
    Ok(rows)
}

/// kiddo's answer: an immutable k-d tree over B built on all cores, every A's nearest B (a batch
/// query, all cores), then the 100 closest with the kernel's own f32 distance and order; and the
/// milliseconds the tree took to build.
pub fn kiddo_top_pairs(a: &[Point], b: &[Point]) -> Result<(Vec<Pair>, f64), String> {
    let start = std::time::Instant::now();
    let tree: ImmutableKdTree<f32, 3> = ImmutableKdTree::new_from_slice_parallel(b).map_err(|e| format!("kiddo: {e:?}"))?;
    let build_ms = start.elapsed().as_secs_f64() * 1e3;
    let found = tree.query_batch(a).nearest_one::<SquaredEuclidean<f32>>().execute();
    let nearest: Vec<Nearest> = found
        .par_iter()
        .zip(a.par_iter())
        .map(|(hit, &p)| Nearest { d2_bits: cp::distance2(p, b[hit.item as usize]).to_bits(), b: hit.item })
        .collect();
    Ok((cp::top_pairs(&nearest, cp::TOP_PAIRS), build_ms))
}

/// Whether two lists of 100 pairs are the same (A, B and the distance's bits, in order), and
/// where they first differ.
pub fn compare_pairs(gpu: &[Pair], peer: &[Pair]) -> (bool, String) {
    let key = |p: &Pair| (p.a, p.b, p.d2_bits);
    if gpu.len() != peer.len() {
        return (false, format!("differ: {} pairs against {}", gpu.len(), peer.len()));
    }
    match gpu.iter().zip(peer).position(|(g, p)| key(g) != key(p)) {
        None => (true, "equal (A, B, f32 distance)".into()),
        Some(i) => (
            false,
            format!(
                "differ at #{}: GPU A {} B {} {:.4}, peer A {} B {} {:.4}",
                i + 1,
                gpu[i].a,
                gpu[i].b,
                gpu[i].distance,
                peer[i].a,
                peer[i].b,
                peer[i].distance
            ),
        ),
    }
}

/// The scipy peer's output.
#[derive(serde::Deserialize)]
struct ScipyAnswer {
    scipy: String,
    /// Milliseconds of each repeat's tree build + query, and of its build alone.
    ms: Vec<f64>,
    build_ms: Vec<f64>,
    a: Vec<u32>,
    b: Vec<u32>,
}

/// scipy's answer through `python`, or why it did not run: (pairs, median ms, median build ms,
/// scipy version).
fn scipy_top_pairs(python: &str, a: &[Point], b: &[Point], repeats: u32) -> Result<(Vec<Pair>, f64, f64, String), String> {
    let probe = Command::new(python).args(["-c", "import numpy, scipy.spatial"]).output();
    match probe {
        Err(e) => return Err(format!("scipy absent: '{python}' did not start ({e})")),
        Ok(out) if !out.status.success() => {
            let why = String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("").to_string();
            return Err(format!("scipy absent: {python} -c 'import numpy, scipy.spatial' failed ({why})"));
        }
        Ok(_) => {}
    }
    let dir = tempfile::tempdir().map_err(|e| format!("scipy not run: no temporary directory ({e})"))?;
    let write = |name: &str, points: &[Point]| -> Result<String, String> {
        let path = dir.path().join(name);
        std::fs::write(&path, bytemuck::cast_slice::<Point, u8>(points)).map_err(|e| format!("scipy not run: {}: {e}", path.display()))?;
        Ok(path.display().to_string())
    };
    let (a_path, b_path) = (write("a.f32", a)?, write("b.f32", b)?);
    let script = dir.path().join("peers_ckdtree.py");
    std::fs::write(&script, SCIPY_SCRIPT).map_err(|e| format!("scipy not run: {}: {e}", script.display()))?;
    let k = (cp::TOP_PAIRS + SCIPY_EXTRA).to_string();
    let out = Command::new(python)
        .arg(&script)
        .args([&a_path, &b_path, &k, &repeats.max(1).to_string()])
        .output()
        .map_err(|e| format!("scipy not run: {e}"))?;
    if !out.status.success() {
        return Err(format!("scipy failed: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let answer: ScipyAnswer = serde_json::from_slice(&out.stdout).map_err(|e| format!("scipy's output is not the expected JSON ({e})"))?;
    let median = |ms: &[f64]| {
        let mut ms = ms.to_vec();
        ms.sort_by(f64::total_cmp);
        ms.get(ms.len() / 2).copied().unwrap_or(f64::NAN)
    };
    rank_scipy(&answer, a, b).map(|pairs| (pairs, median(&answer.ms), median(&answer.build_ms), answer.scipy.clone()))
}

/// scipy's candidates re-ranked with the kernel's f32 distance and order: the 100 closest.
fn rank_scipy(answer: &ScipyAnswer, a: &[Point], b: &[Point]) -> Result<Vec<Pair>, String> {
    let mut nearest = vec![Nearest { d2_bits: u32::MAX, b: u32::MAX }; a.len()];
    for (&ai, &bi) in answer.a.iter().zip(&answer.b) {
        let (Some(&p), Some(&q)) = (a.get(ai as usize), b.get(bi as usize)) else {
            return Err(format!("scipy returned A {ai} B {bi}, outside the armies"));
        };
        nearest[ai as usize] = Nearest { d2_bits: cp::distance2(p, q).to_bits(), b: bi };
    }
    let mut pairs = cp::top_pairs(&nearest, cp::TOP_PAIRS.min(answer.a.len()));
    pairs.retain(|p| p.b != u32::MAX);
    Ok(pairs)
}
