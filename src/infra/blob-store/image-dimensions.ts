// The width and height of an uploaded image, read from its header by image-size (PNG, GIF, JPEG, WebP,
// BMP, SVG, ...), from the first bytes of the upload as they stream past: nothing is decoded, and a
// file whose header lies beyond those bytes, or that is not an image, simply has no dimensions.
import { imageSize } from 'image-size';

/** How many leading bytes of an image are kept to read its header (JPEG headers can sit after EXIF data). */
export const IMAGE_HEAD_BYTES = 512 * 1024;

export interface ImageDimensions {
  width: number;
  height: number;
}

/** The dimensions the header in `head` gives, or null when it gives none. */
export function imageDimensions(head: Uint8Array): ImageDimensions | null {
  try {
    const { width, height } = imageSize(head);
    return Number.isSafeInteger(width) && Number.isSafeInteger(height) && width > 0 && height > 0 ? { width, height } : null;
  } catch {
    return null;
  }
}

/** Passes `source` through unchanged while keeping its first IMAGE_HEAD_BYTES in `head`. */
export async function* keepingHead(source: AsyncIterable<Uint8Array>, head: Uint8Array[]): AsyncGenerator<Uint8Array> {
  let kept = 0;
  for await (const chunk of source) {
    if (kept < IMAGE_HEAD_BYTES) {
      const part = chunk.subarray(0, IMAGE_HEAD_BYTES - kept);
      head.push(part);
      kept += part.byteLength;
    }
    yield chunk;
  }
}
