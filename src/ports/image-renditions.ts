// The image-renditions port: the smaller pictures of an uploaded image that clients show instead of the
// file itself (file_attachment `thumbnail_url` and `big_url`). Implemented in infra/images/ over sharp;
// the thumbnails reaction (src/reactions/thumbnails.ts) calls it behind the log, never a request.

/** One rendition: its bytes, their content type and its size in pixels. */
export interface ImageRendition {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

export interface ImageRenditionSet {
  thumbnail: ImageRendition;
  big: ImageRendition;
  /** The source image's own size in pixels, as displayed (EXIF orientation applied). */
  width: number;
  height: number;
}

export interface ImageRenditions {
  /** The content types it renders (PNG, JPEG, GIF, WebP). */
  readonly contentTypes: ReadonlySet<string>;
  /**
   * The thumbnail and large preview of `image`, or null when it cannot be read as an image of its type:
   * damaged, not an image, or more pixels than the limit (a decompression bomb is refused from its
   * header, before anything is decoded).
   */
  render(image: Buffer, contentType: string): Promise<ImageRenditionSet | null>;
}
