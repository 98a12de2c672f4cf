// A set of document ids kept as one bit per id while ids are small non-negative integers (what the
// read models hold: resource ids, global positions), and in a Set beyond. A rebuild remembers every
// document it moved out to the read store: at a million events that is millions of ids, which a Set
// holds in some 30 bytes each and a bitmap in one bit.

/** Ids below this are bits (a bitmap of at most 8 MiB); others go to the Set. */
const BITMAP_LIMIT = 2 ** 26;

export class IdBitmap {
  private bits = new Uint8Array(1024);
  private readonly others = new Set<number>();

  private inBitmap(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id < BITMAP_LIMIT;
  }

  has(id: number): boolean {
    if (!this.inBitmap(id)) return this.others.has(id);
    const byte = id >>> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (id & 7))) !== 0;
  }

  add(id: number): void {
    if (!this.inBitmap(id)) {
      this.others.add(id);
      return;
    }
    const byte = id >>> 3;
    if (byte >= this.bits.length) {
      let length = this.bits.length;
      while (length <= byte) length *= 2;
      const grown = new Uint8Array(length);
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[byte]! |= 1 << (id & 7);
  }

  delete(id: number): void {
    if (!this.inBitmap(id)) {
      this.others.delete(id);
      return;
    }
    const byte = id >>> 3;
    if (byte < this.bits.length) this.bits[byte]! &= ~(1 << (id & 7));
  }

  /** Every id held: the bitmap's in ascending order, then the others. */
  *ids(): IterableIterator<number> {
    for (let byte = 0; byte < this.bits.length; byte++) {
      const value = this.bits[byte]!;
      if (value === 0) continue;
      for (let bit = 0; bit < 8; bit++) if (value & (1 << bit)) yield byte * 8 + bit;
    }
    yield* this.others;
  }
}
