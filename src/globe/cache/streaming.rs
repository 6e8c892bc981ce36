//! Streaming: background loader threads that call `TileProducer::produce` and hand the heights
//! back over a channel. The frame never waits on them: it sends keys (`request`), and drains
//! what has finished (`finished`, non-blocking); the cache then uploads at most its per-frame
//! budget of tiles. std threads and `std::sync::mpsc` (no crossbeam or rayon in Cargo.toml): the
//! job channel's receiver is shared by the workers behind a mutex, held only to take a key.
//!
//! Dropping `Streaming` closes the job channel; the workers finish their current tile and exit.

use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::tile_key::TileKey;
use super::tile_producer::TileProducer;
use crate::terrain::TerrainError;

/// A finished load: the key and its heights, or why it failed.
/// A tile's heights and how many of its cells the data's samples are apart (`TileProducer::native_cells`).
pub type LoadResult = (TileKey, Result<(Vec<f32>, f32), TerrainError>);

/// Loader threads over one producer.
pub struct Streaming {
    jobs: Option<Sender<TileKey>>,
    results: Receiver<LoadResult>,
    workers: Vec<JoinHandle<()>>,
    /// Keys sent and not yet returned by `finished`.
    pending: usize,
}

impl Streaming {
    /// `threads` (at least 1) loader threads calling `producer`.
    pub fn new(producer: Arc<dyn TileProducer>, threads: usize) -> Streaming {
        let (jobs, job_rx) = channel::<TileKey>();
        let (result_tx, results) = channel::<LoadResult>();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let workers = (0..threads.max(1))
            .map(|i| {
                let (job_rx, result_tx, producer) = (job_rx.clone(), result_tx.clone(), producer.clone());
                std::thread::Builder::new()
                    .name(format!("cache.loader.{i}"))
                    .spawn(move || loop {
                        // The lock is released before producing.
                        let key = match job_rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        let Ok(key) = key else { return };
                        let heights = producer.produce(key).and_then(|h| Ok((h, producer.native_cells(key)?)));
                        if result_tx.send((key, heights)).is_err() {
                            return;
                        }
                    })
                    .expect("spawning a loader thread")
            })
            .collect();
        Streaming { jobs: Some(jobs), results, workers, pending: 0 }
    }

    /// Queues `key` for a loader thread.
    pub fn request(&mut self, key: TileKey) {
        if let Some(jobs) = &self.jobs {
            if jobs.send(key).is_ok() {
                self.pending += 1;
            }
        }
    }

    /// Keys requested whose result has not been taken yet.
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// The loads finished since the last call, without waiting.
    pub fn finished(&mut self) -> Vec<LoadResult> {
        let mut out = Vec::new();
        loop {
            match self.results.try_recv() {
                Ok(result) => {
                    self.pending -= 1;
                    out.push(result);
                }
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return out,
            }
        }
    }
}

impl Drop for Streaming {
    fn drop(&mut self) {
        self.jobs = None;
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}
