//! The decompression of a large GeoTIFF's tiles (`super::cog`): uncompressed, deflate
//! (flate2), LZW (weezl, TIFF's variant), PackBits and ZSTD (ruzstd), each stopped at the tile's
//! size; the compressions it cannot read are named in words.

use std::io::Read;

/// Why a tile's bytes cannot be decompressed, in words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(pub String);

/// The bytes `raw` decompress to under TIFF compression `code`, at most `want` bytes kept.
pub fn decompress(code: u16, raw: &[u8], want: usize) -> Result<Vec<u8>, DecodeError> {
    match code {
        1 => Ok(raw[..want.min(raw.len())].to_vec()),
        8 | 32946 => {
            let mut out = Vec::with_capacity(want);
            flate2::read::ZlibDecoder::new(raw)
                .take(want as u64)
                .read_to_end(&mut out)
                .map_err(|e| DecodeError(format!("cannot be decompressed (deflate: {e})")))?;
            Ok(out)
        }
        5 => {
            let mut out = Vec::with_capacity(want);
            let mut decoder = weezl::decode::Decoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8);
            let mut buf = vec![0u8; want.max(1)];
            let mut input = raw;
            while out.len() < want {
                let result = decoder.decode_bytes(input, &mut buf[..want - out.len()]);
                out.extend_from_slice(&buf[..result.consumed_out]);
                input = &input[result.consumed_in..];
                match result.status {
                    Ok(weezl::LzwStatus::Ok) if result.consumed_in + result.consumed_out > 0 => {}
                    Ok(_) => break,
                    Err(e) => return Err(DecodeError(format!("cannot be decompressed (LZW: {e})"))),
                }
            }
            Ok(out)
        }
        32773 => {
            // PackBits: a count byte n, then n + 1 literal bytes (n < 128) or one byte 257 - n times.
            let (mut out, mut i) = (Vec::with_capacity(want), 0);
            while i < raw.len() && out.len() < want {
                let n = raw[i] as i8;
                i += 1;
                if n >= 0 {
                    let end = (i + n as usize + 1).min(raw.len());
                    out.extend_from_slice(&raw[i..end]);
                    i = end;
                } else if n != -128 {
                    let Some(&b) = raw.get(i) else { break };
                    out.extend(std::iter::repeat_n(b, (1 - n as isize) as usize));
                    i += 1;
                }
            }
            Ok(out)
        }
        ZSTD => {
            let mut out = Vec::with_capacity(want);
            let decoder =
                ruzstd::decoding::StreamingDecoder::new(raw).map_err(|e| DecodeError(format!("cannot be decompressed (ZSTD: {e})")))?;
            decoder.take(want as u64).read_to_end(&mut out).map_err(|e| DecodeError(format!("cannot be decompressed (ZSTD: {e})")))?;
            Ok(out)
        }
        other => Err(DecodeError(format!("compression {} is not supported", compression_name(other)))),
    }
}

/// TIFF's compression code of ZSTD (as GDAL writes it).
pub const ZSTD: u16 = 50000;

/// The compression codes [`decompress`] reads.
pub const SUPPORTED: [u16; 6] = [1, 5, 8, 32946, 32773, ZSTD];

/// A compression code with its name, for messages: `34887 (LERC)`.
pub fn compression_name(code: u16) -> String {
    let name = match code {
        1 => "none",
        2 => "CCITT",
        5 => "LZW",
        6 | 7 => "JPEG",
        8 | 32946 => "deflate",
        32773 => "PackBits",
        34887 => "LERC",
        34925 => "LZMA",
        ZSTD => "ZSTD",
        50001 => "WebP",
        50002 => "JPEG XL",
        _ => "unknown",
    };
    format!("{code} ({name})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packbits_decodes_the_tiff_specification_example() {
        let packed = [0xFE, 0xAA, 0x02, 0x80, 0x00, 0x2A, 0xFD, 0xAA, 0x03, 0x80, 0x00, 0x2A, 0x22, 0xF7, 0xAA];
        let mut want = vec![0xAA, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0x22];
        want.extend([0xAA; 10]);
        assert_eq!(decompress(32773, &packed, 100).unwrap(), want);
        assert_eq!(decompress(32773, &packed, 5).unwrap()[..5], want[..5]);
    }

    #[test]
    fn lzw_and_deflate_round_trip_and_stop_at_the_tile_size() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8 ^ (i / 300) as u8).collect();
        let lzw = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8).encode(&data).unwrap();
        assert_eq!(decompress(5, &lzw, data.len()).unwrap(), data);
        assert_eq!(decompress(5, &lzw, 100).unwrap(), data[..100]);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut z, &data).unwrap();
        let deflated = z.finish().unwrap();
        assert_eq!(decompress(8, &deflated, data.len()).unwrap(), data);
        assert!(decompress(8, b"not zlib at all", 100).is_err());
        assert!(decompress(5, &[0xFF; 40], 100).is_err() || decompress(5, &[0xFF; 40], 100).unwrap().len() < 100);
    }

    #[test]
    fn zstd_round_trips_stops_at_the_tile_size_and_refuses_garbage() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 13 % 241) as u8 ^ (i / 700) as u8).collect();
        for level in [ruzstd::encoding::CompressionLevel::Uncompressed, ruzstd::encoding::CompressionLevel::Fastest] {
            let packed = ruzstd::encoding::compress_to_vec(data.as_slice(), level);
            assert_eq!(decompress(ZSTD, &packed, data.len()).unwrap(), data);
            assert_eq!(decompress(ZSTD, &packed, 100).unwrap(), data[..100]);
            // Cut short: fewer bytes or an error, never a panic.
            let cut = decompress(ZSTD, &packed[..packed.len() / 2], data.len());
            assert!(cut.as_ref().map_or(true, |b| b.len() < data.len()), "a cut frame decoded whole");
        }
        let error = decompress(ZSTD, b"not a zstd frame", 100).unwrap_err().0;
        assert!(error.contains("ZSTD"), "{error}");
        assert_eq!(decompress(34887, &[0; 8], 8).unwrap_err().0, "compression 34887 (LERC) is not supported");
    }
}
