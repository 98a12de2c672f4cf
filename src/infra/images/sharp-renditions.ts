// ImageRenditions over sharp (libvips, prebuilt binaries from npm's @img/sharp-* packages). The sizes:
// a thumbnail that fits in 160 x 160 pixels and a large preview that fits in 1024 x 1024 (no source is
// enlarged), both in the source's format (GIF: its first frame), EXIF orientation applied and metadata
// stripped. No source records the sizes Tracker used; these are ours (docs/decisions.md). A sharp that
// cannot load (no binary for the platform) fails the render, and the reaction retries with back-off.
//
// Bounds: sharp refuses a source of more than MAX_INPUT_PIXELS pixels from its header (limitInputPixels),
// so a small file that claims 50000 x 50000 is refused without decoding; libvips' operation cache is off
// and one image is rendered at a time, so memory stays at about one decoded image. sharp (a native
// library, a few hundred ms to load) is loaded on the first render, so no start-up or command pays for it.
import type SharpModule from 'sharp';
import type { Sharp } from 'sharp';
import type { ImageRendition, ImageRenditions, ImageRenditionSet } from '../../ports/image-renditions.js';

export const THUMBNAIL_BOX = 160;
export const BIG_BOX = 1024;
/** 25 megapixels: a 6000 x 4000 camera picture, about 100 MB decoded. */
export const MAX_INPUT_PIXELS = 25_000_000;

const FORMATS: Readonly<Record<string, 'png' | 'jpeg' | 'gif' | 'webp'>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** sharp, loaded once, with libvips' operation cache off and one thread per image. */
let loadedSharp: Promise<typeof SharpModule> | null = null;
function loadSharp(): Promise<typeof SharpModule> {
  return (loadedSharp ??= import('sharp').then((module) => {
    module.default.cache(false);
    module.default.concurrency(1);
    return module.default;
  }));
}

export function sharpRenditions(options: { maxInputPixels?: number } = {}): ImageRenditions {
  const limitInputPixels = options.maxInputPixels ?? MAX_INPUT_PIXELS;
  let queue: Promise<unknown> = Promise.resolve();

  async function renderNow(image: Buffer, contentType: string): Promise<ImageRenditionSet | null> {
    const format = FORMATS[contentType];
    if (!format) return null;
    const sharp = await loadSharp();
    const source = () => sharp(image, { limitInputPixels, failOn: 'error', animated: false, autoOrient: true });
    try {
      const { autoOrient } = await source().metadata(); // the header only
      const thumbnail = await rendition(source(), THUMBNAIL_BOX, format);
      const big = await rendition(source(), BIG_BOX, format);
      return { thumbnail, big, width: autoOrient.width, height: autoOrient.height };
    } catch {
      return null; // unreadable: damaged, not of its type, or past the pixel limit
    }
  }

  return {
    contentTypes: new Set(Object.keys(FORMATS)),
    // One at a time: concurrent renders would hold several decoded images.
    render(image, contentType) {
      const next = queue.then(() => renderNow(image, contentType));
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

async function rendition(pipeline: Sharp, box: number, format: 'png' | 'jpeg' | 'gif' | 'webp'): Promise<ImageRendition> {
  const { data, info } = await pipeline
    .resize({ width: box, height: box, fit: 'inside', withoutEnlargement: true })
    .toFormat(format)
    .toBuffer({ resolveWithObject: true });
  return { bytes: data, contentType: `image/${format}`, width: info.width, height: info.height };
}
