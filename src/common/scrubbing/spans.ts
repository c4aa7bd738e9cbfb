/** [start, end) in the scanned text. */
export interface Span {
  start: number;
  end: number;
}

/**
 * A credential found in a text. `wholeStart` / `wholeEnd` when it is known to start / end
 * there (a JWT's header, a signature of its algorithm's length, a secret): a view of the text
 * that glues the word before or after it to it adds nothing but that word on that side.
 */
export interface Finding extends Span {
  wholeStart: boolean;
  wholeEnd: boolean;
}

export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of sorted) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ start: span.start, end: span.end });
  }
  return merged;
}

/** The first of `sorted` (merged, in order) that overlaps `span`, or -1. */
function firstOverlap(sorted: readonly Span[], span: Span): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (sorted[middle].end <= span.start) low = middle + 1;
    else high = middle - 1;
  }
  return low < sorted.length && sorted[low].start < span.end ? low : -1;
}

/** The last of `sorted` (merged, in order) that overlaps `span`, or -1. */
function lastOverlap(sorted: readonly Span[], span: Span): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (sorted[middle].start < span.end) low = middle + 1;
    else high = middle - 1;
  }
  return high >= 0 && sorted[high].end > span.start ? high : -1;
}

/**
 * `span` (found in a view) without what lies before the start of the whole-started spans it
 * overlaps or after the end of the whole-ended ones: there the view only glued a word on.
 */
export function clipToWhole(span: Span, wholeStarts: readonly Span[], wholeEnds: readonly Span[]): Span {
  const first = firstOverlap(wholeStarts, span);
  const last = lastOverlap(wholeEnds, span);
  return {
    start: first < 0 ? span.start : Math.max(span.start, wholeStarts[first].start),
    end: last < 0 ? span.end : Math.min(span.end, wholeEnds[last].end),
  };
}
