//! CPU twin of the concurrent binary tree: the bit-packed sum-reduction heap of Dupuy 2020 / seed 004.
//!
//! ```text
//! heap of 2^(D+2) bits for max depth D (stored as 2^(D-3) little-endian u32 words)
//!   bits [0, D+3)            word 0 holds the value 2^D (max depth marker), as in libcbt
//!   node k at depth d        (2^d <= k < 2^(d+1)) stores the number of leaves under it
//!                            in D-d+1 bits at bit offset 2^(d+1) + k*(D-d+1)
//!   depth D                  1-bit fields: the leaf bitfield
//! A leaf at depth d is represented by the bitfield bit of its leftmost depth-D descendant.
//! split(k)  = set the bitfield bit of k's right child 2k+1   (k becomes two leaves)
//! merge(k)  = clear that bit                                  (k's two leaf children become k)
//! reduce    = rebuild every count bottom-up from the bitfield
//! decode(i) = walk from the root to the i-th leaf in O(D), going left when i < count(left)
//! ```
//! The GPU version (`shaders/shared/cbt.wgsl`, `cbt::gpu`) mirrors these functions one by one.

/// Smallest supported max depth: every level the reduction writes word-wise must start on a
/// 32-bit boundary, which holds for D >= 5.
pub const MIN_MAX_DEPTH: u32 = 5;
/// Largest supported max depth: bit offsets must fit in a u32 (2^(D+2) <= 2^31).
pub const MAX_MAX_DEPTH: u32 = 29;

/// A node of the tree: its heap index (`id`, 1 = root) and its depth (`id` has `depth + 1` bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node {
    pub id: u32,
    pub depth: u32,
}

impl Node {
    /// The root node (heap index 1, depth 0).
    pub const ROOT: Node = Node { id: 1, depth: 0 };

    /// Builds a node from its heap index alone (depth = position of the highest set bit).
    pub fn from_id(id: u32) -> Node {
        debug_assert!(id > 0);
        Node { id, depth: 31 - id.leading_zeros() }
    }
    /// Left child (heap index 2k).
    pub fn left_child(self) -> Node {
        Node { id: self.id << 1, depth: self.depth + 1 }
    }
    /// Right child (heap index 2k+1).
    pub fn right_child(self) -> Node {
        Node { id: (self.id << 1) | 1, depth: self.depth + 1 }
    }
    /// Parent (heap index k/2).
    pub fn parent(self) -> Node {
        Node { id: self.id >> 1, depth: self.depth - 1 }
    }
    /// The sibling that shares this node's parent.
    pub fn sibling(self) -> Node {
        Node { id: self.id ^ 1, depth: self.depth }
    }
}

/// Bit offset of node `node`'s count field in a heap of max depth `max_depth`.
pub fn node_bit_offset(max_depth: u32, node: Node) -> u64 {
    (2u64 << node.depth) + node.id as u64 * (max_depth - node.depth + 1) as u64
}

/// Width in bits of the count field of a node at `depth`.
pub fn node_bit_width(max_depth: u32, depth: u32) -> u32 {
    max_depth - depth + 1
}

/// Number of u32 words of the heap for `max_depth` (2^(D+2) bits).
pub fn heap_word_count(max_depth: u32) -> usize {
    1usize << (max_depth - 3)
}

/// Heap size in bytes for `max_depth`.
pub fn heap_size_bytes(max_depth: u32) -> u64 {
    1u64 << (max_depth - 1)
}

/// The bitfield (depth-D) node that stands for `node` while it is a leaf: its leftmost descendant.
pub fn ceil_node(max_depth: u32, node: Node) -> Node {
    Node { id: node.id << (max_depth - node.depth), depth: max_depth }
}

/// CPU concurrent binary tree with the exact memory layout of the GPU one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cbt {
    max_depth: u32,
    heap: Vec<u32>,
}

impl Cbt {
    /// A tree of max depth `max_depth` whose leaves are all nodes at `init_depth`, reduced.
    pub fn new(max_depth: u32, init_depth: u32) -> Cbt {
        assert!((MIN_MAX_DEPTH..=MAX_MAX_DEPTH).contains(&max_depth), "max depth {max_depth} outside {MIN_MAX_DEPTH}..={MAX_MAX_DEPTH}");
        assert!(init_depth <= max_depth);
        let mut cbt = Cbt { max_depth, heap: vec![0; heap_word_count(max_depth)] };
        cbt.heap[0] = 1 << max_depth;
        for id in (1u32 << init_depth)..(2u32 << init_depth) {
            cbt.set_bitfield_bit(ceil_node(max_depth, Node { id, depth: init_depth }), true);
        }
        cbt.reduce();
        cbt
    }

    /// Builds a tree from raw heap words (e.g. read back from the GPU).
    pub fn from_heap(heap: Vec<u32>) -> Cbt {
        let max_depth = heap[0].trailing_zeros();
        assert_eq!(heap.len(), heap_word_count(max_depth));
        Cbt { max_depth, heap }
    }

    /// Max depth D.
    pub fn max_depth(&self) -> u32 {
        self.max_depth
    }
    /// The raw heap words.
    pub fn heap(&self) -> &[u32] {
        &self.heap
    }

    /// Reads node `node`'s count field.
    pub fn heap_read(&self, node: Node) -> u32 {
        let offset = node_bit_offset(self.max_depth, node);
        read_bits(&self.heap, offset, node_bit_width(self.max_depth, node.depth))
    }

    fn heap_write(&mut self, node: Node, value: u32) {
        let offset = node_bit_offset(self.max_depth, node);
        write_bits(&mut self.heap, offset, node_bit_width(self.max_depth, node.depth), value);
    }

    fn set_bitfield_bit(&mut self, bit_node: Node, value: bool) {
        debug_assert_eq!(bit_node.depth, self.max_depth);
        let offset = node_bit_offset(self.max_depth, bit_node);
        let (word, bit) = ((offset / 32) as usize, offset % 32);
        if value {
            self.heap[word] |= 1 << bit;
        } else {
            self.heap[word] &= !(1 << bit);
        }
    }

    /// Number of leaves (the root's count). Valid after `reduce`.
    pub fn node_count(&self) -> u32 {
        self.heap_read(Node::ROOT)
    }

    /// True when `node` is a leaf (count 1). Valid after `reduce`.
    pub fn is_leaf(&self, node: Node) -> bool {
        self.heap_read(node) == 1
    }

    /// True when `node` is at max depth and cannot be split.
    pub fn is_ceil_node(&self, node: Node) -> bool {
        node.depth == self.max_depth
    }

    /// Splits `node` into two leaves: sets the bitfield bit of its right child. No-op at max depth.
    pub fn split(&mut self, node: Node) {
        if !self.is_ceil_node(node) {
            self.set_bitfield_bit(ceil_node(self.max_depth, node.right_child()), true);
        }
    }

    /// Merges `node`'s two children back into `node`: clears the bitfield bit of its right child.
    pub fn merge(&mut self, node: Node) {
        if !self.is_ceil_node(node) {
            self.set_bitfield_bit(ceil_node(self.max_depth, node.right_child()), false);
        }
    }

    /// Rebuilds every count from the bitfield, bottom-up.
    pub fn reduce(&mut self) {
        for depth in (0..self.max_depth).rev() {
            for id in (1u32 << depth)..(2u32 << depth) {
                let node = Node { id, depth };
                let sum = self.heap_read(node.left_child()) + self.heap_read(node.right_child());
                self.heap_write(node, sum);
            }
        }
    }

    /// The `leaf_index`-th leaf in left-to-right order (`leaf_index < node_count()`).
    pub fn decode_node(&self, mut leaf_index: u32) -> Node {
        let mut node = Node::ROOT;
        while self.heap_read(node) > 1 {
            let left_count = self.heap_read(node.left_child());
            if leaf_index < left_count {
                node = node.left_child();
            } else {
                leaf_index -= left_count;
                node = node.right_child();
            }
        }
        node
    }

    /// The leaf index of leaf `node` (inverse of `decode_node`).
    pub fn encode_node(&self, node: Node) -> u32 {
        let mut leaf_index = 0;
        let mut current = node;
        while current.id > 1 {
            if current.id & 1 == 1 {
                leaf_index += self.heap_read(current.sibling());
            }
            current = current.parent();
        }
        leaf_index
    }

    /// All leaves in left-to-right order.
    pub fn leaves(&self) -> Vec<Node> {
        (0..self.node_count()).map(|i| self.decode_node(i)).collect()
    }

    /// Number of set bits in the leaf bitfield (equals `node_count` after `reduce`).
    pub fn bitfield_popcount(&self) -> u32 {
        let first_word = 3usize << (self.max_depth - 5);
        self.heap[first_word..].iter().map(|w| w.count_ones()).sum()
    }
}

/// Pool mode, the bisector pool's allocator (issue 15, docs/design/bisector-pool.md): bit `slot`
/// of the bitfield marks slot `slot` of a pool of 2^D slots as used, and after `reduce` every
/// node counts the used slots under it, so the walk from the root finds the i-th used slot, and
/// the same walk over the complement (capacity minus count) the i-th free one.
impl Cbt {
    /// An empty pool of 2^`max_depth` slots, reduced.
    pub fn new_pool(max_depth: u32) -> Cbt {
        assert!((MIN_MAX_DEPTH..=MAX_MAX_DEPTH).contains(&max_depth), "max depth {max_depth} outside {MIN_MAX_DEPTH}..={MAX_MAX_DEPTH}");
        let mut cbt = Cbt { max_depth, heap: vec![0; heap_word_count(max_depth)] };
        cbt.heap[0] = 1 << max_depth;
        cbt.reduce();
        cbt
    }

    /// Slots of the pool: 2^D.
    pub fn slot_count(&self) -> u32 {
        1 << self.max_depth
    }

    fn slot_node(&self, slot: u32) -> Node {
        assert!(slot < self.slot_count(), "slot {slot} outside a pool of {}", self.slot_count());
        Node { id: (1 << self.max_depth) + slot, depth: self.max_depth }
    }

    /// Whether `slot` is in use (its bitfield bit; needs no reduction).
    pub fn is_slot_used(&self, slot: u32) -> bool {
        self.heap_read(self.slot_node(slot)) == 1
    }

    /// Marks `slot` used or free (the counts are valid again after `reduce`).
    pub fn set_slot_used(&mut self, slot: u32, used: bool) {
        self.set_bitfield_bit(self.slot_node(slot), used);
    }

    /// The slot of the `index`-th used slot in slot order (`index < node_count()`; after `reduce`).
    pub fn decode_used_slot(&self, index: u32) -> u32 {
        self.decode_slot(index, false)
    }

    /// The slot of the `index`-th free slot in slot order (`index < slot_count() - node_count()`;
    /// after `reduce`).
    pub fn decode_free_slot(&self, index: u32) -> u32 {
        self.decode_slot(index, true)
    }

    fn decode_slot(&self, mut index: u32, free: bool) -> u32 {
        let mut node = Node::ROOT;
        while node.depth < self.max_depth {
            let left = node.left_child();
            let used = self.heap_read(left);
            let count = if free { (1 << (self.max_depth - left.depth)) - used } else { used };
            if index < count {
                node = left;
            } else {
                index -= count;
                node = node.right_child();
            }
        }
        node.id - (1 << self.max_depth)
    }
}

/// Reads `width` (<= 32) bits at bit `offset` of `words`.
fn read_bits(words: &[u32], offset: u64, width: u32) -> u32 {
    let (word, shift) = ((offset / 32) as usize, (offset % 32) as u32);
    let wide = words[word] as u64 | (words.get(word + 1).copied().unwrap_or(0) as u64) << 32;
    ((wide >> shift) & ((1u64 << width) - 1)) as u32
}

/// Writes `value` into `width` (<= 32) bits at bit `offset` of `words`.
fn write_bits(words: &mut [u32], offset: u64, width: u32, value: u32) {
    let (word, shift) = ((offset / 32) as usize, (offset % 32) as u32);
    let mask = ((1u64 << width) - 1) << shift;
    let bits = (value as u64) << shift & mask;
    words[word] = (words[word] & !(mask as u32)) | bits as u32;
    if shift + width > 32 {
        words[word + 1] = (words[word + 1] & !((mask >> 32) as u32)) | (bits >> 32) as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pool mode: on random bitfields, the walks find every used and every free slot in order.
    #[test]
    fn pool_mode_finds_the_ith_used_and_free_slot() {
        use rand::{Rng, SeedableRng};
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for max_depth in [5, 6, 9, 12, 16] {
            let mut pool = Cbt::new_pool(max_depth);
            assert_eq!(pool.node_count(), 0);
            let fill = rng.random_range(0.0..=1.0);
            let used: Vec<bool> = (0..pool.slot_count()).map(|_| rng.random_bool(fill)).collect();
            for (slot, &u) in used.iter().enumerate() {
                pool.set_slot_used(slot as u32, u);
            }
            pool.reduce();
            let (used_slots, free_slots): (Vec<u32>, Vec<u32>) = (0..pool.slot_count()).partition(|&s| used[s as usize]);
            assert_eq!(pool.node_count() as usize, used_slots.len(), "seed {seed} D {max_depth}");
            for (i, &slot) in used_slots.iter().enumerate() {
                assert_eq!(pool.decode_used_slot(i as u32), slot, "seed {seed} D {max_depth}: used slot {i}");
                assert!(pool.is_slot_used(slot));
            }
            for (i, &slot) in free_slots.iter().enumerate() {
                assert_eq!(pool.decode_free_slot(i as u32), slot, "seed {seed} D {max_depth}: free slot {i}");
                assert!(!pool.is_slot_used(slot));
            }
        }
    }

    /// Random split/merge sequence on a tree of max depth `max_depth`, driven by `choices`.
    fn random_tree(max_depth: u32, choices: &[(bool, u32)]) -> Cbt {
        let mut cbt = Cbt::new(max_depth, 1);
        for &(split, pick) in choices {
            let leaves = cbt.leaves();
            let node = leaves[pick as usize % leaves.len()];
            if split {
                cbt.split(node);
            } else if node.depth > 1 && cbt.is_leaf(node.sibling()) {
                cbt.merge(node.parent());
            }
            cbt.reduce();
        }
        cbt
    }

    #[test]
    fn heap_sizes_match_the_paper() {
        assert_eq!(heap_size_bytes(20), 512 * 1024);
        assert_eq!(heap_size_bytes(28), 128 * 1024 * 1024);
        assert_eq!(Cbt::new(5, 0).heap().len(), 4);
    }

    #[test]
    fn new_tree_has_all_nodes_of_init_depth() {
        let cbt = Cbt::new(8, 3);
        assert_eq!(cbt.node_count(), 8);
        let ids: Vec<u32> = cbt.leaves().iter().map(|n| n.id).collect();
        assert_eq!(ids, (8..16).collect::<Vec<_>>());
        assert_eq!(cbt.max_depth(), 8);
    }

    #[test]
    fn split_and_merge_are_inverse() {
        let mut cbt = Cbt::new(6, 1);
        let before = cbt.clone();
        cbt.split(Node { id: 3, depth: 1 });
        cbt.reduce();
        assert_eq!(cbt.node_count(), 3);
        assert_eq!(cbt.leaves(), vec![Node::from_id(2), Node::from_id(6), Node::from_id(7)]);
        cbt.merge(Node { id: 3, depth: 1 });
        cbt.reduce();
        assert_eq!(cbt, before);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn reduction_invariants(max_depth in 5u32..11, choices in prop::collection::vec((any::<bool>(), any::<u32>()), 0..60)) {
            let cbt = random_tree(max_depth, &choices);
            // Every internal count is the sum of its children; the root equals the popcount.
            for depth in 0..max_depth {
                for id in (1u32 << depth)..(2u32 << depth) {
                    let node = Node { id, depth };
                    prop_assert_eq!(cbt.heap_read(node), cbt.heap_read(node.left_child()) + cbt.heap_read(node.right_child()));
                }
            }
            prop_assert_eq!(cbt.node_count(), cbt.bitfield_popcount());
        }

        #[test]
        fn encode_decode_round_trip(max_depth in 5u32..11, choices in prop::collection::vec((any::<bool>(), any::<u32>()), 0..60)) {
            let cbt = random_tree(max_depth, &choices);
            let leaves = cbt.leaves();
            for (i, node) in leaves.iter().enumerate() {
                prop_assert!(cbt.is_leaf(*node));
                prop_assert_eq!(cbt.encode_node(*node), i as u32);
            }
            // Leaves tile the unit interval: their dyadic spans add up to 2^D.
            let span: u64 = leaves.iter().map(|n| 1u64 << (max_depth - n.depth)).sum();
            prop_assert_eq!(span, 1u64 << max_depth);
        }

        #[test]
        fn bit_fields_round_trip(offset in 0u64..(32 * 63), width in 1u32..31, value in any::<u32>()) {
            let mut words = vec![0xA5A5_A5A5u32; 64];
            let value = value & ((1u32 << width) - 1);
            let before = words.clone();
            write_bits(&mut words, offset, width, value);
            prop_assert_eq!(read_bits(&words, offset, width), value);
            // Bits outside the field are untouched.
            write_bits(&mut words, offset, width, read_bits(&before, offset, width));
            prop_assert_eq!(words, before);
        }
    }
}
