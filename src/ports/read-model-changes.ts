// Whether what the live read models answer may have changed: the projector runner moves the stamp after
// every batch it applied became visible and after every switch-over to a rebuilt generation. Readers
// that remember answers derived from the read models (who a token's person is, who may see a project)
// keep them while the stamp stays where it was when they were computed; those derived from a few
// collections keep them while those collections' stamp stays.
export interface ReadModelChanges {
  /** A number that moves after every change of the live read models. */
  stamp(): number;
  /**
   * A number that moves after every change of any of these live collections (logical names): an answer
   * derived from them alone survives the writes that touch other collections.
   */
  stampOf(collections: readonly string[]): number;
}
