//! Longest-edge bisection: the CPU twin, the LOD criterion, the conformity check, the GPU
//! passes leb.split / leb.merge (update) and leb.decode, base meshes and the octahedral map of the
//! unit square onto the sphere. Knows nothing of rendering.

pub mod base_mesh;
pub mod bounds;
pub mod conformity;
pub mod cpu;
pub mod decode;
pub mod lod;
pub mod node64;
pub mod octahedral;
pub mod split_nodes;
pub mod update;
