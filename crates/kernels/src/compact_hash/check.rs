//! The checks of a run's results against the CPU reference, by meaning (slot numbers depend on
//! the order of the insertions): what each reference decodes to, new against seen, what is stored.

use super::*;

/// What is wrong with a table's results (the GPU's or the all-cores CPU twin's).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("{marked} slots are marked as roots, but {returned} roots were returned")]
    RootBits { marked: usize, returned: usize },
    #[error("node {node:?} is stored twice")]
    NodeTwice { node: (u32, u32) },
    #[error("slot {slot} holds node {node:?}, which no stored vector's tree uses")]
    UnusedNode { slot: usize, node: (u32, u32) },
    #[error("the all-zero node is {}stored, but {}used", not_if(.stored), not_if(.used))]
    ZeroNode { stored: bool, used: bool },
    #[error("uncompressed slot {slot} is claimed but was never marked ready")]
    NotReady { slot: usize },
    #[error("uncompressed slot {slot}: the state word does not match the vector's hash")]
    BadState { slot: usize },
    #[error("{returned} failed findOrPuts returned but {counted} counted")]
    FailedCount { returned: usize, counted: u32 },
    #[error("vector {index} {vector:?}: reference {reference} holds {decoded:?}")]
    WrongVector { index: usize, vector: Vec<u32>, reference: u32, decoded: Option<Vec<u32>> },
    #[error("vector {index}: found again as {again:#x}, not at {reference} and seen")]
    FoundElsewhere { index: usize, again: u32, reference: u32 },
    #[error("{0} vectors were reported new more than once")]
    NewTwice(usize),
    #[error("{reported} vectors reported new, but there are {distinct} distinct vectors")]
    NewCount { reported: usize, distinct: usize },
    #[error("a vector is stored twice")]
    VectorTwice,
    #[error("{stored} vectors stored but {new} reported new")]
    StoredCount { stored: usize, new: u64 },
}

/// "" when `flag`, else "not ".
fn not_if(flag: &bool) -> &'static str {
    if *flag {
        ""
    } else {
        "not "
    }
}

/// Checks a compressed table against the results of findOrPut of `vectors` into it (and of the
/// second pass, when there was one): every root decodes to its vector, no node is stored twice,
/// (without overflow) every stored node belongs to a stored vector's tree, so the table holds
/// exactly the trees of the distinct vectors, and the root bitmap marks exactly the roots. Slot
/// references depend on the order of the insertions, so this compares meanings, not slots.
/// Returns the vectors reported new.
pub fn check_compact_table(
    copy: &TableCopy,
    vectors: &[&[u32]],
    insert: &[u32],
    again: Option<&[u32]>,
    distinct: usize,
    failed_counted: u32,
) -> Result<u64, CheckError> {
    let table = &copy.nodes;
    let length = vectors.first().map_or(1, |v| v.len());
    let mut reached = vec![false; table.len()];
    let mut zero_reached = false;
    let new = check_results(vectors, insert, again, distinct, failed_counted, |root| {
        if length > 2 && !copy.is_root(root) {
            return None;
        }
        decode_visiting(
            root,
            length,
            |r| copy.node(r),
            |r| match reached.get_mut(r as usize) {
                Some(seen) => *seen = true,
                None => zero_reached |= r == ZERO_REFERENCE,
            },
        )
    })?;
    let mut roots: Vec<u32> = insert.iter().filter(|&&r| r != FAILED && length > 2).map(|r| r & REFERENCE_MASK).collect();
    roots.sort_unstable();
    roots.dedup();
    let marked = copy.root_bits.iter().map(|w| w.count_ones() as usize).sum::<usize>() + copy.zero_root as usize;
    if marked != roots.len() {
        return Err(CheckError::RootBits { marked, returned: roots.len() });
    }
    let zero = copy.zero;
    let nodes = sorted_nodes(table);
    if let Some(w) = nodes.windows(2).find(|w| w[0] == w[1]) {
        return Err(CheckError::NodeTwice { node: unpack(w[0]) });
    }
    if !insert.contains(&FAILED) {
        if let Some(slot) = table.iter().zip(&reached).position(|(&n, &r)| n != 0 && !r) {
            return Err(CheckError::UnusedNode { slot, node: unpack(table[slot]) });
        }
        if zero != zero_reached {
            return Err(CheckError::ZeroNode { stored: zero, used: zero_reached });
        }
    }
    Ok(new)
}

/// The vectors a plain copy of an uncompressed table's cells holds, in slot order; Err when a
/// slot is not ready or its state does not match its vector's hash.
pub fn uncompressed_contents(cells: &[u32], length: usize) -> Result<Vec<&[u32]>, CheckError> {
    let mut out = Vec::new();
    for (slot, cell) in cells.chunks(length + 1).enumerate() {
        match cell[0] {
            EMPTY_STATE => {}
            state if state & READY_BIT == 0 => return Err(CheckError::NotReady { slot }),
            state if state == hash_vector(&cell[1..]) | READY_BIT => out.push(&cell[1..]),
            _ => return Err(CheckError::BadState { slot }),
        }
    }
    Ok(out)
}

/// The stored nodes of a plain table, sorted (0 = empty left out).
pub(super) fn sorted_nodes(table: &[u64]) -> Vec<u64> {
    let mut nodes: Vec<u64> = table.iter().copied().filter(|&n| n != 0).collect();
    nodes.sort_unstable();
    nodes
}

/// Checks the results of one table's passes: every reference decodes (`decode`) to its
/// vector, the second pass (if any) finds every vector at the same reference, and the vectors reported new
/// are distinct (their references are: each vector has one root or slot, since the callers also
/// check that nothing is stored twice) and, without overflow, `distinct` (the CPU reference's
/// count) of them. `failed_counted` is what the
/// shader counted in its status word. Returns the vectors reported new.
pub(super) fn check_results(
    vectors: &[&[u32]],
    insert: &[u32],
    again: Option<&[u32]>,
    distinct: usize,
    failed_counted: u32,
    mut decode: impl FnMut(u32) -> Option<Vec<u32>>,
) -> Result<u64, CheckError> {
    let failed = insert.iter().chain(again.unwrap_or_default()).filter(|&&r| r == FAILED).count();
    if failed != failed_counted as usize {
        return Err(CheckError::FailedCount { returned: failed, counted: failed_counted });
    }
    let mut new_references = Vec::new();
    for (i, (&vector, &first)) in vectors.iter().zip(insert).enumerate() {
        if first == FAILED {
            continue;
        }
        let reference = first & REFERENCE_MASK;
        let decoded = decode(reference);
        if decoded.as_deref() != Some(vector) {
            return Err(CheckError::WrongVector { index: i, vector: vector.to_vec(), reference, decoded });
        }
        if let Some(second) = again.map(|a| a[i]).filter(|&a| a != reference) {
            return Err(CheckError::FoundElsewhere { index: i, again: second, reference });
        }
        if first & NEW_BIT != 0 {
            new_references.push(reference);
        }
    }
    let reported = new_references.len();
    new_references.sort_unstable();
    new_references.dedup();
    if new_references.len() != reported {
        return Err(CheckError::NewTwice(reported - new_references.len()));
    }
    if failed == 0 && reported != distinct {
        return Err(CheckError::NewCount { reported, distinct });
    }
    Ok(reported as u64)
}
