//! Turning a ZPixmap image from `GetImage` into a PNG.

/// How the server lays out the pixels of an image.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PixelLayout {
    pub(crate) bits_per_pixel: u8,
    /// Rows are padded to a multiple of this many bits.
    pub(crate) scanline_pad: u8,
    pub(crate) big_endian: bool,
    pub(crate) red_mask: u32,
    pub(crate) green_mask: u32,
    pub(crate) blue_mask: u32,
}

/// Converts ZPixmap `data` of `width` x `height` pixels to tightly packed 8-bit RGB.
/// `None` when the layout is not a true-colour one this code understands or `data` is short.
pub(crate) fn to_rgb(
    data: &[u8],
    width: usize,
    height: usize,
    layout: PixelLayout,
) -> Option<Vec<u8>> {
    let bytes_per_pixel = match layout.bits_per_pixel {
        16 | 24 | 32 => usize::from(layout.bits_per_pixel / 8),
        _ => return None,
    };
    let pad = usize::from(layout.scanline_pad).max(8);
    let stride = (width * usize::from(layout.bits_per_pixel)).div_ceil(pad) * pad / 8;
    if layout.red_mask == 0 || layout.green_mask == 0 || layout.blue_mask == 0 {
        return None;
    }
    if data.len() < stride * height.saturating_sub(1) + width * bytes_per_pixel {
        return None;
    }
    let channels = [layout.red_mask, layout.green_mask, layout.blue_mask].map(Channel::new);
    let mut rgb = Vec::with_capacity(width * height * 3);
    for row in data.chunks(stride).take(height) {
        for pixel in row[..width * bytes_per_pixel].chunks_exact(bytes_per_pixel) {
            let value = pixel.iter().enumerate().fold(0u32, |value, (i, &byte)| {
                let shift = if layout.big_endian {
                    (bytes_per_pixel - 1 - i) * 8
                } else {
                    i * 8
                };
                value | u32::from(byte) << shift
            });
            rgb.extend(channels.iter().map(|channel| channel.extract(value)));
        }
    }
    Some(rgb)
}

/// One colour channel of a true-colour visual, scaled to 8 bits.
#[derive(Debug, Clone, Copy)]
struct Channel {
    mask: u32,
    shift: u32,
    max: u32,
}

impl Channel {
    fn new(mask: u32) -> Channel {
        let shift = mask.trailing_zeros();
        Channel {
            mask,
            shift,
            max: mask >> shift,
        }
    }

    fn extract(&self, pixel: u32) -> u8 {
        let value = (pixel & self.mask) >> self.shift;
        // max is non-zero: masks are checked before channels are built.
        u8::try_from(value * 255 / self.max.max(1)).unwrap_or(u8::MAX)
    }
}

/// Encodes packed RGB as a PNG, with the fast compression level: screenshots are taken often
/// and read once.
pub(crate) fn encode_png(
    width: u32,
    height: u32,
    rgb: &[u8],
) -> Result<Vec<u8>, png::EncodingError> {
    let mut png_bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut png_bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(png_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPTH_24: PixelLayout = PixelLayout {
        bits_per_pixel: 32,
        scanline_pad: 32,
        big_endian: false,
        red_mask: 0xff0000,
        green_mask: 0x00ff00,
        blue_mask: 0x0000ff,
    };

    #[test]
    fn converts_32_bit_little_endian_pixels() {
        // Two pixels, BGRX in memory: pure red, then (1, 2, 3).
        let data = [0, 0, 255, 0, 3, 2, 1, 0];
        assert_eq!(
            to_rgb(&data, 2, 1, DEPTH_24),
            Some(vec![255, 0, 0, 1, 2, 3])
        );
        let big = PixelLayout {
            big_endian: true,
            ..DEPTH_24
        };
        assert_eq!(to_rgb(&[0, 255, 0, 0], 1, 1, big), Some(vec![255, 0, 0]));
    }

    #[test]
    fn honours_row_padding_and_16_bit_pixels() {
        let rgb565 = PixelLayout {
            bits_per_pixel: 16,
            scanline_pad: 32,
            big_endian: false,
            red_mask: 0xf800,
            green_mask: 0x07e0,
            blue_mask: 0x001f,
        };
        // One white pixel per row, padded to 4 bytes.
        let data = [0xff, 0xff, 0xaa, 0xaa, 0x00, 0xf8, 0xaa, 0xaa];
        assert_eq!(
            to_rgb(&data, 1, 2, rgb565),
            Some(vec![255, 255, 255, 255, 0, 0])
        );
    }

    #[test]
    fn rejects_short_data_and_odd_layouts() {
        assert_eq!(to_rgb(&[0; 7], 2, 1, DEPTH_24), None);
        assert_eq!(
            to_rgb(
                &[0; 8],
                1,
                1,
                PixelLayout {
                    bits_per_pixel: 8,
                    ..DEPTH_24
                }
            ),
            None
        );
        assert_eq!(
            to_rgb(
                &[0; 8],
                1,
                1,
                PixelLayout {
                    red_mask: 0,
                    ..DEPTH_24
                }
            ),
            None
        );
    }

    #[test]
    fn encodes_a_decodable_png() {
        let png_bytes = encode_png(2, 1, &[255, 0, 0, 0, 0, 255]).expect("encoding");
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let reader = decoder.read_info().expect("decoding the header");
        assert_eq!((reader.info().width, reader.info().height), (2, 1));
    }
}
